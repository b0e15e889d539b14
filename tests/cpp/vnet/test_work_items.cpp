// The config worker's items (models/vnet/app/work_items.h): INITIALIZE_VQS creates every data
// queue and the control queue only with MQ; START_AND_ENABLE needs DRIVER_OK and the first
// queue pair configured; DEVICE_RESET resets the registers; SPEED_CHANGE bounces the link
// with two config interrupts; and after each item, the liveness of the reset hold (the
// application's double-reset hazard: a second reset while the first cleanup is still queued).
#include "vnet_fixture.h"

using namespace dpusim;
using namespace dpusim::testing;
using namespace dpusim::virtio;
using namespace dpusim::vnet::timing;
using dpusim::vnet::WorkType;

namespace {

// Reset, ACKNOWLEDGE, DRIVER, the features, FEATURES_OK: the worker's first three items queued.
void negotiate(VnetBench& b, uint32_t features_lo) {
  b.reset(0);
  b.status(0, 0x01);
  b.status(0, 0x03);
  b.common(0, VIRTIO_PCI_COMMON_GFSELECT, 4, 0);
  b.common(0, VIRTIO_PCI_COMMON_GF, 4, features_lo);
  b.common(0, VIRTIO_PCI_COMMON_GFSELECT, 4, 1);
  b.common(0, VIRTIO_PCI_COMMON_GF, 4, kLinuxFeaturesHi);
  b.status(0, 0x0b);
}

}  // namespace

TEST(WorkItems, InitializeVqsCreatesEveryDataQueueThenTheCvqWithMq) {
  VnetBench b(1, 0);
  b.enumerate();
  const size_t m = b.events.mark();
  negotiate(b, kLinuxFeaturesLo);
  b.settle();
  const auto started = b.events.find("work_started", {{"type", "PCI_CFG_WORK_INITIALIZE_VQS"}}, m);
  ASSERT_EQ(started.size(), 1u);
  const uint64_t s = started[0]["time_ps"], create = b.param(work_vq_create_ps);
  EXPECT_EQ(b.events.line_time("Created 8 queue pairs (VQ0-VQ15)", m), s + 16 * create);
  EXPECT_EQ(b.events.line_time("Created CVQ (VQ16)", m), s + 17 * create);
  EXPECT_EQ(b.events.line_time("VQ initialization complete - ready for host configuration", m), s + 17 * create);
  EXPECT_EQ(b.events.count("vq_state", {{"state", "CREATED"}}, m), 17u);
  EXPECT_TRUE(b.ctl(0).cvq_created);
  // The IO context follows (MQ only).
  EXPECT_EQ(b.events.line_count("IO context created: io_ctx@ep0", m), 1u);
  EXPECT_TRUE(b.ctl(0).io_ctx_started);
  EXPECT_FALSE(b.ctl(0).initialization_in_progress);
}

TEST(WorkItems, WithoutMqOnlyQueuePairZeroIsCreatedAndTheIoContextIsNot) {
  VnetBench b(1, 0);
  b.enumerate();
  const size_t m = b.events.mark();
  negotiate(b, kLinuxFeaturesLo & ~uint32_t(bit(VIRTIO_NET_F_MQ)));
  b.settle();
  const std::vector<std::string> want{"Executing offload engine start", "VNet offload engine started (async)",
                                      "Created 1 queue pairs (VQ0-VQ1)",
                                      "CVQ not created - MQ feature not negotiated (single-QP mode)",
                                      "VQ initialization complete - ready for host configuration"};
  EXPECT_EQ(b.events.lines(vnet::kWorkerThread, m), want);
  EXPECT_EQ(b.events.count("vq_state", {{"state", "CREATED"}}, m), 2u);
  // Single-QP mode leaves initialisation in progress: the controller is never "ready".
  EXPECT_TRUE(b.ctl(0).initialization_in_progress);
  EXPECT_FALSE(b.app.primary().mq_start().controller_ready(0));
}

