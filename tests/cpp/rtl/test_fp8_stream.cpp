// The fp8 unit's stream interface (hdl/fp8_unit.sv): five cycles of latency at one beat a clock,
// a stalled sink or a gappy source changing no result, each beat with its own operation, `last`
// passed through, out-of-range codes flagged, results held while the sink stalls, and reset
// emptying the pipeline.
#include <random>

#include <gtest/gtest.h>

#include "fp8_cases.h"

namespace dpusim::rtl::test {
namespace {

// Small cases of every kind, interleaved so consecutive beats differ in operation and format.
std::vector<Case> mixed_cases(std::uint64_t seed, int count) {
  std::mt19937_64 rng(seed);
  std::vector<Case> cases;
  static constexpr std::uint32_t kMask[] = {0xFFFFFFFF, 0xFFFF, 0xFFFF, 0xFF, 0xFF, 0xF};
  for (int i = 0; i < count; ++i) {
    Case c;
    c.op = static_cast<std::uint32_t>(rng() % 6);
    c.fmt = static_cast<std::uint32_t>(rng() % 6);
    c.dst_fmt = static_cast<std::uint32_t>(rng() % 6);
    // An even count, as fp4_e2m1 packs pairs; 1 to 3 beats.
    const std::size_t n = 2 * (1 + rng() % (3 * kLanes / 2));
    for (std::size_t k = 0; k < n; ++k) {
      c.a.push_back(static_cast<std::uint32_t>(rng()) & kMask[c.fmt]);
      c.b.push_back(static_cast<std::uint32_t>(rng()) & kMask[c.fmt]);
    }
    cases.push_back(std::move(c));
  }
  return cases;
}

Beat beat(std::uint32_t op, std::uint32_t fmt, std::uint32_t dst, std::uint32_t a, std::uint32_t b) {
  Beat x;
  x.op = op;
  x.fmt = fmt;
  x.dst_fmt = dst;
  x.a.fill(a);
  x.b.fill(b);
  return x;
}

TEST(Fp8UnitStream, AResultComesFiveCyclesAfterItsOperandsAtOneBeatAClock) {
  // Reset holds the first two rising edges; beat i is taken at edge 3 + i and its result,
  // valid after edge 7 + i, is taken at edge 8 + i.
  StreamResult r;
  EXPECT_BIT_EXACT(mixed_cases(1, 8), 100, 100, 1, &r);
  ASSERT_FALSE(r.cycles.empty());
  for (std::size_t i = 0; i < r.cycles.size(); ++i) EXPECT_EQ(r.cycles[i], 8 + i) << "beat " << i;
  EXPECT_EQ(r.total_cycles, 7 + r.cycles.size());
}

TEST(Fp8UnitStream, AStallingSinkAndAGappySourceChangeNoResult) {
  EXPECT_BIT_EXACT(mixed_cases(2, 600), 35, 60, 2);
}

TEST(Fp8UnitStream, LastMarksTheFinalBeatOnlyAndNothingIsFlagged) {
  StreamResult r;
  EXPECT_BIT_EXACT(mixed_cases(5, 10), 50, 50, 5, &r);
  ASSERT_GE(r.last.size(), 2u);
  for (std::size_t i = 0; i + 1 < r.last.size(); ++i) EXPECT_FALSE(r.last[i]) << "beat " << i;
  EXPECT_TRUE(r.last.back());
  for (bool bad : r.bad) EXPECT_FALSE(bad);
}

TEST(Fp8UnitStream, OutOfRangeCodesAreFlaggedAndGiveZeros) {
  // op 6 and 7, formats 6 and 7, and cvt to format 6: flagged, zero results. A cvt's dst_fmt
  // is ignored by apply, so apply with dst_fmt 7 is fine.
  const std::vector<Beat> beats = {beat(6, 3, 3, 0x38, 0x38), beat(7, 0, 0, 0x3F800000, 0), beat(kAdd, 6, 6, 1, 1),
                                   beat(kCvt, 7, 0, 1, 0),    beat(kCvt, 3, 6, 0x38, 0), beat(kAdd, 3, 7, 0x38, 0x38)};
  const StreamResult r = stream(beats);
  ASSERT_EQ(r.data.size(), beats.size());
  for (std::size_t i = 0; i + 1 < beats.size(); ++i) {
    EXPECT_TRUE(r.bad[i]) << "beat " << i;
    EXPECT_EQ(r.data[i], Lanes{}) << "beat " << i;
  }
  EXPECT_FALSE(r.bad.back());
  EXPECT_EQ(r.data.back()[0], 0x40u) << "E4M3 1 + 1 = 2";
}

TEST(Fp8UnitStream, AStalledResultHoldsItsValueUntilTaken) {
  // AXI4-Stream: once valid, a beat stays the same until the handshake.
  const std::vector<Case> cases = mixed_cases(6, 40);
  const std::vector<Beat> beats = beats_of(cases);
  std::mt19937_64 rng(6);
  std::size_t next = 0, taken = 0, holds = 0;
  bool offering = false;
  std::optional<Sample> stalled;
  UnitHarness h;
  h.run([&](const Sample* s) -> std::optional<Inputs> {
    Inputs in;
    if (s == nullptr || s->cycle < 2) return in.rst = true, in;
    if (stalled) {
      EXPECT_TRUE(s->m_valid) << "cycle " << s->cycle;
      EXPECT_EQ(s->data, stalled->data) << "cycle " << s->cycle;
      EXPECT_EQ(s->m_last, stalled->m_last) << "cycle " << s->cycle;
      ++holds;
    }
    stalled = s->m_valid && !s->m_ready ? std::optional<Sample>(*s) : std::nullopt;
    if (s->accepted()) ++next, offering = false;
    if (s->produced()) ++taken;
    if (taken == beats.size()) return std::nullopt;
    if (next < beats.size() && (offering || rng() % 2)) {
      offering = true;
      in.s_valid = true;
      in.op = beats[next].op;
      in.fmt = beats[next].fmt;
      in.dst_fmt = beats[next].dst_fmt;
      in.a = beats[next].a;
      in.b = beats[next].b;
      in.s_last = next + 1 == beats.size();
    }
    in.m_ready = rng() % 4 == 0;
    return in;
  });
  EXPECT_EQ(taken, beats.size());
  EXPECT_GT(holds, 20u) << "the sink should have stalled a valid beat many times";
}

TEST(Fp8UnitStream, ResetEmptiesThePipeline) {
  // Five beats go in with the sink stalled, a reset cycle comes, and with the sink then ready
  // nothing comes out until a new beat, whose result follows five cycles after it went in.
  enum { kFill, kReset, kWait, kNew, kDone } step = kFill;
  std::size_t in_count = 0;
  std::uint64_t new_in = 0, new_out = 0, out_after_reset = 0;
  std::uint32_t result = 0;
  UnitHarness h;
  h.run([&](const Sample* s) -> std::optional<Inputs> {
    Inputs in;
    if (s == nullptr || s->cycle < 2) return in.rst = true, in;
    if (step != kFill && step != kReset && s->produced()) {
      if (step == kNew && new_in != 0) {
        new_out = s->cycle;
        result = s->data[0];
        step = kDone;
      } else {
        ++out_after_reset;
      }
    }
    switch (step) {
      case kFill:
        if (s->accepted()) ++in_count;
        if (in_count == 5) {
          step = kReset;
          in.rst = true;
          in.m_ready = false;
          return in;
        }
        in.s_valid = true;
        in.op = kMul;
        in.fmt = in.dst_fmt = 3;
        in.a.fill(0x40);  // 2
        in.b.fill(0x48);  // 4
        in.m_ready = false;
        return in;
      case kReset:
        step = kWait;
        return in;
      case kWait:
        if (s->cycle > 40) step = kNew;
        return in;
      case kNew:
        if (s->accepted()) new_in = s->cycle;
        if (new_in == 0) {
          in.s_valid = true;
          in.op = kAdd;
          in.fmt = in.dst_fmt = 3;
          in.a.fill(0x38);  // 1
          in.b.fill(0x40);  // 2
        }
        return in;
      case kDone:
        return std::nullopt;
    }
    return std::nullopt;
  });
  EXPECT_EQ(out_after_reset, 0u) << "beats from before the reset came out";
  ASSERT_NE(new_in, 0u);
  EXPECT_EQ(new_out, new_in + 5);
  EXPECT_EQ(result, 0x44u) << "E4M3 1 + 2 = 3";
}

}  // namespace
}  // namespace dpusim::rtl::test
