// Decoding: every code of every format of at most 16 bits against the value its fields define,
// and the decode / re-encode round trip of every non-NaN code.
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

// Every one of the 2^32 binary32 codes, converted fp32 -> fp32 in place a block at a time:
// every non-NaN code survives unchanged and every NaN becomes the canonical quiet NaN of its
// sign. The block is filled through memcpy of host integers, so this needs a little-endian
// host, which the first assertion checks with the codec's own documented layout.
TEST(EveryBinary32Code, SurvivesConversionToItselfExceptNans) {
  const uint32_t one = 0x3F800000;
  uint8_t bytes[4];
  std::memcpy(bytes, &one, 4);
  ASSERT_EQ(bytes[0], 0x00) << "this test packs codes with memcpy and needs a little-endian host";
  constexpr size_t kBlock = size_t{1} << 24;
  std::vector<uint32_t> codes(kBlock);
  uint8_t* const buf = reinterpret_cast<uint8_t*>(codes.data());  // bytes may alias anything
  uint64_t mismatches = 0;
  for (uint64_t start = 0; start < (uint64_t{1} << 32); start += kBlock) {
    const uint32_t first = static_cast<uint32_t>(start);
    for (uint32_t i = 0; i < kBlock; ++i) codes[i] = first + i;
    ASSERT_EQ(convert(Format::fp32, Format::fp32, buf, 4 * kBlock, buf, 4 * kBlock), Status::ok);
    for (uint32_t i = 0; i < kBlock; ++i) {
      const uint32_t c = first + i;
      const uint32_t expected = (c & 0x7FFFFFFF) > 0x7F800000 ? ((c & 0x80000000) | 0x7FC00000) : c;
      mismatches += codes[i] != expected;
    }
    if (mismatches != 0) {
      ADD_FAILURE() << "a mismatch in the block from " << std::hex << first;
      break;
    }
  }
  EXPECT_EQ(mismatches, 0u);
}

}  // namespace
}  // namespace dpusim::formats::testing
