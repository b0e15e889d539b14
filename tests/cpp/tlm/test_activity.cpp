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
