// The frame-conservation invariant: sent = received + dropped + in flight at the end, else a
// violation naming the counts.
#include <gtest/gtest.h>

#include "tlm/event_log.h"
#include "tlm/invariants.h"

using namespace dpusim::pcie;

TEST(FrameLedger, ConservedFramesPassAndALostOneFailsTheRun) {
  EventLog log;
  log.open_memory();
  InvariantChecker ok(log);
  for (int i = 0; i < 5; ++i) ok.frame_sent();
  ok.frame_received();
  ok.frame_received();
  ok.frame_dropped("rx_fifo_full");
  ok.check_frame_conservation(10, 2);
  EXPECT_FALSE(ok.failed());
  EXPECT_EQ(ok.frames_dropped(), 1u);

  InvariantChecker lost(log);
  for (int i = 0; i < 3; ++i) lost.frame_sent();
  lost.frame_received();
  lost.check_frame_conservation(20, 1);
  EXPECT_TRUE(lost.failed());
  EXPECT_EQ(lost.first_failure(),
            "invariant frame_conservation violated at time_ps=20 path=checker: sent 3 != received 1 + dropped 0 + "
            "in flight 1");
  const std::string text = log.take_memory();
  EXPECT_NE(text.find(R"("dropped":1,"drops":"rx_fifo_full=1","event":"frame_ledger","in_flight":2)"), std::string::npos);
}
