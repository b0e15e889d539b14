// CONTROLLER_CLEANUP (models/vnet/app/cleanup.h; the DOCA guide's controller cleanup, its steps
// as the application labels them): the steps in order, each after its cost in the timing
// profile, steps whose resource is absent skipped without taking time, the full teardown's
// config MSI-X and Step 6, and what the end of a cleanup releases: the reset hold and a
// FEATURES_OK that arrived meanwhile.
#include "vnet_fixture.h"

using namespace dpusim;
using namespace dpusim::testing;
using namespace dpusim::vnet::timing;
using dpusim::vnet::WorkType;

namespace {

// The time of each worker line from `from` on, in order.
std::vector<std::pair<std::string, uint64_t>> timed_worker_lines(EventRecord& ev, size_t from) {
  std::vector<std::pair<std::string, uint64_t>> out;
  for (const Json& e : ev.find("log", {{"path", "vnet.worker"}}, from)) out.push_back({e["msg"], e["time_ps"]});
  return out;
}

}  // namespace

TEST(Cleanup, TheStepsRunInOrderEachAfterItsCost) {
  VnetBench b(1, 0);
  b.probe();
  ASSERT_TRUE(b.ctl(0).stats_list && b.ctl(0).counters && b.ctl(0).io_ctx_started);
  const size_t m = b.events.mark();
  const uint64_t s = b.now() + b.param(worker_wakeup_ps);
  ASSERT_TRUE(b.app.submit_work(WorkType::CONTROLLER_CLEANUP, 0, 0));
  b.settle();

  // Started (VQ0, VQ1, the control queue) and so enabled, then disabled: three stops; every
  // one of the 17 created queues destroyed.
  // Step 0: stats collection stopped and drained; 0a the counters; 0b the stats list, after
  // its mutex.
  const uint64_t step0a = s + b.param(cleanup_stats_drain_ps);
  const uint64_t step0b = step0a + b.param(work_counters_ps);
  const uint64_t step1 = step0b + b.param(cleanup_stats_mutex_ps) + b.param(work_stats_list_ps);
  const uint64_t step2 = step1 + b.param(work_vq_group_disable_ps);
  const uint64_t step3 = step2 + b.param(work_engine_disable_ps);
  const uint64_t io = step3 + 3 * b.param(work_vq_stop_ps);
  const uint64_t step4 = io + b.param(work_io_ctx_destroy_ps);
  const uint64_t step5 = step4 + 17 * b.param(work_vq_destroy_ps);
  const uint64_t done = step5 + b.param(work_engine_stop_ps);
  const std::vector<std::pair<std::string, uint64_t>> want{
      {"Cleanup Step 0a: Destroying VNET virtqueue counters...", step0a},
      {"Cleanup Step 0b: Destroying stats list...", step0b},
      {"Cleanup Step 1: Disabling VQs (while engine enabled)...", step1},
      {"Cleanup Step 2: Disabling engine...", step2},
      {"Cleanup Step 3: Stopping VQs...", step3},
      {"Cleaning up IO context using worker PE", io},
      {"IO context stopped successfully (was already idle)", io},
      {"IO context destroyed", step4},
      {"Cleanup Step 4: Destroying VQs...", step4},
      {"Cleanup Step 5: Stopping engine...", step5},
      {"Controller cleanup completed successfully", done},
  };
  EXPECT_EQ(timed_worker_lines(b.events, m), want);
  EXPECT_EQ(b.events.count("vq_state", {{"state", "STOPPED"}}, m), 3u);
  EXPECT_EQ(b.events.count("vq_state", {{"state", "DESTROYED"}}, m), 17u);
  const auto stop = b.events.find("engine", {{"op", "stop"}}, m);
  ASSERT_EQ(stop.size(), 1u);
  EXPECT_EQ(stop[0]["time_ps"].get<uint64_t>(), done);
  const vnet::Controller& c = b.ctl(0);
  EXPECT_FALSE(c.counters || c.stats_list || c.engine_enabled || c.io_ctx_started || c.vqs_created || c.cvq_created ||
               c.offload_engine_started || c.cleanup_running);
}

TEST(Cleanup, AStepWhoseResourceIsAbsentIsSkippedWithoutTakingTime) {
  VnetBench b(1, 0);
  b.enumerate();
  ASSERT_TRUE(b.app.submit_work(WorkType::ENGINE_START, 0));  // the engine alone
  b.settle();
  ASSERT_TRUE(b.ctl(0).offload_engine_started);
  const size_t m = b.events.mark();
  const uint64_t s = b.now() + b.param(worker_wakeup_ps);
  ASSERT_TRUE(b.app.submit_work(WorkType::CONTROLLER_CLEANUP, 0, 0));
  b.settle();
  // No counters and no stats list: nothing to drain, no mutex to take.
  const std::vector<std::pair<std::string, uint64_t>> want{
      {"Cleanup Step 0a: Destroying VNET virtqueue counters...", s},
      {"Cleanup Step 0b: Destroying stats list...", s},
      {"Cleanup Step 1: Disabling VQs (while engine enabled)...", s},
      {"Cleanup Step 2: Disabling engine...", s},
      {"Cleanup Step 3: Stopping VQs...", s},
      {"Cleanup Step 4: Destroying VQs...", s},
      {"Cleanup Step 5: Stopping engine...", s},
      {"Controller cleanup completed successfully", s + b.param(work_engine_stop_ps)},
  };
  EXPECT_EQ(timed_worker_lines(b.events, m), want);
  EXPECT_EQ(b.events.count("vq_state", Json::object(), m), 0u);
  // The item ends with the cleanup: the worker finishes it at once.
  const auto finished = b.events.find("work_finished", {{"type", "PCI_CFG_WORK_CONTROLLER_CLEANUP"}}, m);
  ASSERT_EQ(finished.size(), 1u);
  EXPECT_EQ(finished[0]["time_ps"].get<uint64_t>(), s + b.param(work_engine_stop_ps));
}

