// The buffer API: layouts in memory, the status for each refused argument (with nothing
// written), in-place operation, and the names and numbers the Python API and the fp8 extern
// use.
#include <cstring>

#include "test_util.h"

namespace dpusim::formats::testing {
namespace {

constexpr uint8_t kOneFp32[4] = {0x00, 0x00, 0x80, 0x3F};  // 1.0f, little-endian

TEST(Layout, MultiByteElementsAreLittleEndian) {
  uint8_t fp16[2] = {};
  ASSERT_EQ(convert(Format::fp32, Format::fp16, kOneFp32, 4, fp16, 2), Status::ok);
  EXPECT_EQ(fp16[0], 0x00);
  EXPECT_EQ(fp16[1], 0x3C);
  uint8_t back[4] = {};
  ASSERT_EQ(convert(Format::fp16, Format::fp32, fp16, 2, back, 4), Status::ok);
  EXPECT_EQ(std::memcmp(back, kOneFp32, 4), 0);
}

TEST(Layout, Fp4PutsTheEvenElementInTheLowNibble) {
  // 1.0 (0x2), 2.0 (0x4), -6.0 (0xF), 0.5 (0x1)
  const uint8_t src[4] = {0x38, 0x40, 0xFE, 0x30};  // as fp8_e4m3: 1, 2, -448, 0.5
  uint8_t out[2] = {};
  ASSERT_EQ(convert(Format::fp8_e4m3, Format::fp4_e2m1, src, 4, out, 2), Status::ok);
  EXPECT_EQ(out[0], 0x42);
  EXPECT_EQ(out[1], 0x1F);
  uint8_t widened[4] = {};
  ASSERT_EQ(convert(Format::fp4_e2m1, Format::fp8_e4m3, out, 2, widened, 4), Status::ok);
  const uint8_t expected[4] = {0x38, 0x40, 0xCC, 0x30};  // -6 is 0xCC in E4M3
  EXPECT_EQ(std::memcmp(widened, expected, 4), 0);
}

TEST(Lengths, CountsAndBytesFollowTheElementWidth) {
  size_t n = 0;
  EXPECT_EQ(converted_length(Format::fp16, Format::fp32, 6, &n), Status::ok);
  EXPECT_EQ(n, 12u);
  EXPECT_EQ(converted_length(Format::fp4_e2m1, Format::fp32, 3, &n), Status::ok);
  EXPECT_EQ(n, 24u);
  EXPECT_EQ(converted_length(Format::fp32, Format::fp4_e2m1, 8, &n), Status::ok);
  EXPECT_EQ(n, 1u);
  EXPECT_EQ(converted_length(uint64_t{3}, uint64_t{1}, 5, &n), Status::ok);  // by number
  EXPECT_EQ(n, 10u);
  EXPECT_EQ(converted_length(uint64_t{3}, uint64_t{7}, 5, &n), Status::unknown_format);
}

// Each refusal leaves the destination untouched.
class Refused : public ::testing::Test {
 protected:
  void SetUp() override { std::memset(dst, 0xA5, sizeof dst); }
  void expect_untouched() {
    for (uint8_t b : dst) ASSERT_EQ(b, 0xA5);
  }
  uint8_t src[16] = {};
  uint8_t dst[16];
};

TEST_F(Refused, UnknownFormatNumbers) {
  EXPECT_EQ(convert(uint64_t{6}, uint64_t{0}, src, 4, dst, 4), Status::unknown_format);
  EXPECT_EQ(convert(uint64_t{0}, uint64_t{1} << 40, src, 4, dst, 4), Status::unknown_format);
  EXPECT_EQ(apply(uint64_t{0}, uint64_t{6}, src, 4, src, 4, dst, 4), Status::unknown_format);
  expect_untouched();
}

TEST_F(Refused, UnknownOperationNumbers) {
  EXPECT_EQ(apply(uint64_t{5}, uint64_t{0}, src, 4, src, 4, dst, 4), Status::unknown_op);
  expect_untouched();
}

TEST_F(Refused, ALengthThatIsNotWholeElements) {
  EXPECT_EQ(convert(Format::fp32, Format::fp16, src, 6, dst, 3), Status::partial_element);
  EXPECT_EQ(apply(Op::add, Format::fp16, src, 3, src, 3, dst, 3), Status::partial_element);
  expect_untouched();
}

TEST_F(Refused, AnOddElementCountIntoFp4) {
  EXPECT_EQ(convert(Format::fp16, Format::fp4_e2m1, src, 6, dst, 1), Status::odd_fp4_count);
  EXPECT_EQ(convert(Format::fp8_e5m2, Format::fp4_e2m1, src, 3, dst, 2), Status::odd_fp4_count);
  expect_untouched();
}

TEST_F(Refused, OperandsOfUnequalLength) {
  EXPECT_EQ(apply(Op::mul, Format::fp16, src, 4, src + 8, 6, dst, 4),
            Status::operand_length_mismatch);
  expect_untouched();
}

TEST_F(Refused, ADestinationOfAnotherLength) {
  EXPECT_EQ(convert(Format::fp32, Format::fp16, src, 8, dst, 5), Status::dst_length_mismatch);
  EXPECT_EQ(convert(Format::fp32, Format::fp16, src, 8, dst, 3), Status::dst_length_mismatch);
  EXPECT_EQ(apply(Op::add, Format::fp32, src, 8, src + 8, 8, dst, 12), Status::dst_length_mismatch);
  expect_untouched();
}

TEST(Overlap, PartialOverlapIsRefused) {
  uint8_t buf[16] = {};
  EXPECT_EQ(convert(Format::fp16, Format::fp16, buf, 8, buf + 2, 8), Status::overlapping_buffers);
  EXPECT_EQ(apply(Op::add, Format::fp8_e4m3, buf, 4, buf + 8, 4, buf + 2, 4),
            Status::overlapping_buffers);
  // Widening in place would overwrite source elements before they are read.
  EXPECT_EQ(convert(Format::fp16, Format::fp32, buf, 4, buf, 8), Status::overlapping_buffers);
}

TEST(Overlap, SameWidthConversionInPlaceMatchesOutOfPlace) {
  std::vector<uint32_t> codes;
  for (uint32_t c = 0; c < 65536; c += 3) codes.push_back(c);
  std::vector<uint8_t> buf = pack(Format::fp16, codes);
  const std::vector<uint32_t> expected = convert_codes(Format::fp16, Format::bf16, codes);
  ASSERT_EQ(convert(Format::fp16, Format::bf16, buf.data(), buf.size(), buf.data(), buf.size()),
            Status::ok);
  EXPECT_EQ(unpack(Format::bf16, buf), expected);
}

TEST(Overlap, ApplyIntoEitherOperandMatchesOutOfPlace) {
  const std::vector<uint32_t> a = all_codes(Format::fp8_e5m2);
  std::vector<uint32_t> b(a.rbegin(), a.rend());
  const std::vector<uint32_t> expected = apply_codes(Op::sub, Format::fp8_e5m2, a, b);
  std::vector<uint8_t> pa = pack(Format::fp8_e5m2, a), pb = pack(Format::fp8_e5m2, b);
  std::vector<uint8_t> pa2 = pa, pb2 = pb;
  ASSERT_EQ(apply(Op::sub, Format::fp8_e5m2, pa.data(), pa.size(), pb.data(), pb.size(), pa.data(),
                  pa.size()),
            Status::ok);
  EXPECT_EQ(unpack(Format::fp8_e5m2, pa), expected);
  ASSERT_EQ(apply(Op::sub, Format::fp8_e5m2, pa2.data(), pa2.size(), pb2.data(), pb2.size(),
                  pb2.data(), pb2.size()),
            Status::ok);
  EXPECT_EQ(unpack(Format::fp8_e5m2, pb2), expected);
}

TEST(Lengths, EmptyBuffersAreFine) {
  uint8_t byte = 0;
  EXPECT_EQ(convert(Format::fp32, Format::fp4_e2m1, &byte, 0, &byte, 0), Status::ok);
  EXPECT_EQ(apply(Op::max, Format::fp4_e2m1, &byte, 0, &byte, 0, &byte, 0), Status::ok);
}

TEST(Names, EveryFormatAndOperationRoundTripsByNameAndNumber) {
  for (unsigned i = 0; i < kFormatCount; ++i) {
    const Format f = static_cast<Format>(i);
    EXPECT_EQ(format_from_name(format_name(f)), f);
    EXPECT_EQ(format_from_code(i), f);
  }
  const char* ops[] = {"add", "sub", "mul", "min", "max"};
  for (unsigned i = 0; i < kOpCount; ++i) {
    EXPECT_STREQ(op_name(static_cast<Op>(i)), ops[i]);
    EXPECT_EQ(op_from_name(ops[i]), static_cast<Op>(i));
    EXPECT_EQ(op_from_code(i), static_cast<Op>(i));
  }
  EXPECT_FALSE(format_from_name("fp64"));
  EXPECT_FALSE(format_from_name("FP32"));
  EXPECT_FALSE(format_from_code(6));
  EXPECT_FALSE(op_from_name("div"));
  EXPECT_FALSE(op_from_code(5));
}

TEST(Names, EveryStatusHasAMessage) {
  for (Status s : {Status::unknown_format, Status::unknown_op, Status::partial_element,
                   Status::odd_fp4_count, Status::operand_length_mismatch,
                   Status::dst_length_mismatch, Status::overlapping_buffers, Status::too_long}) {
    EXPECT_GT(std::strlen(status_message(s)), 20u);
  }
}

}  // namespace
}  // namespace dpusim::formats::testing
