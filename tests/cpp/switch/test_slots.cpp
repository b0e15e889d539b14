// The generic switch's hot-plug slots (models/switch/downstream_port.h; PCIe r5.0 §7.5.3.9-11
// Slot Capabilities, Control and Status, §6.7.3.4 the hot-plug interrupt): cold-plug state, the
// power controller (power on trains the link after slot.link_train_ps, power off takes it down
// at once, each Data Link Layer change recorded), Command Completed after every Slot Control
// write, and the port's MSI on the rising edge of HPIE && an enabled event.
#include "switch_fixture.h"

using namespace dpusim;
using namespace dpusim::testing;
using namespace dpusim::pci;

namespace {

uint16_t slot_ctl(SwitchBench& b, unsigned i) { return uint16_t(b.sw->dsp(i).pcie_cap() + PCI_EXP_SLTCTL); }
uint16_t slot_sta(SwitchBench& b, unsigned i) { return uint16_t(b.sw->dsp(i).pcie_cap() + PCI_EXP_SLTSTA); }

// When the switch acted on the last config request the host sent: its arrival there.
uint64_t last_arrival(SwitchBench& b, size_t from) {
  return b.events.find("tlp", {{"path", "link_host"}, {"dir", "down"}}, from).back()["rx_ps"];
}

}  // namespace

TEST(SwitchSlots, AnOccupiedSlotStartsPoweredWithItsLinkUpAnEmptyOnePoweredOff) {
  SwitchBench b({true, false});
  b.enumerate();
  const Op slot0 = b.host.cfg_read(SwitchBench::dsp_bdf(0), slot_ctl(b, 0), 4);
  const Op slot1 = b.host.cfg_read(SwitchBench::dsp_bdf(1), slot_ctl(b, 1), 4);
  const Op link0 = b.host.cfg_read(SwitchBench::dsp_bdf(0), uint16_t(b.sw->dsp(0).pcie_cap() + PCI_EXP_LNKSTA), 2);
  const Op link1 = b.host.cfg_read(SwitchBench::dsp_bdf(1), uint16_t(b.sw->dsp(1).pcie_cap() + PCI_EXP_LNKSTA), 2);
  b.run_for(kMs);
  EXPECT_EQ(slot0->value(), uint32_t(PCI_EXP_SLTSTA_PDS) << 16);
  EXPECT_EQ(slot1->value(), uint32_t(PCI_EXP_SLTCTL_PCC));
  const unsigned gen = b.link(0).gen(), width = b.link(0).width();
  EXPECT_EQ(link0->value(), PCI_EXP_LNKSTA_DLLLA | width << 4 | gen);
  EXPECT_EQ(link1->value(), 0u);  // no link: no width, no speed
  EXPECT_TRUE(b.link(0).up());
  EXPECT_FALSE(b.link(1).up());
}

TEST(SwitchSlots, ThePowerControllerTrainsTheLinkAndEveryWriteCompletesACommand) {
  SwitchBench b({true});
  b.enumerate();
  const uint16_t bdf = SwitchBench::dsp_bdf(0);
  size_t m = b.events.mark();
  b.host.cfg_write(bdf, slot_ctl(b, 0), 2, PCI_EXP_SLTCTL_PCC);  // power off: down at once
  b.run_for(kMs);
  const uint64_t off = last_arrival(b, m);
  auto link_events = [&](size_t from) { return b.events.find("link_state", {{"path", "link_dsp0"}}, from); };
  ASSERT_EQ(link_events(m).size(), 1u);
  EXPECT_EQ(link_events(m)[0]["up"], false);
  EXPECT_EQ(link_events(m)[0]["time_ps"].get<uint64_t>(), off);
  EXPECT_EQ(b.sw->dsp(0).slot_status(), PCI_EXP_SLTSTA_PDS | PCI_EXP_SLTSTA_CC | PCI_EXP_SLTSTA_DLLSC);
  const auto ctl = b.events.find("slot_control", {{"path", "switch.dsp0"}}, m);
  ASSERT_EQ(ctl.size(), 1u);
  EXPECT_EQ(ctl[0]["before"], "0x0");
  EXPECT_EQ(ctl[0]["after"], "0x400");
  const Op down = b.host.cfg_read(bdf, uint16_t(b.sw->dsp(0).pcie_cap() + PCI_EXP_LNKSTA), 2);
  b.run_for(kMs);
  EXPECT_EQ(down->value(), 0u);

  // Events cleared (write 1 to clear); power on, and off again before the link trained: it
  // never comes up. Then on for good: up slot.link_train_ps later.
  b.host.cfg_write(bdf, slot_sta(b, 0), 2, PCI_EXP_SLTSTA_CC | PCI_EXP_SLTSTA_DLLSC);
  b.host.cfg_write(bdf, slot_ctl(b, 0), 2, 0);
  b.host.cfg_write(bdf, slot_ctl(b, 0), 2, PCI_EXP_SLTCTL_PCC);
  b.run_for(20 * kMs);
  EXPECT_FALSE(b.link(0).up());
  m = b.events.mark();
  b.host.cfg_write(bdf, slot_ctl(b, 0), 2, 0);
  b.run_for(kMs);
  const uint64_t on = last_arrival(b, m);
  EXPECT_FALSE(b.link(0).up());
  b.run_for(20 * kMs);
  ASSERT_EQ(link_events(m).size(), 1u);
  EXPECT_EQ(link_events(m)[0]["up"], true);
  EXPECT_EQ(link_events(m)[0]["time_ps"].get<uint64_t>(), on + b.ctx.timing.get(sw::timing::slot_link_train_ps));
  EXPECT_EQ(b.sw->dsp(0).slot_status(), PCI_EXP_SLTSTA_PDS | PCI_EXP_SLTSTA_CC | PCI_EXP_SLTSTA_DLLSC);
  EXPECT_TRUE(b.sw->dsp(0).trace_dllla);
  const Op link = b.host.cfg_read(bdf, uint16_t(b.sw->dsp(0).pcie_cap() + PCI_EXP_LNKSTA), 2);
  b.run_for(kMs);
  EXPECT_EQ(link->value(), PCI_EXP_LNKSTA_DLLLA | b.link(0).width() << 4 | b.link(0).gen());
}

