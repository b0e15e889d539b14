// Value arithmetic at field widths 9, 32, 48, 64, 128 and 512 against an independent
// reference: numbers as 32-bit digits, schoolbook algorithms written separately here.
#include <gtest/gtest.h>

#include <random>

#include "dpusim/p4/value.h"

namespace dpusim::p4::test {
namespace {

constexpr int kDigits = kValueBits / 32;  // the same 576-bit two's-complement ring
using Ref = std::vector<std::uint32_t>;

Ref ref_of(const Value& v) {
  Ref r(kDigits);
  for (int i = 0; i < kDigits; ++i) r[i] = static_cast<std::uint32_t>(v.w[i / 2] >> (32 * (i % 2)));
  return r;
}

Ref ref_add(const Ref& a, const Ref& b) {
  Ref r(kDigits);
  std::uint64_t c = 0;
  for (int i = 0; i < kDigits; ++i) {
    c += static_cast<std::uint64_t>(a[i]) + b[i];
    r[i] = static_cast<std::uint32_t>(c);
    c >>= 32;
  }
  return r;
}

Ref ref_neg(const Ref& a) {
  Ref inv(kDigits);
  for (int i = 0; i < kDigits; ++i) inv[i] = ~a[i];
  Ref one(kDigits);
  one[0] = 1;
  return ref_add(inv, one);
}

Ref ref_mul(const Ref& a, const Ref& b) {
  Ref r(kDigits);
  for (int i = 0; i < kDigits; ++i) {
    std::uint64_t c = 0;
    for (int j = 0; i + j < kDigits; ++j) {
      std::uint64_t t = static_cast<std::uint64_t>(a[i]) * b[j] + r[i + j] + c;
      r[i + j] = static_cast<std::uint32_t>(t);
      c = t >> 32;
    }
  }
  return r;
}

bool ref_bit(const Ref& a, int i) { return (a[i / 32] >> (i % 32)) & 1u; }

Ref ref_shl(const Ref& a, int n) {
  Ref r(kDigits);
  for (int i = kValueBits - 1; i >= n; --i)
    if (ref_bit(a, i - n)) r[i / 32] |= 1u << (i % 32);
  return r;
}

Ref ref_shr(const Ref& a, int n) {  // of non-negative values
  Ref r(kDigits);
  for (int i = 0; i + n < kValueBits; ++i)
    if (ref_bit(a, i + n)) r[i / 32] |= 1u << (i % 32);
  return r;
}

int ref_cmp(const Ref& a, const Ref& b) {  // of non-negative values
  for (int i = kDigits - 1; i >= 0; --i)
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
}

void ref_divmod(const Ref& a, const Ref& b, Ref* q, Ref* r) {  // restoring division, non-negative
  *q = Ref(kDigits);
  *r = Ref(kDigits);
  for (int i = kValueBits - 1; i >= 0; --i) {
    *r = ref_shl(*r, 1);
    if (ref_bit(a, i)) (*r)[0] |= 1;
    if (ref_cmp(*r, b) >= 0) {
      *r = ref_add(*r, ref_neg(b));
      (*q)[i / 32] |= 1u << (i % 32);
    }
  }
}

Value random_value(std::mt19937_64& rng, int width) {
  Value v = Value::zero();
  for (auto& w : v.w) w = rng();
  // Edge values as often as random ones: 0, 1, all ones, the top bit alone.
  switch (rng() % 6) {
    case 0: v = Value::zero(); break;
    case 1: v = Value::of(1); break;
    case 2: value_not(v, Value::zero()); break;
    case 3: v = Value::zero(); v.w[(width - 1) / 64] = 1ull << ((width - 1) % 64); break;
    default: break;
  }
  v.truncate(width);
  return v;
}

class ValueWidths : public ::testing::TestWithParam<int> {};

TEST_P(ValueWidths, ArithmeticMatchesTheReference) {
  const int width = GetParam();
  std::mt19937_64 rng(static_cast<std::uint64_t>(width));
  for (int iter = 0; iter < 400; ++iter) {
    Value a = random_value(rng, width), b = random_value(rng, width);
    Ref ra = ref_of(a), rb = ref_of(b);
    Value r;
    value_add(r, a, b);
    EXPECT_EQ(ref_of(r), ref_add(ra, rb));
    value_sub(r, a, b);
    EXPECT_EQ(ref_of(r), ref_add(ra, ref_neg(rb)));
    value_mul(r, a, b);
    EXPECT_EQ(ref_of(r), ref_mul(ra, rb));
    value_not(r, a);
    Ref rn(kDigits);
    for (int i = 0; i < kDigits; ++i) rn[i] = ~ra[i];
    EXPECT_EQ(ref_of(r), rn);
    Ref rand_(kDigits), ror(kDigits), rxor(kDigits);
    for (int i = 0; i < kDigits; ++i) rand_[i] = ra[i] & rb[i], ror[i] = ra[i] | rb[i], rxor[i] = ra[i] ^ rb[i];
    value_and(r, a, b);
    EXPECT_EQ(ref_of(r), rand_);
    value_or(r, a, b);
    EXPECT_EQ(ref_of(r), ror);
    value_xor(r, a, b);
    EXPECT_EQ(ref_of(r), rxor);
    EXPECT_EQ(compare(a, b), ref_cmp(ra, rb));
    int n = static_cast<int>(rng() % static_cast<std::uint64_t>(width + 70));
    value_shl(r, a, static_cast<unsigned>(n));
    EXPECT_EQ(ref_of(r), ref_shl(ra, n));
    value_shr(r, a, static_cast<unsigned>(n));
    EXPECT_EQ(ref_of(r), ref_shr(ra, n));
    if (!b.is_zero()) {
      Ref q, m;
      ref_divmod(ra, rb, &q, &m);
      ASSERT_TRUE(value_div(r, a, b));
      EXPECT_EQ(ref_of(r), q);
      ASSERT_TRUE(value_mod(r, a, b));
      EXPECT_EQ(ref_of(r), m);
    }
    // Truncation to the field's width keeps exactly its low bits.
    value_mul(r, a, b);
    Value t = r;
    t.truncate(width);
    Ref rt = ref_mul(ra, rb);
    for (int i = 0; i < kValueBits; ++i) EXPECT_EQ(t.bit(i), i < width && ref_bit(rt, i)) << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Widths, ValueWidths, ::testing::Values(9, 32, 48, 64, 128, 512));

TEST(Value, DivisionByZeroIsReported) {
  Value r;
  EXPECT_FALSE(value_div(r, Value::of(7), Value::zero()));
  EXPECT_FALSE(value_mod(r, Value::of(7), Value::zero()));
}

TEST(Value, NegativeIntermediatesKeepTheirSign) {
  // ttl - 1 with ttl = 0 is -1 in bmv2's infinite precision, which usat_cast clamps to 0.
  Value d, r;
  value_sub(d, Value::zero(), Value::of(1));
  EXPECT_TRUE(d.is_negative());
  EXPECT_LT(compare(d, Value::zero()), 0);
  value_usat_cast(r, d, 8);
  EXPECT_TRUE(r.is_zero());
  value_usat_cast(r, Value::of(300), 8);
  EXPECT_EQ(r, Value::of(255));
  value_sat_cast(r, Value::of(200), 8);
  EXPECT_EQ(r, Value::of(127));
  value_two_comp_mod(r, Value::of(257), 8);
  EXPECT_EQ(r, Value::of(1));
  Value m129, expect;
  value_sub(m129, Value::zero(), Value::of(129));
  value_two_comp_mod(r, m129, 8);  // JSON_format.md's example: two_comp_mod(-129, 8) == 127
  EXPECT_EQ(r, Value::of(127));
  // Truncating division: -7 / 2 = -3, -7 % 2 = -1 (the sign of the dividend).
  Value m7;
  value_sub(m7, Value::zero(), Value::of(7));
  ASSERT_TRUE(value_div(r, m7, Value::of(2)));
  value_sub(expect, Value::zero(), Value::of(3));
  EXPECT_EQ(r, expect);
  ASSERT_TRUE(value_mod(r, m7, Value::of(2)));
  value_sub(expect, Value::zero(), Value::of(1));
  EXPECT_EQ(r, expect);
  value_shr(r, m7, 1);  // floor(-7 / 2)
  value_sub(expect, Value::zero(), Value::of(4));
  EXPECT_EQ(r, expect);
}

TEST(Value, HexstrAndBytes) {
  Value v;
  bool negative = false;
  ASSERT_TRUE(parse_hexstr("0x00ff", &v, &negative));
  EXPECT_EQ(v, Value::of(255));
  EXPECT_EQ(v.bit_length(), 8);
  ASSERT_TRUE(parse_hexstr("7", &v, &negative));  // legacy p4c-bm writes hexstrs without 0x
  EXPECT_EQ(v, Value::of(7));
  ASSERT_TRUE(parse_hexstr("-0x1", &v, &negative));
  EXPECT_TRUE(negative);
  EXPECT_FALSE(parse_hexstr("0x", &v, &negative));
  EXPECT_FALSE(parse_hexstr("0xfg", &v, &negative));
  EXPECT_FALSE(parse_hexstr("0x1" + std::string(128, '0'), &v, &negative));  // 513 bits
  EXPECT_TRUE(parse_hexstr("0x" + std::string(128, 'f'), &v, &negative));    // 512 bits
  ASSERT_TRUE(parse_number("1234567890123456789012345678901234567890", &v));
  EXPECT_EQ(v.to_hex(), "0x3a0c92075c0dbf3b8acbc5f96ce3f0ad2");
  EXPECT_FALSE(parse_number("12a", &v));
  EXPECT_FALSE(parse_number("", &v));
  std::uint8_t b[6];
  ASSERT_TRUE(parse_number("0x0a0b0c0d0e0f", &v));
  v.get_bytes_be(b, 6);
  EXPECT_EQ(std::vector<std::uint8_t>(b, b + 6), (std::vector<std::uint8_t>{10, 11, 12, 13, 14, 15}));
  Value back;
  back.set_bytes_be(b, 6);
  EXPECT_EQ(back, v);
}

}  // namespace
}  // namespace dpusim::p4::test
