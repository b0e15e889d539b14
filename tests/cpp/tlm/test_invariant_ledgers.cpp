// The checker's ledgers (tlm/invariants.h): requests left without a completion or a timeout at
// the end of a run, credits spent beyond what was granted, work started on a reset generation;
// and a liveness bound (tlm/liveness.h) that fires unless released, at the instant it runs out.
#include <gtest/gtest.h>

#include <systemc>

#include <functional>
#include <string>

#include "tlm/event_log.h"
#include "tlm/invariants.h"
#include "tlm/liveness.h"
#include "tlm/timed_queue.h"

using namespace dpusim::pcie;
using namespace sc_core;
namespace tlp = dpusim::tlp;

namespace {
tlp::Header read_request(uint8_t tag) {
  tlp::Header h;
  h.type = tlp::Type::MRd;
  h.tag = tag;
  h.length_dw = 1;
  return h;
}
}  // namespace

TEST(InvariantLedgers, ARequestPastItsTimeoutWithNeitherCompletionNorTimeoutFails) {
  EventLog log;
  log.open_memory();
  InvariantChecker c(log);
  const unsigned host = c.register_requester("host");
  c.request_sent(1000, host, read_request(3), 11);
  c.request_sent(5000, host, read_request(4), 12);
  c.check_outstanding(50'000, 49'000);  // tag 3 is 49 000 ps old: not yet past
  EXPECT_FALSE(c.failed());
  c.check_outstanding(50'001, 49'000);
  EXPECT_TRUE(c.failed());
  EXPECT_EQ(c.first_failure(), "invariant request_never_completed violated at time_ps=50001 path=host: request TLP "
                               "#11 tag 3 sent at 1000 ps got neither a completion nor its completion timeout");
  EXPECT_EQ(c.violations(), 1u);  // tag 4 is 45 001 ps old
}

TEST(InvariantLedgers, CreditsNeverGoNegative) {
  EventLog log;
  log.open_memory();
  InvariantChecker c(log);
  c.credits_granted("vnet.acg", 2);
  c.credit_spent(10, "vnet.acg");
  c.credits_discarded(20, "vnet.acg", 1);
  EXPECT_EQ(c.credits("vnet.acg"), 0);
  EXPECT_FALSE(c.failed());
  c.credit_spent(30, "vnet.acg");
  EXPECT_EQ(c.first_failure(),
            "invariant credits_negative violated at time_ps=30 path=vnet.acg: a credit was spent with none granted "
            "and held");
}

TEST(InvariantLedgers, WorkOfAnOlderGenerationMustNotStart) {
  EventLog log;
  log.open_memory();
  InvariantChecker c(log);
  c.work_started(5, "worker", "ep0", 1, "PCI_CFG_WORK_VQ_CONFIG");  // no reset yet: nothing to compare
  c.generation_bumped("ep0", 2);
  c.work_started(6, "worker", "ep0", 2, "PCI_CFG_WORK_VQ_CONFIG");
  c.work_started(7, "worker", "ep1", 1, "PCI_CFG_WORK_VQ_CONFIG");
  EXPECT_FALSE(c.failed());
  c.work_started(8, "worker", "ep0", 1, "PCI_CFG_WORK_START_AND_ENABLE");
  EXPECT_EQ(c.first_failure(),
            "invariant work_on_reset_generation violated at time_ps=8 path=worker: PCI_CFG_WORK_START_AND_ENABLE of "
            "ep0 started with generation 1 after a reset moved it to generation 2");
}

TEST(InvariantLedgers, ALivenessBoundFiresWhenItRunsOutUnlessReleased) {
  EventLog log;
  log.open_memory();
  InvariantChecker c(log);
  TimedQueue q("q");
  LivenessWatch w(c, q);
  q.at(sc_time::from_value(100), [&] { w.hold("ep0.reset_hold", 1000, "held"); });
  q.at(sc_time::from_value(200), [&] { w.hold("ep1.reset_hold", 1000, "held too"); });
  q.at(sc_time::from_value(900), [&] { w.release("ep1.reset_hold"); });
  sc_start(sc_time::from_value(1099));
  EXPECT_FALSE(c.failed());
  EXPECT_EQ(q.size(), 1u);  // the released bound left nothing behind
  sc_start(sc_time::from_value(10));
  EXPECT_TRUE(c.failed());
  EXPECT_EQ(c.first_failure(), "invariant liveness_stall violated at time_ps=1100 path=ep0.reset_hold: held: held "
                               "since 100 ps, longer than its bound of 1000 ps");
  EXPECT_EQ(c.violations(), 1u);
}

TEST(InvariantLedgers, ALoopThatNeverLetsTimePassIsAZeroTimeSpinAndStops) {
  EventLog log;
  log.open_memory();
  InvariantChecker c(log);
  TimedQueue q("spinning", nullptr, &c);
  uint64_t runs = 0, at_other_instant = 0;
  // A retry that reschedules itself at the same instant: the shape of a retry loop whose
  // condition never changes.
  std::function<void()> retry = [&] {
    ++runs;
    q.at(SC_ZERO_TIME, retry);
  };
  q.at(sc_time::from_value(50), retry);
  q.at(sc_time::from_value(60), [&] { ++at_other_instant; });
  sc_start(sc_time::from_value(100));
  EXPECT_EQ(runs, TimedQueue::kMaxCallbacksPerInstant);
  EXPECT_EQ(at_other_instant, 0u);  // the queue ran nothing more once it stopped
  EXPECT_TRUE(c.failed());
  EXPECT_EQ(c.first_failure(), "invariant zero_time_spin violated at time_ps=50 path=spinning: 100000 callbacks "
                               "ran at this instant and more are due: a loop that never lets simulated time pass");
}

TEST(InvariantLedgers, ManyCallbacksSpreadOverTimeAreNoSpin) {
  EventLog log;
  log.open_memory();
  InvariantChecker c(log);
  TimedQueue q("busy", nullptr, &c);
  uint64_t runs = 0;
  const uint64_t n = TimedQueue::kMaxCallbacksPerInstant;
  for (uint64_t i = 0; i < n; ++i) q.at(sc_time::from_value(1 + i % 2), [&] { ++runs; });  // n/2 per instant
  sc_start(sc_time::from_value(10));
  EXPECT_EQ(runs, n);
  EXPECT_FALSE(c.failed());
}
