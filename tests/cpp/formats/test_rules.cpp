// The rules of docs/formats.md one by one, with exact codes worked out by hand from the format tables
// (OCP OFP8 table 2, IEEE 754 binary16/32): each test names the rule it holds the codec to.
#include "test_util.h"

namespace dpusim::formats::testing {
namespace {

// One element of each operand (doubled, so an fp4 buffer is a whole byte).
uint32_t op1(Op op, Format f, uint32_t a, uint32_t b) {
  return apply_codes(op, f, {a, a}, {b, b})[0];
}
uint32_t cvt1(Format src, Format dst, uint32_t code) {
  return convert_codes(src, dst, {code, code})[0];
}

constexpr uint32_t kOne32 = 0x3F800000, kNan32 = 0x7FC00000, kNegNan32 = 0xFFC00000;

TEST(NanRule, ANanOperandGivesTheCanonicalNanWithItsSign) {
  EXPECT_EQ(op1(Op::add, Format::fp32, 0xFFC00123, kOne32), kNegNan32);  // payload dropped
  EXPECT_EQ(op1(Op::mul, Format::fp32, kOne32, 0x7F800001), kNan32);     // signalling -> quiet
  EXPECT_EQ(op1(Op::add, Format::fp8_e5m2, 0xFD, 0x3C), 0xFEu);
  EXPECT_EQ(op1(Op::max, Format::fp8_e4m3, 0x38, 0xFF), 0xFFu);
}

TEST(NanRule, TheFirstNanDecidesTheSignWhenBothAreNan) {
  EXPECT_EQ(op1(Op::add, Format::fp16, 0x7C01, 0xFE00), 0x7E00u);
  EXPECT_EQ(op1(Op::add, Format::fp16, 0xFE00, 0x7C01), 0xFE00u);
}

TEST(NanRule, SubTakesTheSignTheNanOperandCarries) {
  EXPECT_EQ(op1(Op::sub, Format::bf16, 0x3F80, 0xFFC1), 0xFFC0u);
}

TEST(NanRule, InfinityMinusInfinityIsThePositiveNan) {
  EXPECT_EQ(op1(Op::add, Format::fp16, 0x7C00, 0xFC00), 0x7E00u);
  EXPECT_EQ(op1(Op::add, Format::fp16, 0xFC00, 0x7C00), 0x7E00u);
  EXPECT_EQ(op1(Op::sub, Format::fp8_e5m2, 0xFC, 0xFC), 0x7Eu);
  EXPECT_EQ(op1(Op::add, Format::fp16, 0x7C00, 0x7C00), 0x7C00u);  // same signs: infinity
}

TEST(NanRule, ZeroTimesInfinityIsThePositiveNan) {
  EXPECT_EQ(op1(Op::mul, Format::fp8_e5m2, 0x80, 0x7C), 0x7Eu);
  EXPECT_EQ(op1(Op::mul, Format::fp32, 0xFF800000, 0), kNan32);
}

TEST(NanRule, MinAndMaxOfANanAreNan) {
  EXPECT_EQ(op1(Op::min, Format::fp16, 0x3C00, 0x7E00), 0x7E00u);
  EXPECT_EQ(op1(Op::max, Format::fp16, 0xFD00, 0x3C00), 0xFE00u);
}

TEST(SignedZero, MinusZeroPlusMinusZeroIsMinusZero) {
  EXPECT_EQ(op1(Op::add, Format::fp32, 0x80000000, 0x80000000), 0x80000000u);
  EXPECT_EQ(op1(Op::sub, Format::fp8_e4m3, 0x80, 0x00), 0x80u);  // -0 - +0
  EXPECT_EQ(op1(Op::add, Format::fp16, 0x8000, 0x0000), 0x0000u);
}

TEST(SignedZero, XPlusMinusXIsPlusZero) {
  EXPECT_EQ(op1(Op::add, Format::fp8_e4m3, 0x40, 0xC0), 0x00u);
  EXPECT_EQ(op1(Op::add, Format::fp8_e4m3, 0xC0, 0x40), 0x00u);
  EXPECT_EQ(op1(Op::sub, Format::fp4_e2m1, 0xD, 0xD), 0x0u);  // -3 - -3
}

TEST(SignedZero, AProductKeepsTheSignEvenWhenItRoundsToZero) {
  EXPECT_EQ(op1(Op::mul, Format::fp16, 0x8000, 0x3C00), 0x8000u);
  EXPECT_EQ(op1(Op::mul, Format::fp8_e4m3, 0x81, 0x01), 0x80u);  // -2^-9 * 2^-9 underflows
}

TEST(SignedZero, MinAndMaxOrderMinusZeroBelowPlusZero) {
  EXPECT_EQ(op1(Op::min, Format::fp32, 0x00000000, 0x80000000), 0x80000000u);
  EXPECT_EQ(op1(Op::min, Format::fp32, 0x80000000, 0x00000000), 0x80000000u);
  EXPECT_EQ(op1(Op::max, Format::fp32, 0x80000000, 0x00000000), 0x00000000u);
  EXPECT_EQ(op1(Op::max, Format::fp4_e2m1, 0x0, 0x8), 0x0u);
}

TEST(Rounding, TiesGoToTheEvenNeighbour) {
  EXPECT_EQ(op1(Op::add, Format::fp8_e4m3, 0x38, 0x18), 0x38u);  // 1 + 1/16 = 1.0625 -> 1
  EXPECT_EQ(op1(Op::add, Format::fp8_e4m3, 0x39, 0x18), 0x3Au);  // 1.125 + 1/16 -> 1.25
  EXPECT_EQ(op1(Op::add, Format::fp4_e2m1, 0x6, 0x2), 0x6u);     // 4 + 1 = 5 -> 4
  EXPECT_EQ(cvt1(Format::fp32, Format::fp16, 0x33000000),
            0x0000u);  // 2^-25: half the least subnormal
  EXPECT_EQ(cvt1(Format::fp32, Format::fp16, 0x33000001), 0x0001u);    // just above half
  EXPECT_EQ(cvt1(Format::fp32, Format::fp8_e4m3, 0x3B400000), 0x02u);  // 3 * 2^-10 -> 2 * 2^-9
}

TEST(Rounding, EncodingADoubleRoundsOnce) {
  // 1 + 2^-11 + 2^-40: through binary32 it would become the tie 1 + 2^-11 and then 1.0.
  EXPECT_EQ(encode(Format::fp16, 1.0 + 0x1p-11 + 0x1p-40), 0x3C01u);
}

TEST(Rounding, SubnormalsAreExact) {
  EXPECT_EQ(op1(Op::add, Format::fp16, 0x0001, 0x0001), 0x0002u);
  EXPECT_EQ(op1(Op::mul, Format::fp32, 0x00000001, kOne32), 0x00000001u);
  EXPECT_EQ(op1(Op::sub, Format::fp32, 0x00800000, 0x00000001), 0x007FFFFFu);
  EXPECT_EQ(cvt1(Format::fp32, Format::bf16, 0x00010000), 0x0001u);
}

TEST(Overflow, FormatsWithInfinityOverflowToIt) {
  EXPECT_EQ(op1(Op::add, Format::fp8_e5m2, 0x7B, 0x6C), 0x7Cu);      // 57344 + 4096: the midpoint
  EXPECT_EQ(op1(Op::add, Format::fp8_e5m2, 0x7B, 0x68), 0x7Bu);      // 57344 + 2048 stays
  EXPECT_EQ(cvt1(Format::fp32, Format::fp16, 0x477FF000), 0x7C00u);  // 65520 -> inf
  EXPECT_EQ(cvt1(Format::fp32, Format::fp16, 0xC77FEFFF), 0xFBFFu);  // just under: -65504
}

TEST(Overflow, E4m3SaturatesTo448) {
  EXPECT_EQ(op1(Op::add, Format::fp8_e4m3, 0x7E, 0x7E), 0x7Eu);
  EXPECT_EQ(op1(Op::mul, Format::fp8_e4m3, 0xFE, 0x40), 0xFEu);
  EXPECT_EQ(op1(Op::add, Format::fp8_e4m3, 0x7E, 0x58), 0x7Eu);        // 448 + 16 = 464
  EXPECT_EQ(cvt1(Format::fp32, Format::fp8_e4m3, 0x7F800000), 0x7Eu);  // +inf
  EXPECT_EQ(cvt1(Format::fp16, Format::fp8_e4m3, 0xFC00), 0xFEu);      // -inf
}

TEST(Overflow, Fp4SaturatesToSix) {
  EXPECT_EQ(op1(Op::add, Format::fp4_e2m1, 0x7, 0x7), 0x7u);
  EXPECT_EQ(op1(Op::mul, Format::fp4_e2m1, 0x7, 0xF), 0xFu);
  EXPECT_EQ(cvt1(Format::fp32, Format::fp4_e2m1, 0xFF800000), 0xFu);
}

TEST(ConvertNan, StaysTheCanonicalNanWithItsSign) {
  EXPECT_EQ(cvt1(Format::fp32, Format::fp16, 0x7F800001), 0x7E00u);
  EXPECT_EQ(cvt1(Format::fp32, Format::bf16, 0xFFFFFFFF), 0xFFC0u);
  EXPECT_EQ(cvt1(Format::fp32, Format::fp8_e4m3, 0xFFC00000), 0xFFu);
  EXPECT_EQ(cvt1(Format::fp32, Format::fp8_e5m2, 0x7FFFFFFF), 0x7Eu);
  EXPECT_EQ(cvt1(Format::fp8_e4m3, Format::fp8_e5m2, 0xFF), 0xFEu);
}

TEST(ConvertNan, SaturatesWithItsSignInFp4) {
  EXPECT_EQ(cvt1(Format::fp32, Format::fp4_e2m1, kNan32), 0x7u);
  EXPECT_EQ(cvt1(Format::fp32, Format::fp4_e2m1, kNegNan32), 0xFu);
  EXPECT_EQ(cvt1(Format::fp8_e5m2, Format::fp4_e2m1, 0xFF), 0xFu);
}

}  // namespace
}  // namespace dpusim::formats::testing
