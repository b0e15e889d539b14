// The downstream ports' hot-plug slots as the application runs them (models/vnet/switch/slots.h; the
// DOCA guide's hotplug mode, PCIe r5.0 §7.5.3.10-11 for the registers): Slot Control's power
// edges (bit 10) and presence, Command Completed after every Slot Control write and its MSI,
// the worker's plug and unplug items with each rejection, the unplug's wait for the host's
// plug acknowledgement, the destroy after the host's Power OFF, and the forced removal when the
// host ignores an unplug for UNPLUG_TIMEOUT_SEC.
#include "vnet_fixture.h"

using namespace dpusim;
using namespace dpusim::testing;
using namespace dpusim::vnet::timing;

namespace {

constexpr uint16_t kHpie = pci::PCI_EXP_SLTCTL_HPIE, kPowerOff = pci::PCI_EXP_SLTCTL_PCC;

}  // namespace

TEST(Slots, PowerEdgesFollowBit10AndTheCardsPresence) {
  VnetBench b(1, 1);
  b.enumerate();
  size_t m = b.events.mark();
  b.slot_control(0, kHpie | kPowerOff);  // power stays off: no edge
  b.slot_control(0, kHpie);              // power on, but the slot is empty
  b.slot_control(0, kHpie | kPowerOff);  // power off
  b.run_for(kMs);
  EXPECT_EQ(b.events.lines("vnet.main", m),
            (std::vector<std::string>{"Command Completed: control=0x0420, status=0x0010",
                                      "Command Completed: control=0x0020, status=0x0010",
                                      "Power OFF (bit10: 0->1): DLActive cleared, link_status=0x1104",
                                      "Command Completed: control=0x0420, status=0x0010"}));

  m = b.events.mark();
  const uint64_t plug = b.app.command("plug 0");
  b.settle();
  EXPECT_EQ(b.command_result(plug)["outcome"], "OK");
  EXPECT_TRUE(b.ctl(0).device_present);
  Op regs = b.slot_registers(0);
  b.run_for(kMs);
  EXPECT_EQ(regs->value(), 0x00590420u);  // ABP, PDC, PDS and CC; power still off
  const std::vector<std::string> worker = b.events.lines(vnet::kWorkerThread, m);
  for (const char* line : {"Device plugged (ABP mode): ABP=1, PDC=1, PDS=1, DLActive=0",
                           "DSP Slot Status updated: present=1, status=0x0059, link_status=0x1104",
                           "DSP[0] plug: MSI not sent (DOCA_ERROR_BAD_STATE) - host will poll Slot Status",
                           "Hotplug: DSP[0] plug"})
    EXPECT_NE(std::find(worker.begin(), worker.end(), line), worker.end()) << line;
  EXPECT_FALSE(b.dsp_link(0).up());

  m = b.events.mark();
  b.slot_control(0, kHpie);  // power on with a card: DLActive, the link up
  b.host.cfg_write(VnetBench::dsp_bdf(0), vnet::TLP_BRIDGE_EXP_CAP + pci::PCI_EXP_SLTSTA, 2, 0x0059);  // W1C
  regs = b.slot_registers(0);
  const Op link = b.host.cfg_read(VnetBench::dsp_bdf(0), vnet::TLP_BRIDGE_EXP_CAP + pci::PCI_EXP_LNKSTA, 2);
  b.run_for(kMs);
  EXPECT_EQ(regs->value(), 0x00000020u);
  EXPECT_EQ(link->value(), 0x3104u);
  EXPECT_TRUE(b.dsp_link(0).up());
  b.slot_control(0, kHpie | kPowerOff);  // power off: no pending unplug, so no destroy
  b.run_for(kMs);
  EXPECT_EQ(b.events.lines("vnet.main", m),
            (std::vector<std::string>{"Power ON (bit10: 1->0): DLActive set, link_status=0x3104",
                                      "Command Completed: control=0x0020, status=0x0059",
                                      "Slot Status W1C: cleared bits 0x0059, new status=0x0000",
                                      "Power OFF (bit10: 0->1): DLActive cleared, link_status=0x1104",
                                      "Command Completed: control=0x0420, status=0x0010"}));
  EXPECT_FALSE(b.dsp_link(0).up());
  EXPECT_TRUE(b.ctl(0).device_present);
}

