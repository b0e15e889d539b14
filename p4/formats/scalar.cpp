// One element at a time: exact decode to double, and encode from double with one rounding.
#include <cstring>

#include "decode_tables.h"
#include "formats.h"
#include "rounding.h"

namespace dpusim::formats {
namespace {

// A double taken apart: value = (-1)^neg * m * 2^e with m < 2^53, or a special.
template <Format F>
uint32_t encode_double(double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  const bool neg = (bits >> 63) != 0;
  const int field = static_cast<int>((bits >> 52) & 0x7FF);
  const uint64_t fraction = bits & ((uint64_t{1} << 52) - 1);
  if (field == 0x7FF)
    return fraction != 0 ? detail::nan_code<F>(neg) : detail::overflow_code<F>(neg);
  // Subnormal doubles (field 0) share field 1's exponent and have no implicit bit.
  const uint64_t m = field != 0 ? (fraction | uint64_t{1} << 52) : fraction;
  return detail::round_pack<F>(neg, m, (field != 0 ? field : 1) - 1075);
}

}  // namespace

double decode(Format f, uint32_t code) noexcept {
  const FormatSpec& s = spec(f);
  const uint32_t mask = s.bits == 32 ? 0xFFFFFFFFu : (1u << s.bits) - 1;
  // binary32_from_fields gives every NaN as binary32's canonical quiet NaN with its sign, which
  // converts to a quiet double NaN of that sign (no signalling NaN reaches the FPU).
  const uint32_t b32 = detail::binary32_from_fields(s, code & mask);
  float value;
  std::memcpy(&value, &b32, sizeof value);
  return static_cast<double>(value);  // exact: double holds every binary32 value
}

uint32_t encode(Format f, double value) noexcept {
  switch (f) {
    case Format::fp32: return encode_double<Format::fp32>(value);
    case Format::fp16: return encode_double<Format::fp16>(value);
    case Format::bf16: return encode_double<Format::bf16>(value);
    case Format::fp8_e4m3: return encode_double<Format::fp8_e4m3>(value);
    case Format::fp8_e5m2: return encode_double<Format::fp8_e5m2>(value);
    case Format::fp4_e2m1: return encode_double<Format::fp4_e2m1>(value);
  }
  return 0;
}

}  // namespace dpusim::formats
