// Encoding: sweeps of binary32 values into each narrower format, every code of every small
// format into every other format, and doubles through encode(), all against the reference
// rounding.
#include <algorithm>
#include <cmath>
#include <random>

#include "test_util.h"

namespace dpusim::formats::testing {
namespace {

// 2 signs x 256 exponent fields x 1024 top-mantissa patterns x 8 low-mantissa patterns =
// 4 Mi binary32 values. The top ten mantissa bits run through every pattern, which puts every
// destination's kept bits and its round bit (bit 22 - man_bits, at most fp16's bit 12) through
// every combination; the low patterns then make each one exact, just above, exactly half and
// just below for fp16, and the zeros below the round bit make exact ties for the narrower
// formats. Field 0 gives both zeros and the binary32 subnormals, field 255 the infinities and
// NaNs of both signs.
std::vector<uint32_t> sweep() {
  std::mt19937 rng(4);
  const uint32_t low[8] = {0x0000,
                           0x0001,
                           0x0FFF,
                           0x1000,
                           0x1001,
                           0x1FFF,
                           static_cast<uint32_t>(rng()) & 0x1FFF,
                           static_cast<uint32_t>(rng()) & 0x1FFF};
  std::vector<uint32_t> values;
  values.reserve(size_t{1} << 22);
  for (uint32_t sign = 0; sign < 2; ++sign) {
    for (uint32_t field = 0; field < 256; ++field) {
      for (uint32_t top = 0; top < 1024; ++top) {
        for (uint32_t l : low) values.push_back(sign << 31 | field << 23 | top << 13 | l);
      }
    }
  }
  return values;
}

TEST(EncodeSweep, CoversEveryKindOfBinary32Value) {
  const std::vector<uint32_t> values = sweep();
  size_t zeros[2] = {}, subnormals = 0, infinities[2] = {}, nans[2] = {};
  for (uint32_t v : values) {
    const float f = bits_float(v);
    const int s = std::signbit(f) ? 1 : 0;
    if (f == 0) ++zeros[s];
    if (std::fpclassify(f) == FP_SUBNORMAL) ++subnormals;
    if (std::isinf(f)) ++infinities[s];
    if (std::isnan(f)) ++nans[s];
  }
  EXPECT_GE(values.size(), size_t{4} << 20);
  EXPECT_TRUE(zeros[0] && zeros[1] && subnormals && infinities[0] && infinities[1] && nans[0] &&
              nans[1]);
}

class EncodeInto : public ::testing::TestWithParam<Format> {};

TEST_P(EncodeInto, FourMebiBinary32ValuesRoundAsTheReference) {
  const Format f = GetParam();
  const RefRounder rounder(ref(f));
  const std::vector<uint32_t> values = sweep();
  const std::vector<uint32_t> got = convert_codes(Format::fp32, f, values);
  ASSERT_EQ(got.size(), values.size());
  size_t mismatches = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    const uint32_t expected = rounder.round(bits_float(values[i]));
    if (got[i] != expected && mismatches++ < 10) {
      ADD_FAILURE() << "fp32 " << std::hex << values[i] << " -> " << format_name(f) << " " << got[i]
                    << ", reference " << expected;
    }
  }
  EXPECT_EQ(mismatches, 0u);
}

INSTANTIATE_TEST_SUITE_P(Formats, EncodeInto,
                         ::testing::Values(Format::fp16, Format::bf16, Format::fp8_e4m3,
                                           Format::fp8_e5m2, Format::fp4_e2m1),
                         [](const auto& info) { return std::string(format_name(info.param)); });

TEST(ConvertEveryCode, BetweenEveryPairOfFormats) {
  constexpr Format kSmall[] = {Format::fp16, Format::bf16, Format::fp8_e4m3, Format::fp8_e5m2,
                               Format::fp4_e2m1};
  for (Format src : kSmall) {
    const std::vector<uint32_t> codes = all_codes(src);
    for (unsigned d = 0; d < kFormatCount; ++d) {
      const Format dst = static_cast<Format>(d);
      const std::vector<uint32_t> got = convert_codes(src, dst, codes);
      const AnyRounder rounder(dst);
      size_t mismatches = 0;
      for (uint32_t code : codes) {
        const uint32_t expected = rounder(ref_any_value(src, code));
        if (got[code] != expected && mismatches++ < 5) {
          ADD_FAILURE() << format_name(src) << " " << std::hex << code << " -> " << format_name(dst)
                        << " " << got[code] << ", reference " << expected;
        }
      }
    }
  }
}

// Doubles hold values between a format's neighbours that binary32 cannot, so encode(double)
// is held to the reference on each format's midpoints, one double ulp either side of them,
// and random doubles over and beyond each format's range.
TEST(EncodeDouble, RoundsOnceToTheReference) {
  std::mt19937_64 rng(44);
  for (unsigned i = 0; i < kFormatCount; ++i) {
    const Format f = static_cast<Format>(i);
    std::vector<double> values;
    if (f != Format::fp32) {
      std::vector<double> finite;
      for (uint32_t code : all_codes(f)) {
        if (ref_kind(ref(f), code) == RefKind::finite && !ref_negative(ref(f), code))
          finite.push_back(ref_value(ref(f), code));
      }
      std::sort(finite.begin(), finite.end());
      for (size_t k = 0; k + 1 < finite.size(); ++k) {
        const double mid = (finite[k] + finite[k + 1]) / 2;
        for (double v : {mid, std::nextafter(mid, 0.0), std::nextafter(mid, INFINITY)}) {
          values.push_back(v);
          values.push_back(-v);
        }
      }
    }
    for (int k = 0; k < 200000; ++k) {
      const uint64_t r = rng();
      // A 53-bit significand at an exponent from 2^-160 to 2^140.
      const double v = std::ldexp(static_cast<double>(r >> 11), static_cast<int>(r % 301) - 213);
      values.push_back(r & 1024 ? -v : v);
    }
    for (double v : {0.0, -0.0, double{INFINITY}, double{-INFINITY}, double{NAN}, -double{NAN}})
      values.push_back(v);
    const AnyRounder rounder(f);
    size_t mismatches = 0;
    for (double v : values) {
      const uint32_t expected = rounder(v);
      const uint32_t got = encode(f, v);
      if (got != expected && mismatches++ < 5) {
        ADD_FAILURE() << format_name(f) << " " << std::hexfloat << v << " -> " << std::hex << got
                      << ", reference " << expected;
      }
    }
  }
}

}  // namespace
}  // namespace dpusim::formats::testing
