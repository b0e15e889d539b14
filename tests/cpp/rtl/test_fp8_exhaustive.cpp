// The verilated fp8 unit against the C++ codec, bit for bit: every pair of codes of the 8- and
// 4-bit formats through every operation, every code of every 16-, 8- and 4-bit format into every
// format, and seeded sweeps of fp32 values and of fp32, fp16 and bf16 operand pairs. The unit is
// driven directly at full rate (kLanes elements a clock, four beats in flight), one test per
// process as SystemC elaborates once.
#include <random>

#include <gtest/gtest.h>

#include "fp8_cases.h"

namespace dpusim::rtl::test {
namespace {

constexpr std::uint32_t kFp32 = 0, kFp16 = 1, kBf16 = 2, kE4m3 = 3, kE5m2 = 4, kFp4 = 5;
constexpr std::uint32_t kBits[] = {32, 16, 16, 8, 8, 4};

// Every (a, b) pair of a format's codes, for each of the five operations.
std::vector<Case> all_pairs(std::uint32_t f) {
  const std::uint32_t n = 1u << kBits[f];
  std::vector<Case> cases;
  for (std::uint32_t op = kAdd; op <= kMax; ++op) {
    Case c{op, f, f, {}, {}};
    for (std::uint32_t a = 0; a < n; ++a)
      for (std::uint32_t b = 0; b < n; ++b) {
        c.a.push_back(a);
        c.b.push_back(b);
      }
    cases.push_back(std::move(c));
  }
  return cases;
}

// Every code of the source formats converted into every format.
std::vector<Case> all_codes(std::initializer_list<std::uint32_t> sources) {
  std::vector<Case> cases;
  for (std::uint32_t src : sources)
    for (std::uint32_t dst = kFp32; dst <= kFp4; ++dst) {
      Case c{kCvt, src, dst, {}, {}};
      for (std::uint32_t code = 0; code < (1u << kBits[src]); ++code) c.a.push_back(code);
      cases.push_back(std::move(c));
    }
  return cases;
}

// fp32 values that exercise rounding into the narrower formats: every sign and exponent field,
// and mantissas whose bits below a narrower format's precision are a tie, just below or above
// one, all zeros or all ones, or random.
std::uint32_t sweep_value(std::mt19937_64& rng) {
  static constexpr int kDropped[] = {13, 16, 20, 21, 22};  // 23 - man_bits of fp16 .. fp4_e2m1
  const std::uint32_t sign = static_cast<std::uint32_t>(rng() & 1) << 31;
  // Half the exponents near 1.0, where the narrow formats' normals, subnormals and overflow lie.
  const std::uint32_t field = (rng() & 1) ? static_cast<std::uint32_t>(rng() % 256)
                                          : static_cast<std::uint32_t>(127 - 30 + rng() % 50);
  std::uint32_t man = static_cast<std::uint32_t>(rng()) & 0x7FFFFF;
  const int drop = kDropped[rng() % 5];
  const std::uint32_t low = (1u << drop) - 1, half = 1u << (drop - 1);
  switch (rng() % 6) {
    case 0: man = (man & ~low) | half; break;        // a tie
    case 1: man = (man & ~low) | (half - 1); break;  // just below
    case 2: man = (man & ~low) | (half + 1); break;  // just above
    case 3: man &= ~low; break;                      // exact
    case 4: man |= low; break;
    default: break;                                  // random
  }
  return sign | field << 23 | man;
}

TEST(Fp8UnitExhaustive, EveryPairOfE4m3CodesThroughEveryOperation) {
  EXPECT_BIT_EXACT(all_pairs(kE4m3));
}

TEST(Fp8UnitExhaustive, EveryPairOfE5m2CodesThroughEveryOperation) {
  EXPECT_BIT_EXACT(all_pairs(kE5m2));
}

TEST(Fp8UnitExhaustive, EveryPairOfFp4CodesThroughEveryOperation) {
  EXPECT_BIT_EXACT(all_pairs(kFp4));
}

TEST(Fp8UnitExhaustive, EveryCodeOfFp16AndBf16IntoEveryFormat) {
  EXPECT_BIT_EXACT(all_codes({kFp16, kBf16}));
}

TEST(Fp8UnitExhaustive, EveryCodeOfTheFp8AndFp4FormatsIntoEveryFormat) {
  EXPECT_BIT_EXACT(all_codes({kE4m3, kE5m2, kFp4}));
}

TEST(Fp8UnitExhaustive, SeededFp32SweepIntoEveryFormat) {
  std::mt19937_64 rng(20260419);
  std::vector<std::uint32_t> values = {0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000,
                                       0x7F800001, 0xFFBFFFFF, 0x00000001, 0x807FFFFF, 0x00800000, 0x7F7FFFFF,
                                       0x477FF000, 0x477FEFFF, 0x43E00000, 0x43E80000, 0x43E80001, 0x40C00000,
                                       0x40D00000, 0x40E00000};  // fp16 65520 and just below, E4M3 448..464, fp4 6..7
  while (values.size() < (1u << 18)) values.push_back(sweep_value(rng));
  std::vector<Case> cases;
  for (std::uint32_t dst = kFp32; dst <= kFp4; ++dst) cases.push_back({kCvt, kFp32, dst, values, {}});
  EXPECT_BIT_EXACT(cases);
}

TEST(Fp8UnitExhaustive, SeededPairsOfFp32Fp16AndBf16ThroughEveryOperation) {
  std::mt19937_64 rng(4);
  std::vector<Case> cases;
  for (std::uint32_t f : {kFp32, kFp16, kBf16}) {
    const std::uint32_t bits = kBits[f], mask = bits == 32 ? 0xFFFFFFFFu : (1u << bits) - 1;
    const std::uint32_t sign = 1u << (bits - 1);
    for (std::uint32_t op = kAdd; op <= kMax; ++op) {
      Case c{op, f, f, {}, {}};
      for (int i = 0; i < 40000; ++i) {
        // fp32 and bf16 (binary32's top half) from the sweep; fp16 codes uniformly.
        auto operand = [&] {
          if (f == kFp16) return static_cast<std::uint32_t>(rng()) & mask;
          return f == kBf16 ? sweep_value(rng) >> 16 : sweep_value(rng);
        };
        std::uint32_t a = operand(), b = operand();
        switch (i % 4) {
          case 0: break;                                                            // independent
          case 1: b = (a ^ sign) + static_cast<std::uint32_t>(rng() % 5) - 2; break;  // cancellation
          case 2: b = a - (static_cast<std::uint32_t>(rng() % 41) << (bits == 32 ? 23 : f == kBf16 ? 7 : 10)); break;
          default: b = a + static_cast<std::uint32_t>(rng() % 9) - 4; break;       // near neighbours
        }
        c.a.push_back(a & mask);
        c.b.push_back(b & mask);
      }
      cases.push_back(std::move(c));
    }
  }
  EXPECT_BIT_EXACT(cases);
}

}  // namespace
}  // namespace dpusim::rtl::test