TEST(WorkItems, StartAndEnableNeedsDriverOkAndTheFirstQueuePairConfigured) {
  VnetBench b(1, 0);
  b.enumerate();
  negotiate(b, kLinuxFeaturesLo & ~uint32_t(bit(VIRTIO_NET_F_MQ)));
  b.settle();
  // Before DRIVER_OK: nothing.
  size_t m = b.events.mark();
  ASSERT_TRUE(b.app.submit_work(WorkType::START_AND_ENABLE, 0));
  b.settle();
  EXPECT_EQ(b.events.count("work_finished", {{"type", "PCI_CFG_WORK_START_AND_ENABLE"}}, m), 1u);
  EXPECT_EQ(b.events.lines(vnet::kWorkerThread, m), std::vector<std::string>{});
  // DRIVER_OK with no queue configured: deferred.
  m = b.events.mark();
  b.status(0, 0x0f);
  b.settle();
  EXPECT_EQ(b.events.lines(vnet::kWorkerThread, m),
            (std::vector<std::string>{"Executing VQs start and engine enable",
                                      "start_and_enable deferred until first QP configuration is complete"}));
  EXPECT_FALSE(b.ctl(0).engine_enabled);
  // Queues 0 and 1 configured: their VQ_CONFIG items queue START_AND_ENABLE again.
  m = b.events.mark();
  b.setup_queue(0, 0);
  b.setup_queue(0, 1);
  b.settle();
  const auto runs = b.events.find("work_started", {{"type", "PCI_CFG_WORK_START_AND_ENABLE"}}, m);
  ASSERT_EQ(runs.size(), 2u);  // one per VQ_CONFIG; the second finds the engine enabled
  const uint64_t s = runs[0]["time_ps"];
  EXPECT_EQ(b.events.line_time("Executing VQs start and engine enable", m), s);
  const uint64_t started = s + 2 * b.param(work_vq_start_ps);
  EXPECT_EQ(b.events.line_time("All VQs configured and started (engine not yet enabled)", m), started);
  EXPECT_EQ(b.events.line_time("Enabling VNet offload engine", m), started);
  EXPECT_EQ(b.events.line_time("VNet offload engine enabled successfully", m), started + b.param(work_engine_enable_ps));
  EXPECT_EQ(b.events.line_time("VNet offload engine enabled - device ready for DRIVER_OK", m),
            started + b.param(work_engine_enable_ps) + b.param(work_counters_ps));
  EXPECT_EQ(b.events.line_count("Executing VQs start and engine enable", m), 1u);
  EXPECT_EQ(b.events.count("work_queued", {{"type", "PCI_CFG_WORK_CREATE_STATS_LIST"}}, m), 1u);
  EXPECT_EQ(b.ep(0).vqs().vq_state(0), vnet::VqState::ENABLED);
  EXPECT_EQ(b.ep(0).vqs().vq_state(1), vnet::VqState::ENABLED);
}

TEST(WorkItems, DeviceResetResetsTheRegistersAfterItsCost) {
  VnetBench b(1, 0);
  b.probe();
  ASSERT_EQ(b.dev(0).status(), 0x0f);
  const size_t m = b.events.mark();
  ASSERT_TRUE(b.app.submit_work(WorkType::DEVICE_RESET, 0));
  b.settle();
  const auto started = b.events.find("work_started", {{"type", "PCI_CFG_WORK_DEVICE_RESET"}}, m);
  const auto finished = b.events.find("work_finished", {{"type", "PCI_CFG_WORK_DEVICE_RESET"}}, m);
  ASSERT_EQ(started.size(), 1u);
  ASSERT_EQ(finished.size(), 1u);
  EXPECT_EQ(finished[0]["time_ps"].get<uint64_t>(), started[0]["time_ps"].get<uint64_t>() + b.param(work_register_reset_ps));
  EXPECT_EQ(b.dev(0).status(), 0);
  EXPECT_EQ(b.dev(0).shadow(0).enable, 0);
  EXPECT_EQ(b.dev(0).config_msix_vector(), 0);  // kept
}