TEST(Slots, CommandCompletedSendsThePortsMsiWhenCcieIsSet) {
  VnetBench b(1, 1);
  b.enumerate();
  b.enable_dsp_msi(0, 0xfee00000, 0x41);
  const size_t m = b.events.mark();
  b.slot_control(0, pci::PCI_EXP_SLTCTL_CCIE | kPowerOff);
  b.slot_control(0, kPowerOff);  // CCIE clear: Command Completed without an interrupt
  b.run_for(kMs);
  EXPECT_EQ(b.events.line_count("Command Completed MSI sent", m), 1u);
  ASSERT_EQ(b.host.rc.msis().size(), 1u);
  EXPECT_EQ(b.host.rc.msis()[0].requester_id, 0x0100);
  EXPECT_EQ(b.host.rc.msis()[0].address, 0xfee00000u);
  EXPECT_EQ(b.host.rc.msis()[0].data, 0x41u);
  EXPECT_EQ(b.events.line_count("Command Completed: control=0x0400, status=0x0010", m), 1u);
}

TEST(Slots, PlugAndUnplugItemsAndEachRejection) {
  VnetBench b(2, 1);
  b.enumerate();
  auto run = [&](const std::string& line) {
    const uint64_t id = b.app.command(line);
    b.run_for(3 * kSec);  // the longest item: an unplug waiting 2 s for a plug acknowledgement
    return b.command_result(id);
  };
  auto outcome = [&](const std::string& line) { return run(line)["outcome"].get<std::string>(); };
  // HPIE clear: an empty slot's plug is transient (the host may be powering off), an unplug
  // unsupported.
  Json r = run("plug 0");
  EXPECT_EQ(r["outcome"], "AGAIN");
  EXPECT_EQ(r["lines"].back(), (Json{{"level", "warning"}, {"msg", "Async hotplug DSP[0] plug: transient, retry later"},
                                     {"path", "vnet.worker"}}));
  EXPECT_EQ(outcome("unplug 0"), "NOT_SUPPORTED");
  EXPECT_EQ(b.events.line_count("HP interrupt not enabled for DSP[0], hotplug not supported"), 1u);
  EXPECT_EQ(b.events.line_count("Async hotplug failed: DOCA_ERROR_NOT_SUPPORTED"), 1u);

  b.slot_control(0, kHpie | kPowerOff);
  b.slot_control(1, kHpie | kPowerOff);
  b.run_for(kMs);
  // A DSP index past the last (the command line checks it first; the item checks it again).
  ASSERT_TRUE(b.app.submit_work(vnet::WorkType::HOTPLUG_EVENT, -1, 5, 1));
  b.run_for(kSec);
  EXPECT_EQ(b.events.line_count("Invalid DSP index: 5 (max: 1)"), 1u);
  EXPECT_EQ(b.events.line_count("Async hotplug failed: DOCA_ERROR_INVALID_VALUE"), 1u);
  EXPECT_EQ(outcome("unplug 1"), "NOT_FOUND");
  EXPECT_EQ(b.events.line_count("DSP[1] has no device, cannot unplug"), 1u);
  EXPECT_EQ(outcome("plug 0"), "OK");
  EXPECT_EQ(outcome("plug 0"), "ALREADY_EXIST");
  EXPECT_EQ(b.events.line_count("DSP[0] already has device, cannot plug again"), 1u);
  // The host never powered the slot on: the unplug proceeds after 2000 polls of 1 ms.
  r = run("unplug 0");
  EXPECT_EQ(r["outcome"], "OK");
  EXPECT_EQ(b.events.line_count("DSP[0] unplug: host did not ACK plug within 2000ms (DLActive=0); proceeding - "
                                "UNPLUG_TIMEOUT_SEC safety net will force-destroy if host also ignores ABP"),
            1u);
  EXPECT_TRUE(b.ctl(0).pending_unplug);
  EXPECT_EQ(outcome("unplug 0"), "IN_PROGRESS");
  EXPECT_EQ(b.events.line_count("DSP[0] already pending unplug"), 1u);
  EXPECT_EQ(outcome("plug 0"), "IN_PROGRESS");
  EXPECT_EQ(b.events.line_count("DSP[0] plug rejected: unplug still in progress"), 1u);
  // HPIE clear on an occupied slot: not supported (not transient).
  EXPECT_EQ(outcome("plug 1"), "OK");
  b.slot_control(1, kPowerOff);
  b.run_for(kMs);
  EXPECT_EQ(outcome("plug 1"), "NOT_SUPPORTED");
  EXPECT_EQ(b.events.line_count("HP interrupt not enabled for DSP[1], hotplug not supported"), 1u);
}

