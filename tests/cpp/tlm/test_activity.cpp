// Activity (tlm/activity.h): a sequential thread of steps on a TimedQueue. Steps run one after
// another, each `delay` after the previous one finished; steps added by a running step run
// before the rest; suspend/resume; wait_until polls.
#include <gtest/gtest.h>

#include <systemc>

#include <string>
#include <vector>

#include "tlm/activity.h"
#include "tlm/timed_queue.h"

using namespace dpusim::pcie;
using namespace sc_core;

namespace {
uint64_t now() { return sc_time_stamp().value(); }
sc_time ps(uint64_t v) { return sc_time::from_value(v); }
}  // namespace

TEST(Activity, StepsRunInOrderAndSubroutineStepsFirst) {
  TimedQueue q("q");
  Activity a(q);
  std::vector<std::pair<std::string, uint64_t>> trace;
  a.then(ps(100), [&] {
    trace.push_back({"a", now()});
    a.then(ps(10), [&] { trace.push_back({"a.1", now()}); });
    a.then(ps(20), [&] { trace.push_back({"a.2", now()}); });
  });
  a.then(ps(5), [&] { trace.push_back({"b", now()}); });
  sc_start(ps(1000));
  const std::vector<std::pair<std::string, uint64_t>> want = {{"a", 100}, {"a.1", 110}, {"a.2", 130}, {"b", 135}};
  EXPECT_EQ(trace, want);
  EXPECT_TRUE(a.idle());
}

TEST(Activity, SuspendHoldsTheRestUntilResumeAndWaitUntilPolls) {
  TimedQueue q("q");
  Activity a(q), other(q);
  std::vector<std::pair<std::string, uint64_t>> trace;
  bool flag = false;
  a.then(ps(10), [&] { a.suspend(); });
  a.then(ps(1), [&] { trace.push_back({"after_resume", now()}); });
  other.then(ps(500), [&] { a.resume(); });
  other.then(ps(7), [&] { flag = true; });  // at 507
  a.wait_until([&] { return flag; }, ps(100));
  a.then([&] { trace.push_back({"flag_seen", now()}); });
  sc_start(ps(2000));
  // Resumed at 500: the next step 1 ps later; polls at 501, 601: the flag (set at 507) seen at 601.
  const std::vector<std::pair<std::string, uint64_t>> want = {{"after_resume", 501}, {"flag_seen", 601}};
  EXPECT_EQ(trace, want);
}

TEST(Activity, AGuardedStepsGuardIsEvaluatedWhenTheStepIsReached) {
  TimedQueue q("q");
  Activity a(q);
  std::vector<std::pair<std::string, uint64_t>> trace;
  bool open = false;
  unsigned evaluations = 0;
  a.then(ps(100), [&] { open = true; });  // when the guarded step is added, its guard is false
  a.then_if([&] { ++evaluations; return open; }, ps(10), [&] { trace.push_back({"guarded", now()}); });
  a.then(ps(5), [&] { trace.push_back({"after", now()}); });
  EXPECT_EQ(evaluations, 0u);  // not while the step is still behind another
  sc_start(ps(1000));
  const std::vector<std::pair<std::string, uint64_t>> want = {{"guarded", 110}, {"after", 115}};
  EXPECT_EQ(trace, want);
  EXPECT_EQ(evaluations, 1u);
}

TEST(Activity, SkippedStepsTakeNoTimeAndNoSchedulingTrip) {
  TimedQueue q("q");
  Activity a(q), other(q);
  std::vector<std::pair<std::string, uint64_t>> trace;
  a.then(ps(100), [&] { trace.push_back({"a1", now()}); });
  a.then_if([] { return false; }, ps(50), [&] { trace.push_back({"skipped", now()}); });
  a.then_if([] { return false; }, sc_core::SC_ZERO_TIME, [&] { trace.push_back({"skipped too", now()}); });
  a.then([&] { trace.push_back({"a2", now()}); });
  other.then(ps(100), [&] { trace.push_back({"b1", now()}); });
  other.then([&] { trace.push_back({"b2", now()}); });
  sc_start(ps(1000));
  // a2 is scheduled when a1 ends, before b1 runs and schedules b2: a skipped step that went
  // through the queue would put a2 after b2.
  const std::vector<std::pair<std::string, uint64_t>> want = {{"a1", 100}, {"b1", 100}, {"a2", 100}, {"b2", 100}};
  EXPECT_EQ(trace, want);
  EXPECT_TRUE(a.idle());
}

TEST(Activity, AStepAddedByARunningStepIsGuardedWhenItIsReached) {
  TimedQueue q("q");
  Activity a(q);
  std::vector<std::pair<std::string, uint64_t>> trace;
  int budget = 2;
  // A loop as firmware writes it: while (budget--) { op(); } with op taking 10 ps.
  std::function<void()> step = [&] {
    a.then_if([&] { return budget > 0; }, ps(10), [&] {
      --budget;
      trace.push_back({"op", now()});
      step();
    });
  };
  a.then(ps(100), step);
  a.then([&] { trace.push_back({"done", now()}); });
  // Guarded from the start: a false guard on an idle thread skips at once.
  Activity idle(q);
  idle.then_if([] { return false; }, ps(10), [&] { trace.push_back({"never", now()}); });
  EXPECT_TRUE(idle.idle());
  sc_start(ps(1000));
  const std::vector<std::pair<std::string, uint64_t>> want = {{"op", 110}, {"op", 120}, {"done", 120}};
  EXPECT_EQ(trace, want);
}
