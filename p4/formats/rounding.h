// Rounding an exact value to a format: the one place where the codec rounds.
//
// Arithmetic and the double encoder hand over an exact value (-1)^neg * m * 2^e with an integer
// significand m; this rounds it to nearest, ties to even, and applies the overflow rule. Only
// integer operations are used, so the result does not depend on the FPU's rounding mode, on
// x87 extended precision or on flush-to-zero settings.
#pragma once

#include <cstdint>

#include "format_spec.h"

namespace dpusim::formats::detail {

// Overflow: infinity where the format has one, else the largest finite magnitude; sign kept.
template <Format F>
constexpr uint32_t overflow_code(bool neg) {
  constexpr FormatSpec S = spec(F);
  return (S.has_inf() ? S.inf_code() : S.max_finite_code()) | (neg ? S.sign_bit() : 0);
}

// The result for a NaN of sign `neg`: the canonical quiet NaN, or +-max in fp4_e2m1.
template <Format F>
constexpr uint32_t nan_code(bool neg) {
  constexpr FormatSpec S = spec(F);
  return (S.has_nan() ? S.quiet_nan_code() : S.max_finite_code()) | (neg ? S.sign_bit() : 0);
}

// (-1)^neg * m * 2^e rounded to F. m may be anything up to 2^63 - 1; m == 0 gives a signed zero.
//
// Why it is exact: the value's unbiased exponent is E = e + msb(m). The target's quantum there
// is 2^q with q = max(E, emin) - man_bits (subnormals share emin's quantum), so the rounded
// value is n * 2^q with n = m * 2^(e - q) rounded to an integer, ties to even. n is then at
// most 2^(man_bits + 1), and the code is the biased exponent shifted over the mantissa plus
// (n - 2^man_bits): a mantissa that rounds up to 2^(man_bits + 1) carries into the exponent
// field, which is exactly the next binade (or, past the largest, the overflow check below).
template <Format F>
inline uint32_t round_pack(bool neg, uint64_t m, int e) {
  constexpr FormatSpec S = spec(F);
  constexpr int M = static_cast<int>(S.man_bits);
  const uint32_t sign = neg ? S.sign_bit() : 0;
  if (m == 0) return sign;
  const int E = e + 63 - __builtin_clzll(m);
  // At or above 2^(emax + 1) the value exceeds the largest finite one (< 2^(emax + 1)) whatever
  // the rounding; stopping here also keeps the exponent arithmetic below in range.
  if (E > S.emax() + 1) return overflow_code<F>(neg);
  const int q = (E < S.emin() ? S.emin() : E) - M;
  const int shift = q - e;
  uint64_t n;
  if (shift <= 0) {
    n = m << -shift;  // exact: the value has no bits below the quantum
  } else if (shift >= 64) {
    // Half a quantum is 2^(shift - 1) >= 2^63 units: m is below it (zero), equal to it only at
    // shift 64 (a tie, to the even neighbour: zero) or above it only at shift 64 (one).
    n = (shift == 64 && m > (uint64_t{1} << 63)) ? 1 : 0;
  } else {
    n = m >> shift;
    const uint64_t rest = m & ((uint64_t{1} << shift) - 1);
    const uint64_t half = uint64_t{1} << (shift - 1);
    n += (rest > half || (rest == half && (n & 1))) ? 1 : 0;
  }
  uint32_t code;
  if (E < S.emin()) {
    code = static_cast<uint32_t>(n);  // subnormal; n == 2^M is the smallest normal's code
  } else {
    code = (static_cast<uint32_t>(E + S.bias) << M) + static_cast<uint32_t>(n - (uint64_t{1} << M));
  }
  // Above the largest finite code lies infinity, E4M3's NaN pattern, or nothing (E2M1): in every
  // case the value rounded past the largest finite value, which is IEEE 754's overflow.
  if (code > S.max_finite_code()) return overflow_code<F>(neg);
  return code | sign;
}

// binary32 bits taken apart. For finite x: value = (-1)^neg * m * 2^e, m < 2^24.
struct Binary32 {
  static constexpr uint32_t kSign = 0x80000000u;
  static constexpr uint32_t kMagnitude = 0x7FFFFFFFu;
  static constexpr uint32_t kInf = 0x7F800000u;

  static constexpr bool is_nan(uint32_t x) { return (x & kMagnitude) > kInf; }
  static constexpr bool is_inf(uint32_t x) { return (x & kMagnitude) == kInf; }
  static constexpr bool is_zero(uint32_t x) { return (x & kMagnitude) == 0; }
  static constexpr bool negative(uint32_t x) { return (x & kSign) != 0; }
  // Significand with the implicit bit; subnormals (field 0) share field 1's exponent.
  static constexpr uint32_t significand(uint32_t x) {
    const uint32_t field = (x >> 23) & 0xFF;
    return (x & 0x7FFFFF) | (field != 0 ? 0x800000u : 0);
  }
  static constexpr int exponent(uint32_t x) {
    const int field = static_cast<int>((x >> 23) & 0xFF);
    return (field != 0 ? field : 1) - 150;
  }
};

}  // namespace dpusim::formats::detail
