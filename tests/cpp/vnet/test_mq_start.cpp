// The MQ start (models/vnet/app/mq_start.h; the DOCA guide's start_additional_queue_pairs on
// background threads): at most two threads hold the semaphore, each checks the device's cancel
// flag before every queue pair (set_conf and start of RX and TX, then a 1 ms yield) and
// enables the group after the last one; in static mode with several endpoints an increase
// waits until every controller is live.
#include "vnet_fixture.h"

using namespace dpusim;
using namespace dpusim::testing;
using namespace dpusim::vnet::timing;

namespace {

// One queue pair: set_conf and start of RX, then of TX, then the yield.
uint64_t qp_cost(const VnetBench& b) {
  return 2 * (b.param(work_vq_set_conf_ps) + b.param(work_vq_start_ps)) + b.param(mq_qp_yield_ps);
}

// Starts QPs old_qps..new_qps-1 of EP0 and sets the device's cancel flag 10 ms in, as a device
// reset does; runs until all is done and returns the time of the start.
uint64_t start_then_cancel(VnetBench& b, unsigned old_qps, unsigned new_qps) {
  const uint64_t t = b.now();
  b.app.primary().mq_start().spawn(0, old_qps, new_qps, vnet::kWorkerThread);
  b.at(t + 10 * kMs, [&b] { b.dev(0).cancel_in_progress = true; });
  b.settle();
  return t;
}

}  // namespace

TEST(MqStart, AtMostTwoThreadsRunAndAThirdWaitsForASlot) {
  VnetBench b(1, 0);
  b.probe();
  const uint64_t t = b.now(), one = qp_cost(b) + b.param(work_vq_group_enable_ps);
  const size_t m = b.events.mark();
  b.app.primary().mq_start().spawn(0, 1, 2, vnet::kWorkerThread);
  b.app.primary().mq_start().spawn(0, 2, 3, vnet::kWorkerThread);
  b.app.primary().mq_start().spawn(0, 3, 4, vnet::kWorkerThread);
  EXPECT_EQ(b.ctl(0).mq_threads, 3u);
  b.run_for(kMs);
  EXPECT_EQ(b.app.primary().mq_start().trace_running, 2u);
  b.settle();

  for (const char* spawned : {"MQ start QPs 1 -> 2 spawned as joinable thread (parallel execution)",
                              "MQ start QPs 2 -> 3 spawned as joinable thread (parallel execution)",
                              "MQ start QPs 3 -> 4 spawned as joinable thread (parallel execution)"})
    EXPECT_EQ(b.events.find("log", {{"path", vnet::kWorkerThread}, {"msg", spawned}}, m).size(), 1u) << spawned;
  const std::string waiting = "MQ start thread waiting for semaphore slot (max 2 concurrent)...";
  const std::string acquired = "MQ start thread acquired semaphore slot";
  for (const char* thread : {"vnet.mq0", "vnet.mq1", "vnet.mq2"})
    EXPECT_EQ(b.events.find("log", {{"path", thread}, {"msg", waiting}}, m).at(0)["time_ps"].get<uint64_t>(), t) << thread;
  EXPECT_EQ(b.events.find("log", {{"path", "vnet.mq0"}, {"msg", acquired}}, m).at(0)["time_ps"].get<uint64_t>(), t);
  EXPECT_EQ(b.events.find("log", {{"path", "vnet.mq1"}, {"msg", acquired}}, m).at(0)["time_ps"].get<uint64_t>(), t);
  // The third gets the slot the first frees when it exits.
  EXPECT_EQ(b.events.find("log", {{"path", "vnet.mq2"}, {"msg", acquired}}, m).at(0)["time_ps"].get<uint64_t>(), t + one);
  EXPECT_EQ(b.events.lines("vnet.mq0", m),
            (std::vector<std::string>{waiting, acquired, "Background thread: starting MQ QPs 1 -> 2", "Starting QPs 1-1 (VQs 2-3)",
                                      "Successfully started QPs 1-1",
                                      "Background thread: MQ start QPs 1 -> 2 completed successfully"}));
  // Each queue is configured and started without a "VQ%d configured" line (the application
  // logs that only in VQ_CONFIG): VQ3 starts after both set_confs and VQ2's start.
  EXPECT_EQ(b.events.find("vq_state", {{"path", "ep0"}, {"vq", 3}, {"state", "STARTED"}}, m).at(0)["time_ps"].get<uint64_t>(),
            t + 2 * b.param(work_vq_set_conf_ps) + 2 * b.param(work_vq_start_ps));
  EXPECT_EQ(b.events.line_time("Background thread: MQ start QPs 3 -> 4 completed successfully", m), t + 2 * one);
  EXPECT_EQ(b.ctl(0).num_active_qps, 4u);
  for (unsigned q = 2; q < 8; ++q) EXPECT_EQ(b.ep(0).vqs().vq_state(q), vnet::VqState::ENABLED) << "VQ" << q;
  EXPECT_EQ(b.ctl(0).mq_threads, 0u);
  EXPECT_EQ(b.app.primary().mq_start().trace_running, 0u);
  EXPECT_TRUE(b.app.primary().mq_start().all_joined());
}

