// Schedule exploration (tlm/explore.h): nominal values unless a knob is on; draws inside the
// declared range, reproducible from the seed, per knob; per-run draws stable per value; tie
// keys that reorder two threads' same-time steps only when "ties" is on.
#include <gtest/gtest.h>

#include <systemc>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "tlm/activity.h"
#include "tlm/explore.h"
#include "tlm/timed_queue.h"

using namespace dpusim::pcie;
using namespace sc_core;

namespace {
constexpr ExploreRange kHalfToDouble = ExploreRange::per_use(50, 200);
constexpr uint64_t kMax = 1'000'000'000;
}  // namespace

TEST(Explore, NominalUnlessAKnobIsOn) {
  Explorer off(7);
  EXPECT_EQ(off.latency("a", kHalfToDouble, 1000, 0, kMax), 1000u);
  EXPECT_TRUE(off.used().empty());
  Explorer only_b(7);
  only_b.enable(std::set<std::string>{"b"});
  EXPECT_EQ(only_b.latency("a", kHalfToDouble, 1000, 0, kMax), 1000u);
  only_b.latency("b", kHalfToDouble, 1000, 0, kMax);
  EXPECT_EQ(only_b.used().count("a"), 0u);
  EXPECT_EQ(only_b.used().at("b"), 1u);
  Explorer no_range(7);
  no_range.enable();
  EXPECT_EQ(no_range.latency("c", ExploreRange{}, 1000, 0, kMax), 1000u);
  EXPECT_TRUE(no_range.used().empty());
}

TEST(Explore, DrawsStayInRangeAndReplayFromTheSeed) {
  Explorer a(42), b(42), c(43);
  a.enable();
  b.enable();
  c.enable();
  std::vector<uint64_t> va, vb, vc;
  for (int i = 0; i < 200; ++i) {
    va.push_back(a.latency("w", kHalfToDouble, 1000, 0, kMax));
    vb.push_back(b.latency("w", kHalfToDouble, 1000, 0, kMax));
    vc.push_back(c.latency("w", kHalfToDouble, 1000, 0, kMax));
  }
  EXPECT_EQ(va, vb);
  EXPECT_NE(va, vc);
  for (uint64_t v : va) {
    EXPECT_GE(v, 500u);
    EXPECT_LE(v, 2000u);
  }
  EXPECT_EQ(std::set<uint64_t>(va.begin(), va.end()).size() > 150, true);
  EXPECT_EQ(a.used().at("w"), 200u);
  // A knob's stream does not depend on the other knobs drawn before it.
  Explorer d(42);
  d.enable();
  d.latency("other", kHalfToDouble, 5, 0, kMax);
  EXPECT_EQ(d.latency("w", kHalfToDouble, 1000, 0, kMax), va[0]);
}

TEST(Explore, AddedSlackClampingAndPerRunDraws) {
  Explorer e(3);
  e.enable();
  const ExploreRange msleep = ExploreRange::per_use(100, 100, kLinuxMsleepSlackPs);
  for (int i = 0; i < 50; ++i) {
    const uint64_t v = e.latency("sleep", msleep, 1'000'000'000, 0, UINT64_MAX);
    EXPECT_GE(v, 1'000'000'000u);
    EXPECT_LE(v, 1'000'000'000u + kLinuxMsleepSlackPs);
  }
  EXPECT_EQ(e.latency("clamped", ExploreRange::per_use(200, 300), 100, 0, 150), 150u);  // the parameter's max
  const ExploreRange run = ExploreRange::per_run(50, 200);
  const uint64_t first = e.latency("link", run, 2000, 0, kMax);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(e.latency("link", run, 2000, 0, kMax), first);
  EXPECT_EQ(e.used().at("link"), 1u);
  e.latency("link", run, 4000, 0, kMax);  // a new value (a study's override) draws once more
  EXPECT_EQ(e.used().at("link"), 2u);
}

TEST(Explore, TiesReorderTwoThreadsOnlyWhenExplored) {
  // Two threads with a step due at the same picosecond: nominally in scheduling order; over
  // explored seeds both orders occur, and each seed's order replays. (All modules are built
  // before the kernel starts: SystemC elaborates once.)
  struct Pair {
    Explorer explorer;
    TimedQueue queue;
    Activity a, b;
    std::string trace;
    Pair(uint64_t seed, bool explore, const std::string& name)
        : explorer(seed), queue(name.c_str(), &explorer), a(queue), b(queue) {
      if (explore) explorer.enable();
      a.then(sc_time::from_value(100), [this] { trace += "a"; });
      b.then(sc_time::from_value(100), [this] { trace += "b"; });
    }
  };
  std::vector<std::unique_ptr<Pair>> nominal, first, again;
  for (uint64_t seed = 1; seed <= 16; ++seed) {
    nominal.push_back(std::make_unique<Pair>(seed, false, "n" + std::to_string(seed)));
    first.push_back(std::make_unique<Pair>(seed, true, "f" + std::to_string(seed)));
    again.push_back(std::make_unique<Pair>(seed, true, "g" + std::to_string(seed)));
  }
  sc_start(sc_time::from_value(200));
  std::set<std::string> seen;
  for (size_t i = 0; i < first.size(); ++i) {
    EXPECT_EQ(nominal[i]->trace, "ab");
    EXPECT_EQ(first[i]->trace, again[i]->trace);
    seen.insert(first[i]->trace);
  }
  EXPECT_EQ(seen, (std::set<std::string>{"ab", "ba"}));
}
