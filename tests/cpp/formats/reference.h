// An independent reference for the codec tests, deliberately unlike the codec.
//
// Each format is restated here from its defining document (field widths, bias, which codes
// are special), not read from the codec's table, so a wrong table entry is caught. A code's
// value is computed with std::ldexp from its fields. Rounding searches the sorted list of every
// finite value of the format for the neighbours of the exact value and compares against their
// midpoint: the definition of round-to-nearest, ties to even, with no bit manipulation. All
// comparisons are exact, since every value and midpoint involved is a double.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace dpusim::formats::testing {

enum class RefSpecials { ieee, e4m3, none };

struct RefFormat {
  const char* name;
  int bits;
  int exp_bits;
  int man_bits;
  int bias;
  RefSpecials specials;
};

// IEEE 754-2008 table 3.5 (binary32, binary16); bfloat16 as binary32's top half; OCP OFP8
// rev 1.0 table 1 (E4M3, E5M2); OCP MX v1.0 section 5.3.3 (E2M1). Indexed like the codec's
// format numbers, which the tests check by name.
inline const RefFormat kRefFormats[6] = {
    {"fp32", 32, 8, 23, 127, RefSpecials::ieee},  {"fp16", 16, 5, 10, 15, RefSpecials::ieee},
    {"bf16", 16, 8, 7, 127, RefSpecials::ieee},   {"fp8_e4m3", 8, 4, 3, 7, RefSpecials::e4m3},
    {"fp8_e5m2", 8, 5, 2, 15, RefSpecials::ieee}, {"fp4_e2m1", 4, 2, 1, 1, RefSpecials::none},
};

enum class RefKind { finite, infinity, nan };

RefKind ref_kind(const RefFormat& f, uint32_t code);
bool ref_negative(const RefFormat& f, uint32_t code);
// The exact value of a finite code (a signed zero for the zeros).
double ref_value(const RefFormat& f, uint32_t code);
// The codes the rules name: the canonical quiet NaN (+-max in fp4), the overflow result.
uint32_t ref_nan(const RefFormat& f, bool negative);
uint32_t ref_overflow(const RefFormat& f, bool negative);

// Round-to-nearest-even of an exact value to a format of at most 16 bits, with the overflow
// and NaN rules of docs/formats.md.
class RefRounder {
 public:
  explicit RefRounder(const RefFormat& f);
  uint32_t round(double exact) const;
  const RefFormat& format() const { return f_; }

 private:
  RefFormat f_;
  std::vector<std::pair<double, uint32_t>> positives_;  // every finite value >= 0, sorted
};

// binary32 as the rounding reference for fp32 results: the hardware's own double-to-float
// conversion (round to nearest even, the default mode, which the tests never change), with
// the NaN rule applied explicitly.
uint32_t ref_round_fp32(double exact);

uint32_t float_bits(float f);
float bits_float(uint32_t bits);

}  // namespace dpusim::formats::testing
