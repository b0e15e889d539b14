// Encoding binary32 bits to a format: the conversion hot path.
//
// Same rules and results as round_pack (rounding.h), specialised for a binary32 source, with
// one computation for subnormal and normal results and no branch between them. Rounding is
// add-and-shift: adding just under half of what is dropped (plus the kept part's low bit, so a tie
// goes to even) and shifting rounds to nearest, and a carry out of the kept mantissa ripples into
// the exponent, which is exactly rounding up into the next binade. Integer operations only: the
// FPU's rounding mode and flush-to-zero settings play no part.
#pragma once

#include <algorithm>
#include <cstdint>

#include "format_spec.h"
#include "rounding.h"

namespace dpusim::formats::detail {

// `yes` where `c` holds, else `no`, hinted as unpredictable so that GCC weighs a conditional
// move against a branch as it should for overflow and NaN tests on mixed data. (Forcing a
// select with masks measured slower: more instructions on every element.)
inline uint32_t select(bool c, uint32_t yes, uint32_t no) {
  return __builtin_expect_with_probability(c, true, 0.5) ? yes : no;
}

template <Format F>
inline uint32_t encode_binary32(uint32_t x) {
  constexpr FormatSpec S = spec(F);
  constexpr int M = static_cast<int>(S.man_bits);
  constexpr int kDrop = 23 - M;  // binary32 mantissa bits the destination does not keep
  const bool neg = (x & Binary32::kSign) != 0;
  const uint32_t a = x & Binary32::kMagnitude;
  if constexpr (F == Format::fp32) {
    return a > Binary32::kInf ? nan_code<F>(neg) : x;
  } else {
    // binary32 bits of the largest finite value, and the first magnitude that overflows. With
    // infinity (IEEE): max + half an ulp and up, since that tie rounds to the even 2^(emax+1).
    // Without: anything above max, as it can only round to max or beyond and both give max.
    constexpr uint32_t kMax = (static_cast<uint32_t>(S.emax() + 127) << 23) |
                              (S.max_finite_code() & S.man_mask()) << kDrop;
    constexpr uint32_t kOverflow = S.has_inf() ? kMax + (1u << (kDrop - 1)) : kMax + 1;

    // No branches on the magnitude: real data mixes subnormal, normal and saturating
    // magnitudes, and a mispredicted branch per element costs more than the arithmetic.
    uint32_t code;
    if constexpr (S.emin() == -126) {
      // bf16 shares binary32's exponent range, so the fields line up and binary32 subnormals
      // are bf16 subnormals: rounding the low kDrop bits away is the whole conversion.
      code = (a + ((1u << (kDrop - 1)) - 1) + ((a >> kDrop) & 1)) >> kDrop;
    } else {
      // The value is sig * 2^(field - 150). The destination keeps it to the quantum
      // 2^(max(E, emin) - M): kDrop bits of sig are dropped for a normal result and more for
      // a subnormal one, one more per binade below 2^emin. From 25 on less than half a quantum
      // is left (sig < 2^24), which rounds to zero as 25 does; binary32 subnormals (field 0)
      // are all that small, so their missing implicit bit does not matter.
      const int field = static_cast<int>(a >> 23);
      const uint32_t sig = (a & 0x7FFFFF) | 0x800000;
      const int shift = std::min(std::max((S.emin() - M + 150) - field, kDrop), 25);
      const uint32_t rounded = (sig + ((1u << (shift - 1)) - 1) + ((sig >> shift) & 1)) >> shift;
      // rounded includes the implicit bit of a normal result, so adding the biased exponent
      // less one (zero for a subnormal) makes the code, and a mantissa that rounded up to
      // 2^(M+1), or a subnormal that rounded up to 2^M, carries into the exponent field.
      const int biased_less_one = std::max(field - 127 + S.bias - 1, 0);
      code = rounded + (static_cast<uint32_t>(biased_less_one) << M);
    }
    code =
        select(a >= kOverflow, S.has_inf() ? S.inf_code() : S.max_finite_code(), code);  // inf too
    code = select(a > Binary32::kInf, S.has_nan() ? S.quiet_nan_code() : S.max_finite_code(), code);
    return code | (neg ? S.sign_bit() : 0);
  }
}

}  // namespace dpusim::formats::detail