TEST(Slots, AnUnplugWaitsForThePlugAckAndThePowerOffDestroysTheEndpoint) {
  VnetBench b(1, 1);
  b.enumerate();
  b.slot_control(0, kHpie | kPowerOff);
  b.run_for(kMs);
  const uint64_t t0 = b.now();
  b.app.command("plug 0");
  const uint64_t unplug = b.app.command("unplug 0");  // queued right behind the plug
  // The unplug item starts once the plug's create_device and the worker's PE progress are done.
  const uint64_t u = t0 + b.param(worker_wakeup_ps) + b.param(work_create_device_ps) + b.param(worker_progress_ps);
  b.at(u + 5 * kMs, [&] { b.slot_control(0, kHpie); });  // the host powers the slot on 5 ms in
  b.run_to(u + 10 * kMs);
  const auto started = b.events.find("work_started", {{"type", "PCI_CFG_WORK_HOTPLUG_EVENT"}});
  ASSERT_EQ(started.size(), 2u);  // the plug, then the unplug
  EXPECT_EQ(started[1]["time_ps"].get<uint64_t>(), u);
  // DLActive polled at u, u+1 ms, ...: first seen at u+6 ms.
  EXPECT_EQ(b.events.line_time("DSP[0] unplug: waited 6ms for host plug-ack"), u + 6 * kMs);
  EXPECT_EQ(b.events.line_time("Initiating unplug for DSP[0] - waiting for host power off"), u + 6 * kMs);
  EXPECT_EQ(b.events.line_time("Device unplugged (ABP mode): ABP=1, waiting for Host Power OFF"), u + 6 * kMs);
  EXPECT_EQ(b.command_result(unplug)["outcome"], "OK");
  EXPECT_TRUE(b.ctl(0).pending_unplug);

  // The host's Power OFF queues the destroy.
  const size_t m = b.events.mark();
  b.slot_control(0, kHpie | kPowerOff);
  b.run_for(5 * kSec);
  EXPECT_EQ(b.events.lines("vnet.main", m).at(0), "Power OFF (bit10: 0->1): DLActive cleared, link_status=0x1104");
  EXPECT_EQ(b.events.line_count("DSP[0] power off (DLActive=0) - triggering endpoint destroy", m), 1u);
  EXPECT_EQ(b.events.line_count("Delayed device destroy queued", m), 1u);
  const auto destroy = b.events.find("work_started", {{"type", "PCI_CFG_WORK_DELAYED_DESTROY"}}, m);
  ASSERT_EQ(destroy.size(), 1u);
  const uint64_t d = destroy[0]["time_ps"];
  EXPECT_EQ(b.events.line_time("Executing delayed destroy after host reset", m), d);
  EXPECT_EQ(b.events.line_time("Beginning device shutdown (vqs_initialized=0, engine_started=0, engine_enabled=0)...", m), d);
  EXPECT_EQ(b.events.line_time("Cleanup Step 6: Destroying offload engine...", m), d);
  const uint64_t destroyed = d + b.param(work_engine_destroy_ps);
  EXPECT_EQ(b.events.line_time("VNet controller destroyed successfully", m), destroyed);
  EXPECT_EQ(b.events.line_time("Device destroyed successfully (delayed)", m), destroyed + b.param(work_destroy_device_ps));
  EXPECT_EQ(b.events.find("device_present", {{"present", false}}, m).at(0)["time_ps"].get<uint64_t>(), d);
  EXPECT_FALSE(b.ctl(0).device_present || b.ctl(0).pending_unplug || b.ctl(0).pending_destroy);
  // A graceful unplug leaves Presence Detect State set.
  const Op regs = b.slot_registers(0);
  const Op cfg = b.host.cfg_read(VnetBench::ep_bdf(0), 0);
  b.run_for(kMs);
  EXPECT_EQ(regs->value() >> 16 & pci::PCI_EXP_SLTSTA_PDS, pci::PCI_EXP_SLTSTA_PDS);
  EXPECT_EQ(cfg->result.outcome, pcie::Outcome::UR);
}