TEST(WorkItems, ASpeedChangeBouncesTheLinkWithTwoConfigInterrupts) {
  VnetBench b(1, 0);
  b.probe();  // config vector 0
  b.enable_msix(0, 0, 0xfee00000, 0x21);
  const size_t msis = b.host.rc.msis().size();
  const uint8_t generation = b.dev(0).config_generation();

  size_t m = b.events.mark();
  ASSERT_TRUE(b.app.submit_work(WorkType::SPEED_CHANGE, 0, 50000));
  b.settle();
  const uint64_t s = b.events.find("work_started", {{"type", "PCI_CFG_WORK_SPEED_CHANGE"}}, m).at(0)["time_ps"];
  const uint64_t bounce = b.param(speed_bounce_ps);
  EXPECT_EQ(b.events.lines(vnet::kWorkerThread, m),
            (std::vector<std::string>{"Config MSI-X created (vector=0) - ready for config change notifications",
                                      "Speed change: 100000 -> 50000 Mbps (link bounce + MSI-X)",
                                      "Speed change: done (100000 -> 50000 Mbps)"}));
  const auto irq = b.events.find("config_interrupt", Json::object(), m);
  ASSERT_EQ(irq.size(), 2u);
  EXPECT_EQ(irq[0]["time_ps"].get<uint64_t>(), s);
  EXPECT_EQ(irq[0]["link_up"], false);
  EXPECT_EQ(irq[1]["time_ps"].get<uint64_t>(), s + bounce);
  EXPECT_EQ(irq[1]["link_up"], true);
  EXPECT_EQ(irq[1]["msix"], "sent");
  ASSERT_EQ(b.host.rc.msis().size(), msis + 2);
  const host::MsiEvent& down = b.host.rc.msis()[msis];
  const host::MsiEvent& up = b.host.rc.msis()[msis + 1];
  EXPECT_EQ(up.time_ps - down.time_ps, bounce);
  EXPECT_EQ(up.data, 0x21u);
  EXPECT_EQ(up.requester_id, 0x0200);
  EXPECT_EQ(b.dev(0).config_generation(), uint8_t(generation + 2));
  EXPECT_EQ(get_le32(b.dev(0).net_config() + VIRTIO_NET_CFG_SPEED), 50000u);
  EXPECT_EQ(get_le16(b.dev(0).net_config() + VIRTIO_NET_CFG_STATUS), VIRTIO_NET_S_LINK_UP);
  EXPECT_EQ(b.ctl(0).config_msix, std::optional<uint16_t>(0));

  // The same speed again: no bounce.
  m = b.events.mark();
  ASSERT_TRUE(b.app.submit_work(WorkType::SPEED_CHANGE, 0, 50000));
  b.settle();
  EXPECT_EQ(b.events.lines(vnet::kWorkerThread, m), (std::vector<std::string>{"Speed change: already at 50000 Mbps, skipping"}));
  EXPECT_EQ(b.host.rc.msis().size(), msis + 2);
}

TEST(WorkItems, ASecondResetWhileTheCleanupIsQueuedHoldsTheStatusForever) {
  VnetBench b(1, 0);
  b.probe();
  const uint64_t t = b.now();
  const size_t m = b.events.mark();
  b.status(0, 0);  // held; the cleanup (generation 3) queued
  b.run_for(kUs);
  ASSERT_EQ(b.events.count("work_queued", {{"type", "PCI_CFG_WORK_CONTROLLER_CLEANUP"}, {"gen", 3}}, m), 1u);
  b.status(0, 0);  // before the worker took it: generation 4, the hold only re-asserted
  b.settle();

  EXPECT_EQ(b.events.line_count("RESET cleanup pending - reasserting device_status=0x40", m), 1u);
  EXPECT_EQ(b.events.line_count("Skipping stale work type 1 (gen=3)", m), 1u);
  EXPECT_EQ(b.events.count("work_queued", {{"type", "PCI_CFG_WORK_CONTROLLER_CLEANUP"}}, m), 1u);
  const auto v = b.events.find("invariant_violation", {{"kind", "reset_hold_never_released"}});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0]["time_ps"].get<uint64_t>(), t + b.param(worker_wakeup_ps));
  EXPECT_EQ(v[0]["path"], "switch");
  const std::string detail = v[0]["detail"];
  EXPECT_EQ(detail,
            "ep0 (02:00.0): device_status held at 0x40 (reset_status_state HELD) but its only cleanup (gen 3) was skipped "
            "as stale after a second reset (gen 4) re-asserted the hold without queuing another: the host reads 0x40 "
            "forever (the application's double-reset hazard, docs/vnet.md)");
  EXPECT_TRUE(b.ctx.checker.failed());
  EXPECT_EQ(b.dev(0).reset_status_state, vnet::ResetStatusState::HELD);
  EXPECT_EQ(b.dev(0).status(), 0x40);
}
