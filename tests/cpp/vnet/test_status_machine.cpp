// The device status state machine (models/vnet/app/status_machine.h) driven by common-config
// writes as PE1 hands them over: the lines and work items of ACKNOWLEDGE, DRIVER,
// FEATURES_OK and DRIVER_OK, the device reset with its per-device barrier and the reset hold
// (status 0x40 until the controller's cleanup, released by the next common-config access), the
// read-only rollback of a whole DW, and DEVICE_NEEDS_RESET on the config vector (virtio 1.2
// §2.1.2, §4.1.4.3).
#include <algorithm>

#include "vnet_fixture.h"

using namespace dpusim;
using namespace dpusim::testing;
using namespace dpusim::virtio;
using vnet::ResetStatusState;

namespace {

std::vector<std::string> queued_types(EventRecord& ev, size_t from) {
  std::vector<std::string> out;
  for (const Json& e : ev.find("work_queued", Json::object(), from)) out.push_back(e["type"]);
  return out;
}

}  // namespace

TEST(StatusMachine, ProbeStatusWritesLogTheirLinesAndQueueTheirItems) {
  VnetBench b(1, 0);
  b.enumerate();
  // The first reset after power-on: 0x40 -> 0, nothing to clean up, no callback line.
  size_t m = b.events.mark();
  b.status(0, 0);
  b.run_for(kUs);
  EXPECT_EQ(b.events.lines("vnet.main", m),
            (std::vector<std::string>{"VIRTIO STATUS CHANGE: 0x40 -> 0x00", "VirtIO Driver: DEVICE RESET - reinitializing device",
                                      "VirtIO device reset [finished]"}));
  ASSERT_EQ(b.events.count("reset_generation", {{"ep", 0}, {"gen", 2}}, m), 1u);
  EXPECT_EQ(b.events.count("work_queued", Json::object(), m), 0u);

  // ACKNOWLEDGE: the callback's own line is silent on the first probe (its copy is still 0xFF).
  m = b.events.mark();
  b.status(0, VIRTIO_CONFIG_S_ACKNOWLEDGE);
  EXPECT_EQ(b.events.lines("vnet.main", m),
            (std::vector<std::string>{"VIRTIO STATUS CHANGE: 0x00 -> 0x01", "VirtIO Driver: ACKNOWLEDGE - driver detected VirtIO device"}));
  m = b.events.mark();
  b.status(0, 0x03);
  EXPECT_EQ(b.events.lines("vnet.main", m),
            (std::vector<std::string>{"VIRTIO STATUS CHANGE: 0x01 -> 0x03", "VirtIO Driver: DRIVER loaded - OS driver attached to device",
                                      "02:00.0:VirtIO Status: <DRIVER> bit set"}));

  b.common(0, VIRTIO_PCI_COMMON_GFSELECT, 4, 0);
  b.common(0, VIRTIO_PCI_COMMON_GF, 4, kLinuxFeaturesLo);
  b.common(0, VIRTIO_PCI_COMMON_GFSELECT, 4, 1);
  b.common(0, VIRTIO_PCI_COMMON_GF, 4, kLinuxFeaturesHi);
  m = b.events.mark();
  b.status(0, 0x0b);
  const std::vector<std::string> features_ok{
      "VIRTIO STATUS CHANGE: 0x03 -> 0x0b",
      "VirtIO Driver: FEATURES_OK - feature negotiated (=0x431829)",  // the high word never latched
      "02:00.0:VirtIO Status: <FEATURES_OK> bit set - starting hardware preparation",
      "MQ features negotiated: F_CTRL_VQ + F_MQ -- CVQ + MQ support enabled",
      "Workqueue status: pool_free=1024/1024, pending=0, processed=0, dropped=0, shutdown=0",
      "FEATURES_OK: About to queue async work (engine_started=0)",
      "FEATURES_OK: Submitting engine_start work item",
      "FEATURES_OK: engine_start submitted",
      "FEATURES_OK: MQ mode=enabled, max_qps=8, active_qps=1",
      "FEATURES_OK: Submitting initialize_vqs work item",
      "FEATURES_OK: initialize_vqs submitted",
      "FEATURES_OK: Submitting initialize_io_context work item",
      "FEATURES_OK: initialize_io_context submitted",
      "FEATURES_OK: All async work items submitted, handler complete",
  };
  EXPECT_EQ(b.events.lines("vnet.main", m), features_ok);
  EXPECT_EQ(queued_types(b.events, m), (std::vector<std::string>{"PCI_CFG_WORK_ENGINE_START", "PCI_CFG_WORK_INITIALIZE_VQS",
                                                                 "PCI_CFG_WORK_INITIALIZE_IO_CTX"}));
  EXPECT_EQ(b.events.count("work_queued", {{"ep", 0}, {"gen", 2}}, m), 3u);

  m = b.events.mark();
  b.status(0, 0x0f);
  const std::vector<std::string> driver_ok{
      "VIRTIO STATUS CHANGE: 0x0b -> 0x0f",
      "VirtIO Driver: DRIVER_OK - device should already be live!",
      "Final State: features=0x431829, queues=17, MAC=52:54:00:12:34:56",
      "02:00.0: DRIVER_OK set - starting VQs and enabling engine",
      "02:00.0: VNet: now OPERATIONAL - MAC 52:54:00:12:34:56",
      "  Configured VQs: 0, Active QPs: 1/8",
      "  CVQ: started",
      "02:00.0: VirtIO DRIVER_OK detected - device is live now",
  };
  EXPECT_EQ(b.events.lines("vnet.main", m), driver_ok);
  EXPECT_EQ(queued_types(b.events, m), (std::vector<std::string>{"PCI_CFG_WORK_START_AND_ENABLE"}));
}