TEST(Slots, AnUnplugTheHostIgnoresIsForcedOnTheAppsThirtiethWholeSecond) {
  VnetBench b(1, 1);
  b.enumerate();
  b.enable_dsp_msi(0, 0xfee00000, 0x41);
  b.slot_control(0, kHpie | kPowerOff);
  b.app.command("plug 0");
  b.run_for(kSec);
  b.slot_control(0, kHpie);  // the host powers the slot on and never acts on the unplug
  b.run_for(kMs);
  b.app.command("unplug 0");
  b.run_for(kSec);
  const uint64_t start = b.events.line_time("Initiating unplug for DSP[0] - waiting for host power off");
  ASSERT_EQ(b.host.rc.msis().size(), 2u);  // the plug's and the unplug's
  const size_t m = b.events.mark();
  b.run_to(start + 31 * kSec);

  const std::vector<std::string> want{"DSP[0] unplug timeout (30s) - forcing device removal from DPU",
                                      "Forced VirtIO RESET on pf_index=0 (device_status=0)", "Delayed device destroy queued",
                                      "DSP[0] forced unplug: delayed_destroy submitted"};
  const auto main_lines = b.events.find("log", {{"path", "vnet.main"}}, m);
  ASSERT_GE(main_lines.size(), want.size());
  for (size_t k = 0; k < want.size(); ++k) {
    EXPECT_EQ(main_lines[k]["msg"], want[k]);
    EXPECT_EQ(main_lines[k]["time_ps"].get<uint64_t>(), (start / kSec + 30) * kSec);  // whole seconds
  }
  EXPECT_EQ(b.events.line_level(want[0]), "warning");
  EXPECT_EQ(b.host.rc.msis().size(), 2u);  // the forced removal sends none
  const Op regs = b.slot_registers(0);
  const Op link = b.host.cfg_read(VnetBench::dsp_bdf(0), vnet::TLP_BRIDGE_EXP_CAP + pci::PCI_EXP_LNKSTA, 2);
  b.run_for(kMs);
  // PDS cleared, PDC set (ABP and PDC of the plug, ABP of the unplug were never cleared).
  EXPECT_EQ(regs->value() >> 16, uint32_t(pci::PCI_EXP_SLTSTA_ABP | pci::PCI_EXP_SLTSTA_PDC | pci::PCI_EXP_SLTSTA_CC));
  EXPECT_EQ(link->value(), 0x1104u);
  EXPECT_FALSE(b.ctl(0).device_present);
  EXPECT_FALSE(b.dsp_link(0).up());
}
