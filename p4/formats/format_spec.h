// The six element formats of the P4 engine's numeric codec, as a constexpr table.
//
// Numbering is the P4 engine guide's (section "Converting between formats"): a table entry
// carries these numbers as the arguments of the fp8 extern, so they are part of the
// guest-visible ABI and must not be reordered.
//
//   #  name       layout   defined by
//   0  fp32       1-8-23   IEEE 754 binary32
//   1  fp16       1-5-10   IEEE 754 binary16
//   2  bf16       1-8-7    bfloat16 (binary32's exponent, 7 stored mantissa bits)
//   3  fp8_e4m3   1-4-3    OCP OFP8 E4M3: no infinity, only S.1111.111 is NaN (max 448)
//   4  fp8_e5m2   1-5-2    OCP OFP8 E5M2: IEEE-style infinities and NaNs (max 57344)
//   5  fp4_e2m1   1-2-1    OCP MX MXFP4 element E2M1: no infinity, no NaN (max 6)
#pragma once

#include <cstdint>

namespace dpusim::formats {

enum class Format : uint8_t {
  fp32 = 0,
  fp16 = 1,
  bf16 = 2,
  fp8_e4m3 = 3,
  fp8_e5m2 = 4,
  fp4_e2m1 = 5,
};
inline constexpr unsigned kFormatCount = 6;

// What the all-ones exponent field means; the three encodings the six formats use.
enum class Specials : uint8_t {
  // IEEE 754 (and OCP E5M2): all-ones exponent with mantissa 0 is infinity, else NaN.
  ieee,
  // OCP E4M3: only S.1111.111 is NaN; the rest of the top binade is finite; no infinity.
  nan_only,
  // OCP MX E2M1: every code is a finite number.
  none,
};

struct FormatSpec {
  Format format;
  const char* name;
  unsigned bits;      // element width: 32, 16, 8 or 4
  unsigned exp_bits;  // exponent field width
  unsigned man_bits;  // stored mantissa bits (precision is man_bits + 1)
  int bias;
  Specials specials;

  constexpr uint32_t sign_bit() const { return 1u << (bits - 1); }
  constexpr uint32_t magnitude_mask() const { return sign_bit() - 1; }
  constexpr uint32_t exp_field_max() const { return (1u << exp_bits) - 1; }
  constexpr uint32_t man_mask() const { return (1u << man_bits) - 1; }
  constexpr bool has_inf() const { return specials == Specials::ieee; }
  constexpr bool has_nan() const { return specials != Specials::none; }
  // Smallest normal exponent (unbiased); subnormals share its quantum.
  constexpr int emin() const { return 1 - bias; }
  // Largest exponent (unbiased) of a finite value: IEEE reserves the all-ones field.
  constexpr int emax() const {
    return static_cast<int>(specials == Specials::ieee ? exp_field_max() - 1 : exp_field_max()) -
           bias;
  }
  constexpr uint32_t inf_code() const { return exp_field_max() << man_bits; }
  // Largest finite magnitude's code: below infinity (IEEE), below S.1111.111 (E4M3), or the
  // all-ones code (E2M1).
  constexpr uint32_t max_finite_code() const {
    switch (specials) {
      case Specials::ieee: return inf_code() - 1;
      case Specials::nan_only: return magnitude_mask() - 1;
      case Specials::none: break;
    }
    return magnitude_mask();
  }
  // The canonical quiet NaN (positive): IEEE's quiet bit (mantissa MSB) set and no payload;
  // E4M3's only NaN. E2M1 has none: a NaN saturates there (see formats.h), so this is unused.
  constexpr uint32_t quiet_nan_code() const {
    return specials == Specials::ieee ? inf_code() | (1u << (man_bits - 1)) : magnitude_mask();
  }
};

inline constexpr FormatSpec kFormatSpecs[kFormatCount] = {
    {Format::fp32, "fp32", 32, 8, 23, 127, Specials::ieee},
    {Format::fp16, "fp16", 16, 5, 10, 15, Specials::ieee},
    {Format::bf16, "bf16", 16, 8, 7, 127, Specials::ieee},
    {Format::fp8_e4m3, "fp8_e4m3", 8, 4, 3, 7, Specials::nan_only},
    {Format::fp8_e5m2, "fp8_e5m2", 8, 5, 2, 15, Specials::ieee},
    {Format::fp4_e2m1, "fp4_e2m1", 4, 2, 1, 1, Specials::none},
};

constexpr const FormatSpec& spec(Format f) { return kFormatSpecs[static_cast<unsigned>(f)]; }

// The table is indexed by the format's number, and every layout adds up to its width.
constexpr bool specs_consistent() {
  for (unsigned i = 0; i < kFormatCount; ++i) {
    const FormatSpec& s = kFormatSpecs[i];
    if (static_cast<unsigned>(s.format) != i || 1 + s.exp_bits + s.man_bits != s.bits) return false;
  }
  return true;
}
static_assert(specs_consistent(), "kFormatSpecs must be indexed by format number");
// The limits the OCP specifications state (OFP8 rev 1.0 table 1, MX v1.0 table 3).
static_assert(spec(Format::fp8_e4m3).emax() == 8 &&
                  spec(Format::fp8_e4m3).max_finite_code() == 0x7E,
              "OCP E4M3 max is S.1111.110 = 1.75 * 2^8 = 448");
static_assert(spec(Format::fp8_e5m2).emax() == 15 &&
                  spec(Format::fp8_e5m2).max_finite_code() == 0x7B,
              "OCP E5M2 max is S.11110.11 = 1.75 * 2^15 = 57344");
static_assert(spec(Format::fp4_e2m1).emax() == 2 && spec(Format::fp4_e2m1).max_finite_code() == 0x7,
              "OCP E2M1 max is S.11.1 = 1.5 * 2^2 = 6");
static_assert(spec(Format::fp16).quiet_nan_code() == 0x7E00 &&
                  spec(Format::bf16).quiet_nan_code() == 0x7FC0 &&
                  spec(Format::fp32).quiet_nan_code() == 0x7FC00000u,
              "canonical quiet NaNs are IEEE 754's default NaN");

}  // namespace dpusim::formats
