#include "decode_tables.h"

#include <cstddef>

#include "rounding.h"

namespace dpusim::formats::detail {

uint32_t binary32_from_fields(const FormatSpec& s, uint32_t code) {
  const bool neg = (code & s.sign_bit()) != 0;
  const uint32_t field = (code >> s.man_bits) & s.exp_field_max();
  const uint32_t mantissa = code & s.man_mask();
  const uint32_t sign = neg ? Binary32::kSign : 0;
  if (s.specials == Specials::ieee && field == s.exp_field_max()) {
    return mantissa == 0 ? (sign | Binary32::kInf) : nan_code<Format::fp32>(neg);
  }
  if (s.specials == Specials::nan_only && (code & s.magnitude_mask()) == s.magnitude_mask()) {
    return nan_code<Format::fp32>(neg);
  }
  // Subnormal (field 0): mantissa * 2^(emin - man_bits); normal: the implicit bit added and the
  // exponent unbiased. round_pack does not round here, since binary32 holds the value.
  const uint64_t significand = field == 0 ? mantissa : (mantissa | (1u << s.man_bits));
  const int exponent =
      (field == 0 ? s.emin() : static_cast<int>(field) - s.bias) - static_cast<int>(s.man_bits);
  return round_pack<Format::fp32>(neg, significand, exponent);
}

namespace {

template <size_t N>
void fill(uint32_t (&table)[N], Format f) {
  for (uint32_t code = 0; code < N; ++code) table[code] = binary32_from_fields(spec(f), code);
}

}  // namespace

const DecodeTables& decode_tables() {
  // Filled in place on first use: the object is static storage, never a quarter megabyte of
  // stack. Function-local statics are initialised once even if two threads race here.
  static DecodeTables tables;
  static const bool built = [] {
    fill(tables.fp16, Format::fp16);
    fill(tables.fp8_e4m3, Format::fp8_e4m3);
    fill(tables.fp8_e5m2, Format::fp8_e5m2);
    fill(tables.fp4_e2m1, Format::fp4_e2m1);
    return true;
  }();
  (void)built;
  return tables;
}

}  // namespace dpusim::formats::detail