TEST(SwitchSlots, TheHotPlugMsiGoesOutOnTheRisingEdgeOfAnEnabledEvent) {
  SwitchBench b({true});
  b.enumerate();
  const uint16_t bdf = SwitchBench::dsp_bdf(0);
  const uint16_t msi = b.sw->dsp(0).cfg.find_capability(PCI_CAP_ID_MSI);
  b.host.cfg_write(bdf, msi + PCI_MSI_ADDRESS_LO, 4, 0xfee00000);
  b.host.cfg_write(bdf, msi + PCI_MSI_DATA_64, 2, 0x55);
  b.host.cfg_write(bdf, msi + PCI_MSI_FLAGS, 2, PCI_MSI_FLAGS_ENABLE);
  b.run_for(kMs);
  const uint16_t enable = PCI_EXP_SLTCTL_HPIE | PCI_EXP_SLTCTL_CCIE;
  const size_t m = b.events.mark();
  b.host.cfg_write(bdf, slot_ctl(b, 0), 2, enable);  // Command Completed: the edge
  b.host.cfg_write(bdf, slot_ctl(b, 0), 2, enable);  // still set: no edge
  b.run_for(kMs);
  EXPECT_EQ(b.host.rc.msis().size(), 1u);
  b.host.cfg_write(bdf, slot_sta(b, 0), 2, PCI_EXP_SLTSTA_CC);  // cleared: re-armed
  b.host.cfg_write(bdf, slot_ctl(b, 0), 2, enable);
  b.run_for(kMs);
  ASSERT_EQ(b.host.rc.msis().size(), 2u);
  for (const host::MsiEvent& e : b.host.rc.msis()) {
    EXPECT_EQ(e.requester_id, bdf);
    EXPECT_EQ(e.address, 0xfee00000u);
    EXPECT_EQ(e.data, 0x55u);
  }
  const auto sent = b.events.find("msi_send", {{"path", "switch.dsp0"}}, m);
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(sent[0]["addr"], "0xfee00000");
  EXPECT_EQ(sent[0]["data"], "0x55");

  // An event that is not enabled raises nothing: DLLSC without DLLSCE.
  b.host.cfg_write(bdf, slot_sta(b, 0), 2, PCI_EXP_SLTSTA_CC);
  b.run_for(kMs);
  const size_t n = b.events.mark();
  b.host.cfg_write(bdf, slot_ctl(b, 0), 2, PCI_EXP_SLTCTL_HPIE | PCI_EXP_SLTCTL_PCC);  // power off: DLLSC, CC
  b.run_for(kMs);
  EXPECT_EQ(b.sw->dsp(0).slot_status() & PCI_EXP_SLTSTA_DLLSC, PCI_EXP_SLTSTA_DLLSC);
  EXPECT_EQ(b.events.count("msi_send", Json::object(), n), 0u);

  // MSI off, Bus Master off: suppressed, and said why.
  b.host.cfg_write(bdf, slot_sta(b, 0), 2, 0xffff);
  b.host.cfg_write(bdf, msi + PCI_MSI_FLAGS, 2, 0);
  b.host.cfg_write(bdf, slot_ctl(b, 0), 2, enable);
  b.host.cfg_write(bdf, slot_sta(b, 0), 2, 0xffff);
  b.host.cfg_write(bdf, msi + PCI_MSI_FLAGS, 2, PCI_MSI_FLAGS_ENABLE);
  b.host.cfg_write(bdf, PCI_COMMAND, 2, PCI_COMMAND_MEMORY);
  b.host.cfg_write(bdf, slot_ctl(b, 0), 2, enable);
  b.run_for(kMs);
  const auto suppressed = b.events.find("msi_suppressed", {{"path", "switch.dsp0"}}, n);
  ASSERT_EQ(suppressed.size(), 2u);
  EXPECT_EQ(suppressed[0]["reason"], "MSI disabled");
  EXPECT_EQ(suppressed[1]["reason"], "bus master disabled");
  EXPECT_EQ(b.host.rc.msis().size(), 2u);
}
