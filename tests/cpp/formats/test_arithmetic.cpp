// Arithmetic against the reference: every pair of operands for the 8-bit and 4-bit formats,
// large seeded samples for fp16, bf16 and fp32.
//
// The reference computes the exact result in double and rounds it with the reference rounder.
// That is exact where the test uses it: a product of two significands of at most 24 bits has
// at most 48 bits; a sum of two fp16 or fp8 values spans at most 2^15 .. 2^-24, 40 bits; a
// sum of two binary32 values whose exponents differ by at most 28 needs at most 53 bits. Sums
// of binary32 or bf16 values further apart are left to the Fraction-based pytest.
#include <algorithm>
#include <cmath>
#include <random>

#include "test_util.h"

namespace dpusim::formats::testing {
namespace {

constexpr Op kOps[] = {Op::add, Op::sub, Op::mul, Op::min, Op::max};

// The rules of docs/formats.md, stated directly on values.
uint32_t reference_apply(Op op, Format f, const AnyRounder& round, uint32_t a, uint32_t b) {
  const RefFormat& r = ref(f);
  const double x = ref_any_value(f, a);
  const double y = ref_any_value(f, b);
  if (std::isnan(x)) return ref_nan(r, std::signbit(x));  // the first NaN operand's sign
  if (std::isnan(y)) return ref_nan(r, std::signbit(y));
  switch (op) {
    case Op::add:
    case Op::sub: {
      const double y2 = op == Op::sub ? -y : y;
      if (std::isinf(x) && std::isinf(y2) && std::signbit(x) != std::signbit(y2))
        return ref_nan(r, false);
      return round(x + y2);  // exact; IEEE gives -0 + -0 = -0 and x + -x = +0
    }
    case Op::mul:
      if ((std::isinf(x) && y == 0) || (x == 0 && std::isinf(y))) return ref_nan(r, false);
      return round(x * y);  // exact, and a zero product keeps the XOR of the signs
    case Op::min:
    case Op::max: {
      // -0 orders below +0; otherwise numeric order. Equal values are the same code.
      const bool a_below = x < y || (x == y && std::signbit(x) && !std::signbit(y));
      return (op == Op::min) == a_below ? a : b;
    }
  }
  return 0;
}

void expect_matches_reference(Op op, Format f, const std::vector<uint32_t>& a,
                              const std::vector<uint32_t>& b) {
  const AnyRounder round(f);
  const std::vector<uint32_t> got = apply_codes(op, f, a, b);
  ASSERT_EQ(got.size(), a.size());
  size_t mismatches = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const uint32_t expected = reference_apply(op, f, round, a[i], b[i]);
    if (got[i] != expected && mismatches++ < 10) {
      ADD_FAILURE() << format_name(f) << " " << std::hex << a[i] << " " << op_name(op) << " "
                    << b[i] << " -> " << got[i] << ", reference " << expected;
    }
  }
  EXPECT_EQ(mismatches, 0u) << format_name(f) << " " << op_name(op);
}

class EveryPair : public ::testing::TestWithParam<Format> {};

TEST_P(EveryPair, EveryOperationMatchesTheReference) {
  const Format f = GetParam();
  const std::vector<uint32_t> codes = all_codes(f);
  std::vector<uint32_t> a, b;
  for (uint32_t x : codes) {
    for (uint32_t y : codes) {
      a.push_back(x);
      b.push_back(y);
    }
  }
  for (Op op : kOps) expect_matches_reference(op, f, a, b);
}

INSTANTIATE_TEST_SUITE_P(Formats, EveryPair,
                         ::testing::Values(Format::fp8_e4m3, Format::fp8_e5m2, Format::fp4_e2m1),
                         [](const auto& info) { return std::string(format_name(info.param)); });

// fp16: one million random pairs of codes (NaNs and infinities included as often as they
// occur among codes), for every operation.
TEST(SampledPairs, Fp16EveryOperation) {
  std::mt19937 rng(16);
  std::vector<uint32_t> a(1 << 20), b(1 << 20);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = rng() & 0xFFFF;
    b[i] = rng() & 0xFFFF;
  }
  for (Op op : kOps) expect_matches_reference(op, Format::fp16, a, b);
}

// Random binary32-exponent codes (fp32, or bf16 in the top half) for mul, min and max; for add
// and sub, b's exponent field is within 28 of a's so the double sum stays exact, and a quarter
// of the b are -a's neighbours so that cancellation is exercised.
void sampled_binary32_family(Format f) {
  const unsigned shift = f == Format::bf16 ? 16 : 0;
  std::mt19937 rng(f == Format::bf16 ? 2 : 32);
  std::vector<uint32_t> a(1 << 20), b(1 << 20), near(1 << 20);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = rng() >> shift;
    b[i] = rng() >> shift;
    const uint32_t field = (a[i] << shift >> 23) & 0xFF;
    const int shifted = static_cast<int>(field) + static_cast<int>(rng() % 57) - 28;
    const uint32_t near_field = static_cast<uint32_t>(std::clamp(shifted, 0, 255));
    uint32_t n = (rng() & 0x807FFFFF) | near_field << 23;
    if (i % 4 == 0) n = ((a[i] << shift) ^ 0x80000000) + (rng() % 5) - 2;
    near[i] = n >> shift;
  }
  for (Op op : {Op::mul, Op::min, Op::max}) expect_matches_reference(op, f, a, b);
  for (Op op : {Op::add, Op::sub}) expect_matches_reference(op, f, a, near);
}

TEST(SampledPairs, Bf16EveryOperation) { sampled_binary32_family(Format::bf16); }
TEST(SampledPairs, Fp32EveryOperation) { sampled_binary32_family(Format::fp32); }

}  // namespace
}  // namespace dpusim::formats::testing