TEST(StatusMachine, WithoutMqTheDeviceRunsOneQueuePairAndSeveralNewBitsAreUnknown) {
  VnetBench b(1, 0);
  b.enumerate();
  b.status(0, 0);
  b.run_for(kUs);
  size_t m = b.events.mark();
  b.status(0, 0x03);  // ACKNOWLEDGE and DRIVER at once
  EXPECT_EQ(b.events.lines("vnet.main", m), (std::vector<std::string>{"VIRTIO STATUS CHANGE: 0x00 -> 0x03", "??? unknown device status: 0x03"}));
  EXPECT_EQ(b.events.line_level("??? unknown device status: 0x03"), "debug");
  b.common(0, VIRTIO_PCI_COMMON_GFSELECT, 4, 0);
  b.common(0, VIRTIO_PCI_COMMON_GF, 4, kLinuxFeaturesLo & ~uint32_t(bit(VIRTIO_NET_F_MQ)));
  b.common(0, VIRTIO_PCI_COMMON_GFSELECT, 4, 1);
  m = b.events.mark();
  b.status(0, 0x0b);
  const auto lines = b.events.lines("vnet.main", m);
  EXPECT_NE(std::find(lines.begin(), lines.end(), "MQ features NOT negotiated (CTRL_VQ=1, MQ=0) - single QP mode"), lines.end());
  EXPECT_NE(std::find(lines.begin(), lines.end(), "FEATURES_OK: MQ mode=disabled, max_qps=1, active_qps=1"), lines.end());
  EXPECT_FALSE(b.ctl(0).mq_negotiated);
  EXPECT_EQ(b.ctl(0).max_queue_pairs, 1u);
  m = b.events.mark();
  b.status(0, 0x8b);
  EXPECT_EQ(b.events.lines("vnet.main", m),
            (std::vector<std::string>{"VIRTIO STATUS CHANGE: 0x0b -> 0x8b", "VirtIO Driver: FAILED - driver encountered an error"}));
  EXPECT_EQ(b.events.line_level("VirtIO Driver: FAILED - driver encountered an error"), "error");
}

