// Helpers shared by the codec tests: packing element codes into buffers as docs/formats.md lays them
// out (little-endian, fp4 two a byte with the even element low), written here independently
// of the codec's own element access, and running the codec over whole buffers.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "formats/formats.h"
#include "reference.h"

namespace dpusim::formats::testing {

inline const RefFormat& ref(Format f) { return kRefFormats[static_cast<unsigned>(f)]; }

inline std::vector<uint8_t> pack(Format f, const std::vector<uint32_t>& codes) {
  const int bits = ref(f).bits;
  std::vector<uint8_t> out;
  if (bits == 4) {
    out.assign((codes.size() + 1) / 2, 0);
    for (size_t i = 0; i < codes.size(); ++i)
      out[i / 2] |= static_cast<uint8_t>((codes[i] & 0xF) << (i % 2 ? 4 : 0));
    return out;
  }
  for (uint32_t c : codes) {
    for (int b = 0; b < bits / 8; ++b) out.push_back(static_cast<uint8_t>(c >> (8 * b)));
  }
  return out;
}

inline std::vector<uint32_t> unpack(Format f, const std::vector<uint8_t>& bytes) {
  const int bits = ref(f).bits;
  std::vector<uint32_t> out;
  if (bits == 4) {
    for (uint8_t byte : bytes) {
      out.push_back(byte & 0xF);
      out.push_back(byte >> 4);
    }
    return out;
  }
  for (size_t i = 0; i + bits / 8 <= bytes.size(); i += bits / 8) {
    uint32_t c = 0;
    for (int b = 0; b < bits / 8; ++b) c |= uint32_t{bytes[i + b]} << (8 * b);
    out.push_back(c);
  }
  return out;
}

// Every code of a format of at most 16 bits, in order.
inline std::vector<uint32_t> all_codes(Format f) {
  std::vector<uint32_t> codes(size_t{1} << ref(f).bits);
  for (uint32_t c = 0; c < codes.size(); ++c) codes[c] = c;
  return codes;
}

// The value of any code as a double: the finite value, a signed infinity or a signed NaN.
inline double ref_any_value(Format f, uint32_t code) {
  const bool negative = ref_negative(ref(f), code);
  switch (ref_kind(ref(f), code)) {
    case RefKind::nan: return negative ? -NAN : NAN;
    case RefKind::infinity: return negative ? -INFINITY : INFINITY;
    default: return ref_value(ref(f), code);
  }
}

// The reference rounding to any format: the hardware's for fp32, the value list's otherwise.
struct AnyRounder {
  explicit AnyRounder(Format f) : f(f), list(ref(f == Format::fp32 ? Format::fp16 : f)) {}
  uint32_t operator()(double v) const {
    return f == Format::fp32 ? ref_round_fp32(v) : list.round(v);
  }
  Format f;
  RefRounder list;  // unused for fp32
};

// convert() over a whole buffer of codes; fails the test on a non-ok status.
inline std::vector<uint32_t> convert_codes(Format src, Format dst,
                                           const std::vector<uint32_t>& codes) {
  const std::vector<uint8_t> in = pack(src, codes);
  size_t out_bytes = 0;
  EXPECT_EQ(converted_length(src, dst, in.size(), &out_bytes), Status::ok);
  std::vector<uint8_t> out(out_bytes);
  EXPECT_EQ(convert(src, dst, in.data(), in.size(), out.data(), out.size()), Status::ok);
  return unpack(dst, out);
}

// apply() over whole buffers of codes.
inline std::vector<uint32_t> apply_codes(Op op, Format f, const std::vector<uint32_t>& a,
                                         const std::vector<uint32_t>& b) {
  const std::vector<uint8_t> pa = pack(f, a);
  const std::vector<uint8_t> pb = pack(f, b);
  std::vector<uint8_t> out(pa.size());
  EXPECT_EQ(apply(op, f, pa.data(), pa.size(), pb.data(), pb.size(), out.data(), out.size()),
            Status::ok);
  return unpack(f, out);
}

}  // namespace dpusim::formats::testing
