// Decoding: every code of every format of at most 16 bits against the value its fields define,
// and the decode / re-encode round trip of every non-NaN code (the issue's "Tests of the
// codec", first two points).
#include <cmath>
#include <cstring>

#include "test_util.h"

namespace dpusim::formats::testing {
namespace {

constexpr Format kNarrow[] = {Format::fp16, Format::bf16, Format::fp8_e4m3, Format::fp8_e5m2,
                              Format::fp4_e2m1};

class EveryCode : public ::testing::TestWithParam<Format> {};

TEST(FormatTable, NumbersAndNamesMatchTheGuide) {
  for (unsigned i = 0; i < kFormatCount; ++i) {
    EXPECT_STREQ(format_name(static_cast<Format>(i)), kRefFormats[i].name);
    EXPECT_EQ(spec(static_cast<Format>(i)).bits, static_cast<unsigned>(kRefFormats[i].bits));
  }
}

TEST(Decode, Binary32NansDecodeToQuietDoubleNansOfTheirSign) {
  for (uint32_t code : {0x7F800001u, 0x7FC00000u, 0xFF800001u, 0xFFFFFFFFu}) {
    const double d = decode(Format::fp32, code);
    uint64_t bits;
    std::memcpy(&bits, &d, sizeof bits);
    EXPECT_EQ(bits, (code >> 31 ? 0xFFF8000000000000u : 0x7FF8000000000000u)) << std::hex << code;
  }
  EXPECT_EQ(decode(Format::fp32, 0x00000001), 0x1p-149);
}

TEST_P(EveryCode, DecodesToTheValueOfItsFields) {
  const Format f = GetParam();
  for (uint32_t code : all_codes(f)) {
    const double got = decode(f, code);
    switch (ref_kind(ref(f), code)) {
      case RefKind::nan: EXPECT_TRUE(std::isnan(got)) << std::hex << code; break;
      case RefKind::infinity: EXPECT_TRUE(std::isinf(got)) << std::hex << code; break;
      case RefKind::finite: EXPECT_EQ(got, ref_value(ref(f), code)) << std::hex << code; break;
    }
    EXPECT_EQ(std::signbit(got), ref_negative(ref(f), code)) << std::hex << code;
  }
}

TEST_P(EveryCode, ConvertsToTheExactBinary32) {
  const Format f = GetParam();
  const std::vector<uint32_t> codes = all_codes(f);
  const std::vector<uint32_t> out = convert_codes(f, Format::fp32, codes);
  ASSERT_EQ(out.size(), codes.size());
  for (uint32_t code : codes) {
    const bool negative = ref_negative(ref(f), code);
    uint32_t expected;
    switch (ref_kind(ref(f), code)) {
      case RefKind::nan: expected = negative ? 0xFFC00000u : 0x7FC00000u; break;
      case RefKind::infinity: expected = negative ? 0xFF800000u : 0x7F800000u; break;
      default: expected = float_bits(static_cast<float>(ref_value(ref(f), code)));  // exact
    }
    EXPECT_EQ(out[code], expected) << format_name(f) << " code " << std::hex << code;
  }
}

TEST_P(EveryCode, NonNanCodesSurviveDecodeAndReencode) {
  const Format f = GetParam();
  const std::vector<uint32_t> codes = all_codes(f);
  const std::vector<uint32_t> back =
      convert_codes(Format::fp32, f, convert_codes(f, Format::fp32, codes));
  for (uint32_t code : codes) {
    if (ref_kind(ref(f), code) == RefKind::nan) {
      EXPECT_EQ(back[code], ref_nan(ref(f), ref_negative(ref(f), code))) << std::hex << code;
      continue;
    }
    EXPECT_EQ(back[code], code) << format_name(f) << " via fp32, code " << std::hex << code;
    EXPECT_EQ(encode(f, decode(f, code)), code)
        << format_name(f) << " via double, code " << std::hex << code;
  }
}

TEST_P(EveryCode, ConvertingToItsOwnFormatChangesOnlyNans) {
  const Format f = GetParam();
  const std::vector<uint32_t> codes = all_codes(f);
  const std::vector<uint32_t> same = convert_codes(f, f, codes);
  for (uint32_t code : codes) {
    const bool nan = ref_kind(ref(f), code) == RefKind::nan;
    EXPECT_EQ(same[code], nan ? ref_nan(ref(f), ref_negative(ref(f), code)) : code)
        << std::hex << code;
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, EveryCode, ::testing::ValuesIn(kNarrow),
                         [](const auto& info) { return std::string(format_name(info.param)); });

// binary32 codes 0, 257, 514, ... (16 Mi of the 2^32: every exponent field and sign, with
// mantissas of every residue; the encode sweep covers the rest of the structure), a block at
// a time: every non-NaN code survives
// fp32 -> fp32 unchanged and every NaN becomes the canonical quiet NaN of its sign.
TEST(Binary32Codes, SurviveConversionToItselfExceptNans) {
  constexpr uint64_t kStride = 257;
  constexpr size_t kBlock = size_t{1} << 22;
  std::vector<uint32_t> codes(kBlock);
  uint64_t next = 0, mismatches = 0;
  while (next < (uint64_t{1} << 32)) {
    codes.clear();
    for (; next < (uint64_t{1} << 32) && codes.size() < kBlock; next += kStride) {
      codes.push_back(static_cast<uint32_t>(next));
    }
    const std::vector<uint32_t> out = convert_codes(Format::fp32, Format::fp32, codes);
    for (size_t i = 0; i < codes.size(); ++i) {
      const uint32_t c = codes[i];
      const bool nan = (c & 0x7FFFFFFF) > 0x7F800000;
      const uint32_t expected = nan ? ((c & 0x80000000) | 0x7FC00000) : c;
      if (out[i] != expected && mismatches++ < 10)
        ADD_FAILURE() << std::hex << c << " -> " << out[i];
    }
  }
  EXPECT_EQ(mismatches, 0u);
}

}  // namespace
}  // namespace dpusim::formats::testing