TEST(StatusMachine, AResetWithNothingBroughtUpCompletesAtOnceAndStatusReadsZero) {
  VnetBench b(1, 0);
  b.enumerate();
  b.status(0, 0);
  b.run_for(kUs);
  b.status(0, VIRTIO_CONFIG_S_ACKNOWLEDGE);
  const size_t m = b.events.mark();
  b.status(0, 0);
  b.run_for(kUs);
  EXPECT_EQ(b.events.lines("vnet.main", m),
            (std::vector<std::string>{"VIRTIO STATUS CHANGE: 0x01 -> 0x00", "VirtIO Driver: DEVICE RESET - reinitializing device",
                                      "VirtIO device reset [finished]", "VNet device 02:00.0: RESET detected - performing cleanup",
                                      "RESET: no controller resources to tear down, completing immediately"}));
  EXPECT_EQ(b.dev(0).status(), 0);
  EXPECT_EQ(b.dev(0).reset_status_state, ResetStatusState::IDLE);
  EXPECT_EQ(b.events.count("work_queued", Json::object(), m), 0u);
}

TEST(StatusMachine, AResetHolds0x40UntilTheCleanupAndTheNextCommonConfigAccessReleasesIt) {
  VnetBench b(1, 0);
  b.probe();
  ASSERT_TRUE(b.ctl(0).engine_enabled);
  size_t m = b.events.mark();
  b.status(0, 0);
  b.run_for(kUs);
  EXPECT_EQ(b.events.lines("vnet.main", m),
            (std::vector<std::string>{"VIRTIO STATUS CHANGE: 0x0f -> 0x00", "VirtIO Driver: DEVICE RESET - reinitializing device",
                                      "VirtIO device reset [finished]", "VNet device 02:00.0: RESET detected - performing cleanup",
                                      "RESET: holding device_status=0x40 until controller cleanup completes",
                                      "RESET cleanup queued - ready for fresh start on FEATURES_OK"}));
  const auto cleanup = b.events.find("work_queued", {{"type", "PCI_CFG_WORK_CONTROLLER_CLEANUP"}}, m);
  ASSERT_EQ(cleanup.size(), 1u);
  EXPECT_EQ(cleanup[0]["gen"], 3);
  EXPECT_EQ(cleanup[0]["arg"], 0);  // destroy_engine false
  EXPECT_EQ(b.dev(0).reset_status_state, ResetStatusState::HELD);

  // While the cleanup is queued or running, the host reads 0x40.
  const Op held = b.host.mem_read(VnetBench::bar(0) + VIRTIO_PCI_COMMON_STATUS, 1);
  b.settle();
  EXPECT_EQ(held->value(), 0x40u);
  EXPECT_EQ(b.events.line_count("RESET: controller cleanup complete, reset hold release queued"), 1u);
  EXPECT_EQ(b.dev(0).reset_status_state, ResetStatusState::RELEASE_PENDING);
  EXPECT_EQ(b.dev(0).status(), 0x40);  // still, until the host touches the common config

  // The release comes before the read is served: the first read after the cleanup sees 0.
  m = b.events.mark();
  const Op released = b.host.mem_read(VnetBench::bar(0) + VIRTIO_PCI_COMMON_STATUS, 1);
  b.run_for(kMs);
  EXPECT_EQ(released->value(), 0x00u);
  EXPECT_EQ(b.events.lines("vnet.main", m), (std::vector<std::string>{"RESET: TLP thread released host-visible reset hold"}));
  EXPECT_EQ(b.dev(0).reset_status_state, ResetStatusState::IDLE);
}