TEST(Cleanup, TheFullTeardownDestroysTheConfigMsixAndTheEngineInStep6) {
  VnetBench b(1, 0);
  b.enumerate();
  // A reset's cleanup keeps the config MSI-X (it survives a VirtIO reset)...
  ASSERT_TRUE(b.app.submit_work(WorkType::ENGINE_START, 0));
  b.settle();
  b.ctl(0).config_msix = uint16_t(3);
  ASSERT_TRUE(b.app.submit_work(WorkType::CONTROLLER_CLEANUP, 0, 0));
  b.settle();
  EXPECT_EQ(b.ctl(0).config_msix, std::optional<uint16_t>(3));
  EXPECT_EQ(b.events.line_count("Cleanup Step 6: Destroying offload engine..."), 0u);

  // ... the full teardown (destroy_engine) does not, and destroys the engine last.
  ASSERT_TRUE(b.app.submit_work(WorkType::ENGINE_START, 0));
  b.settle();
  const size_t m = b.events.mark();
  const uint64_t s = b.now() + b.param(worker_wakeup_ps);
  ASSERT_TRUE(b.app.submit_work(WorkType::CONTROLLER_CLEANUP, 0, 1));
  b.settle();
  EXPECT_FALSE(b.ctl(0).config_msix.has_value());
  const uint64_t step6 = s + b.param(work_engine_stop_ps);
  EXPECT_EQ(b.events.line_time("Cleanup Step 6: Destroying offload engine...", m), step6);
  EXPECT_EQ(b.events.line_time("Controller cleanup completed successfully", m), step6 + b.param(work_engine_destroy_ps));
}

TEST(Cleanup, ItsEndQueuesTheHoldReleaseAndRunsADeferredFeaturesOk) {
  VnetBench b(1, 0);
  b.probe();
  b.status(0, 0);  // reset: held at 0x40, the cleanup queued
  b.run_for(kUs);
  ASSERT_EQ(b.dev(0).reset_status_state, vnet::ResetStatusState::HELD);
  // A driver that does not wait for the status to read 0 negotiates again during the cleanup.
  const uint64_t t = b.now() + kMs;
  size_t m = b.events.mark();
  b.at(t, [&] {
    ASSERT_TRUE(b.ctl(0).cleanup_running);
    b.status(0, virtio::VIRTIO_CONFIG_S_ACKNOWLEDGE);
    b.status(0, 0x03);
    b.common(0, virtio::VIRTIO_PCI_COMMON_GFSELECT, 4, 0);
    b.common(0, virtio::VIRTIO_PCI_COMMON_GF, 4, kLinuxFeaturesLo);
    b.common(0, virtio::VIRTIO_PCI_COMMON_GFSELECT, 4, 1);
    b.status(0, 0x0b);
  });
  b.run_for(2 * kMs);
  EXPECT_EQ(b.events.line_time("FEATURES_OK: Cleanup in progress - deferring init", m), t);
  EXPECT_EQ(b.events.count("work_queued", Json::object(), m), 0u);
  EXPECT_TRUE(b.ctl(0).deferred_init_pending);

  m = b.events.mark();
  b.settle();
  const uint64_t end = b.events.line_time("Controller cleanup completed successfully", m);
  const std::vector<std::string> tail{
      "Controller cleanup completed successfully",
      "RESET: controller cleanup complete, reset hold release queued",
      "Deferred init: FEATURES_OK was skipped, starting initialization now",
      "Deferred init: MQ features negotiated (CVQ+MQ)",
      "Deferred init: Submitting engine_start",
      "Deferred init: Submitting initialize_vqs",
      "Deferred init: Submitting initialize_io_context",
      "Deferred init: Submitting start_and_enable (DRIVER_OK likely set)",
  };
  std::vector<std::string> got;
  for (const Json& e : b.events.find("log", {{"path", "vnet.worker"}, {"time_ps", end}}, m)) got.push_back(e["msg"]);
  ASSERT_GE(got.size(), tail.size());
  EXPECT_EQ(std::vector<std::string>(got.end() - std::ptrdiff_t(tail.size()), got.end()), tail);
  std::vector<std::string> queued;
  for (const Json& e : b.events.find("work_queued", {{"time_ps", end}}, m)) queued.push_back(e["type"]);
  EXPECT_EQ(queued, (std::vector<std::string>{"PCI_CFG_WORK_ENGINE_START", "PCI_CFG_WORK_INITIALIZE_VQS",
                                              "PCI_CFG_WORK_INITIALIZE_IO_CTX", "PCI_CFG_WORK_START_AND_ENABLE"}));
  EXPECT_EQ(b.dev(0).reset_status_state, vnet::ResetStatusState::RELEASE_PENDING);
  EXPECT_FALSE(b.ctl(0).deferred_init_pending);
}