TEST(MqStart, TheCancelFlagIsCheckedBeforeEachQueuePair) {
  VnetBench b(1, 0);
  b.probe();
  const size_t m = b.events.mark();
  const uint64_t t = start_then_cancel(b, 1, 4);

  // QP1 had passed its check; QP2's check stops the thread: nothing else is started.
  const uint64_t check2 = t + qp_cost(b);
  EXPECT_EQ(b.events.line_time("start_additional_queue_pairs: cancelled at QP2/4 due to device reset", m), check2);
  EXPECT_EQ(b.events.line_time("Background thread: MQ start QPs failed: cancelled by device reset", m), check2);
  EXPECT_EQ(b.events.line_level("Background thread: MQ start QPs failed: cancelled by device reset"), "error");
  EXPECT_EQ(b.events.line_count("Successfully started QPs 1-3", m), 0u);
  EXPECT_EQ(b.ep(0).vqs().vq_state(2), vnet::VqState::STARTED);  // never enabled
  EXPECT_EQ(b.ep(0).vqs().vq_state(3), vnet::VqState::STARTED);
  for (unsigned q = 4; q < 8; ++q) EXPECT_EQ(b.ep(0).vqs().vq_state(q), vnet::VqState::CREATED) << "VQ" << q;
  EXPECT_EQ(b.ctl(0).num_active_qps, 1u);
  EXPECT_EQ(b.ctl(0).mq_threads, 0u);
  EXPECT_TRUE(b.app.primary().mq_start().all_joined());
  EXPECT_EQ(b.events.count("work_queued", {{"type", "PCI_CFG_WORK_CREATE_STATS_LIST"}}, m), 0u);
}

TEST(MqStart, ACancelAfterTheLastCheckStillEnablesTheGroup) {
  VnetBench b(1, 0);
  b.probe();
  const size_t m = b.events.mark();
  const uint64_t t = start_then_cancel(b, 1, 2);
  const uint64_t end = t + qp_cost(b) + b.param(work_vq_group_enable_ps);
  EXPECT_EQ(b.events.line_time("Successfully started QPs 1-1", m), end);
  EXPECT_EQ(b.events.line_time("Background thread: MQ start QPs 1 -> 2 completed successfully", m), end);
  EXPECT_EQ(b.ctl(0).num_active_qps, 2u);
  EXPECT_EQ(b.ep(0).vqs().vq_state(2), vnet::VqState::ENABLED);
  EXPECT_EQ(b.ep(0).vqs().vq_state(3), vnet::VqState::ENABLED);
}

TEST(MqStart, InStaticModeAnIncreaseWaitsUntilEveryControllerIsLive) {
  VnetBench b(2, 0);
  b.probe();
  ASSERT_TRUE(b.ctl(0).initial_data_qps_deferred);
  ASSERT_TRUE(b.app.primary().mq_start().controller_ready(0));
  ASSERT_FALSE(b.app.primary().mq_start().controller_ready(1));
  const uint64_t ack = b.send_ctrl(0, virtio::VIRTIO_NET_CTRL_MQ, virtio::VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET, {4, 0});
  b.settle();
  // Answered OK at once, the start held back; QP0 counts as not started yet.
  EXPECT_EQ(b.host_byte(ack), virtio::VIRTIO_NET_OK);
  EXPECT_EQ(b.events.line_count("MQ_VQ_PAIRS_SET: 1 -> 4 QPs"), 1u);
  EXPECT_EQ(b.events.line_count("MQ defer: deferring MQ start 0 -> 4 until all 2 static devices are live"), 1u);
  EXPECT_EQ(b.app.primary().mq_start().spawned_threads(), 0u);
  EXPECT_EQ(b.ctl(0).deferred_mq, (std::optional<std::pair<unsigned, unsigned>>{{0u, 4u}}));

  const size_t m = b.events.mark();
  b.bring_up(1);
  b.settle();
  // EP1's enable makes every controller live: the deferred start is released there.
  const auto ready = b.events.find("log", {{"msg", "VNet offload engine enabled - device ready for DRIVER_OK"}}, m);
  ASSERT_EQ(ready.size(), 1u);
  const uint64_t t = ready[0]["time_ps"];
  EXPECT_EQ(b.events.line_time("MQ defer: all 2/2 controllers live - releasing 1 deferred MQ starts", m), t);
  EXPECT_EQ(b.events.line_time("MQ defer: enumeration settled, releasing deferred MQ start 0 -> 4 on PF[0]", m), t);
  EXPECT_EQ(b.events.line_time("MQ start QPs 0 -> 4 spawned as joinable thread (parallel execution)", m), t);
  EXPECT_EQ(b.events.line_time("Starting QPs 0-3 (VQs 0-7)", m), t);
  EXPECT_EQ(b.events.line_time("Successfully started QPs 0-3", m), t + 4 * qp_cost(b) + b.param(work_vq_group_enable_ps));
  EXPECT_EQ(b.ctl(0).num_active_qps, 4u);
  EXPECT_FALSE(b.ctl(0).initial_data_qps_deferred);
  EXPECT_FALSE(b.ctl(0).deferred_mq.has_value());
  for (unsigned q = 0; q < 8; ++q) EXPECT_EQ(b.ep(0).vqs().vq_state(q), vnet::VqState::ENABLED) << "VQ" << q;
}