TEST(StatusMachine, TheResetBarrierWaitsOnlyForARunningItemThatCarriesTheDevice) {
  VnetBench b(2, 0);
  b.probe({0, 1});
  const uint64_t wake = b.param(vnet::timing::worker_wakeup_ps), set_conf = b.param(vnet::timing::work_vq_set_conf_ps);

  // EP0's stats list is running (device-independent for the barrier): EP0's reset goes on.
  uint64_t t = b.now();
  size_t m = b.events.mark();
  ASSERT_TRUE(b.app.submit_work(vnet::WorkType::CREATE_STATS_LIST, 0));
  b.at(t + wake + 1, [&] { b.status(0, 0); });
  b.run_for(kMs);
  EXPECT_EQ(b.events.count("reset_barrier_wait", Json::object(), m), 0u);
  EXPECT_EQ(b.events.line_time("VirtIO device reset [finished]", m), t + wake + 1);
  b.settle();

  // EP1's control queue is being configured (VQ_CONFIG carries EP1): EP1's reset waits for it.
  const std::string configured = b.vq_configured_line(1, 16);  // what the driver programmed
  t = b.now();
  m = b.events.mark();
  ASSERT_TRUE(b.app.submit_work(vnet::WorkType::VQ_CONFIG, 1, b.cvq(1)));
  b.at(t + wake + kMs, [&] { b.status(1, 0); });
  b.run_for(10 * kMs);
  const auto started = b.events.find("work_started", {{"type", "PCI_CFG_WORK_VQ_CONFIG"}}, m);
  ASSERT_EQ(started.size(), 1u);
  EXPECT_EQ(started[0]["time_ps"].get<uint64_t>(), t + wake);
  const auto wait = b.events.find("reset_barrier_wait", Json::object(), m);
  ASSERT_EQ(wait.size(), 1u);
  EXPECT_EQ(wait[0]["ep"], 1);
  EXPECT_EQ(wait[0]["item"], started[0]["item"]);
  EXPECT_EQ(wait[0]["time_ps"].get<uint64_t>(), t + wake + kMs);
  EXPECT_EQ(b.events.line_time("VirtIO device reset [finished]", m), t + wake + set_conf);
  EXPECT_EQ(b.events.line_time(configured, m), t + wake + set_conf);
}

TEST(StatusMachine, AReadOnlyFieldInTheDwRollsTheWholeWriteBack) {
  VnetBench b(1, 0);
  const size_t m = b.events.mark();
  // Status 0x01 and config_generation 2 in one DW: the generation is read-only, so the status
  // byte goes too.
  b.app.primary().status().common_write(0, VIRTIO_PCI_COMMON_STATUS, 0x00000201, 0xf);
  // config_msix_vector 1 and num_queues 5.
  b.app.primary().status().common_write(0, VIRTIO_PCI_COMMON_MSIX, 0x00050001, 0xf);
  b.run_for(kUs);
  EXPECT_EQ(b.events.lines("", m), (std::vector<std::string>{"pci_cfg: attempt to overwrite RO field: ROLLBACK",
                                                             "pci_cfg: attempt to overwrite RO field: ROLLBACK"}));
  EXPECT_EQ(b.events.line_level("pci_cfg: attempt to overwrite RO field: ROLLBACK"), "error");
  EXPECT_EQ(b.dev(0).status(), 0x40);
  EXPECT_EQ(b.dev(0).config_generation(), 1);
  EXPECT_EQ(b.dev(0).config_msix_vector(), 0xffff);
  EXPECT_EQ(b.dev(0).num_queues(), 17);
}

TEST(StatusMachine, DeviceNeedsResetSetsTheBitAndRaisesTheConfigVector) {
  VnetBench b(1, 0);
  b.probe();
  b.common(0, VIRTIO_PCI_COMMON_MSIX, 2, 3);
  b.enable_msix(0, 3, 0xfee00000, 0x33);
  const size_t msis = b.host.rc.msis().size();

  b.app.primary().status().device_needs_reset(0, "VQ1: descriptor 0 has zero length");
  b.common(0, VIRTIO_PCI_COMMON_MSIX, 2, VIRTIO_MSI_NO_VECTOR);
  b.app.primary().status().device_needs_reset(0, "VQ0: descriptor 0 has zero length");
  b.settle();
  const auto ev = b.events.find("device_needs_reset");
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0], (Json{{"time_ps", ev[0]["time_ps"]}, {"path", "switch"}, {"event", "device_needs_reset"}, {"ep", 0},
                          {"reason", "VQ1: descriptor 0 has zero length"}, {"status", "0x4f"}, {"config_vector", 3},
                          {"msix", "sent"}}));
  EXPECT_EQ(ev[1]["config_vector"], 0xffff);
  EXPECT_EQ(ev[1]["msix"], "no_vector");
  EXPECT_EQ(b.dev(0).status(), 0x4f);
  ASSERT_EQ(b.host.rc.msis().size(), msis + 1);
  const host::MsiEvent& msi = b.host.rc.msis().back();
  EXPECT_EQ(msi.requester_id, 0x0200);
  EXPECT_EQ(msi.address, 0xfee00000u);
  EXPECT_EQ(msi.data, 0x33u);
}
