// Decoding every format to binary32, by table where that pays.
//
// binary32 holds every value of the other five formats exactly (the widest exponent range is
// bf16's, which is binary32's; the finest quantum is fp16's 2^-24, far above binary32's
// 2^-149), so it is the codec's interchange: a conversion is decode to binary32 (exact) then
// one rounding to the destination, and arithmetic operates on decoded binary32 operands.
// A NaN decodes to binary32's canonical quiet NaN with its sign.
#pragma once

#include <cstdint>

#include "format_spec.h"

namespace dpusim::formats::detail {

// The exact binary32 bits of `code` in format `s`, computed from the format's fields. This is
// what the tables hold; it is the slow path, for building them and for single elements.
uint32_t binary32_from_fields(const FormatSpec& s, uint32_t code);

struct DecodeTables {
  uint32_t fp16[1u << 16];
  uint32_t fp8_e4m3[1u << 8];
  uint32_t fp8_e5m2[1u << 8];
  uint32_t fp4_e2m1[1u << 4];
};
// Built on first use (a quarter megabyte, so not a static initialiser's cost on every start).
const DecodeTables& decode_tables();

// binary32 bits of one element of F, given the tables.
template <Format F>
inline uint32_t to_binary32(const DecodeTables& t, uint32_t code) {
  if constexpr (F == Format::fp32) {
    return code;
  } else if constexpr (F == Format::bf16) {
    return code << 16;  // bf16 is binary32's upper half, by definition
  } else if constexpr (F == Format::fp16) {
    return t.fp16[code];
  } else if constexpr (F == Format::fp8_e4m3) {
    return t.fp8_e4m3[code];
  } else if constexpr (F == Format::fp8_e5m2) {
    return t.fp8_e5m2[code];
  } else {
    return t.fp4_e2m1[code];
  }
}

}  // namespace dpusim::formats::detail
