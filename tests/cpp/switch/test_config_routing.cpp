// Config requests through the generic switch (models/switch/pcie_switch.h; PCIe r5.0 §7.3.3,
// §7.5.1.3): Type 0 from above to the upstream port's own function, Type 1 on its secondary bus
// converted to Type 0 for the downstream port of that device number, Type 1 in a port's bus
// range converted at its secondary bus or forwarded below it, and everything else answered
// Unsupported Request by the dummy function, with the reason.
#include "switch_fixture.h"

using namespace dpusim;
using namespace dpusim::testing;
using tlp::Type;

namespace {

tlp::Header config0(uint16_t target) {
  tlp::Header h;
  h.type = Type::CfgRd0;
  h.target_id = target;
  return h;
}

std::vector<std::string> ur_reasons(EventRecord& ev, size_t from) {
  std::vector<std::string> out;
  for (const Json& e : ev.find("unsupported_request", {{"path", "switch.dummy"}}, from)) out.push_back(e["reason"]);
  return out;
}

}  // namespace

TEST(SwitchConfig, Type0ReachesTheUpstreamPortAndType1TheDownstreamPorts) {
  SwitchBench b({true, true});
  const size_t m = b.events.mark();
  const Op usp = b.host.cfg_read(0x0000, 0x00);
  const Op usp_fn1 = b.host.raw(config0(0x0001));
  const Op before_numbering = b.host.cfg_read(SwitchBench::dsp_bdf(0), 0x00);  // no bus 1 yet
  b.run_for(kUs * 100);
  EXPECT_EQ(usp->value(), 0x53501234u);
  EXPECT_EQ(usp_fn1->result.outcome, pcie::Outcome::UR);
  EXPECT_EQ(before_numbering->result.outcome, pcie::Outcome::UR);
  EXPECT_EQ(ur_reasons(b.events, m), (std::vector<std::string>{"no function at this device/function on the upstream link",
                                                               "bus outside the switch's bus range"}));

  b.enumerate();
  const size_t n = b.events.mark();
  const Op dsp1 = b.host.cfg_read(SwitchBench::dsp_bdf(1), 0x00);
  const Op dsp1_class = b.host.cfg_read(SwitchBench::dsp_bdf(1), 0x08);
  const Op dsp2 = b.host.cfg_read(SwitchBench::dsp_bdf(2), 0x00);
  const Op fn1 = b.host.cfg_read(uint16_t(SwitchBench::dsp_bdf(0) | 1), 0x00);
  b.run_for(kUs * 100);
  EXPECT_EQ(dsp1->value(), 0x53511234u);
  EXPECT_EQ(dsp1_class->value() >> 8, 0x060400u);  // a PCI-to-PCI bridge
  EXPECT_EQ(dsp2->result.outcome, pcie::Outcome::UR);
  EXPECT_EQ(fn1->result.outcome, pcie::Outcome::UR);
  EXPECT_EQ(ur_reasons(b.events, n), (std::vector<std::string>{"no function at this device/function on the internal bus",
                                                               "no function at this device/function on the internal bus"}));
  // The downstream port's function captured its routing ID from the converted Type 0 write.
  EXPECT_EQ(b.sw->dsp(1).id(), SwitchBench::dsp_bdf(1));
  EXPECT_EQ(b.sw->dsp(1).secondary(), 3);
  EXPECT_EQ(b.sw->dsp(1).subordinate(), 3);
}

TEST(SwitchConfig, Type1BelowAPortIsConvertedAtItsSecondaryBusOrForwarded) {
  SwitchBench b({true, true});
  b.enumerate();
  b.host.cfg_write(SwitchBench::dsp_bdf(1), pci::PCI_PRIMARY_BUS, 4, 0x00050301);  // port 1: buses 3..5
  b.host.cfg_write(0x0000, pci::PCI_PRIMARY_BUS, 4, 0x00050100);
  b.run_for(kMs);
  const size_t m = b.events.mark();
  const Op ep0 = b.host.cfg_read(0x0200, 0x00);
  const Op ep1 = b.host.cfg_read(0x0300, 0x04);
  const Op below1 = b.host.cfg_read(0x0500, 0x08);  // behind a bridge under port 1
  const Op dev1 = b.host.cfg_read(0x0208, 0x00);    // device 1 below port 0, ARI off
  const Op outside = b.host.cfg_read(0x0900, 0x00);
  b.run_for(kMs);

  EXPECT_EQ(ep0->value(), 0xc0de0000u);
  EXPECT_EQ(ep1->value(), 0xc0de0001u);
  EXPECT_EQ(below1->value(), 0xc0de0001u);
  EXPECT_EQ(dev1->result.outcome, pcie::Outcome::UR);
  EXPECT_EQ(outside->result.outcome, pcie::Outcome::UR);
  ASSERT_EQ(b.devices[0]->received.size(), 1u);
  EXPECT_EQ(b.devices[0]->received[0].h.type, Type::CfgRd0);  // converted
  EXPECT_EQ(b.devices[0]->received[0].h.target_id, 0x0200);
  ASSERT_EQ(b.devices[1]->received.size(), 2u);
  EXPECT_EQ(b.devices[1]->received[0].h.type, Type::CfgRd0);
  EXPECT_EQ(b.devices[1]->received[0].h.register_offset, 0x04);
  EXPECT_EQ(b.devices[1]->received[1].h.type, Type::CfgRd1);  // forwarded as it is
  EXPECT_EQ(b.devices[1]->received[1].h.target_id, 0x0500);
  EXPECT_EQ(ur_reasons(b.events, m), (std::vector<std::string>{"device number other than 0 below a downstream port",
                                                               "bus outside the switch's bus range"}));
  // The dummy's config UR names the request's target as completer.
  const auto cpl = b.host.of_type(Type::Cpl);
  ASSERT_GE(cpl.size(), 2u);
  EXPECT_EQ(cpl[cpl.size() - 2].h.completer_id, 0x0208);
  EXPECT_EQ(cpl.back().h.completer_id, 0x0900);
}

TEST(SwitchConfig, AriForwardingLetsDeviceNumbersThroughAndALinkDownIsUr) {
  SwitchBench b({true, false});
  b.enumerate();
  const uint16_t devctl2 = uint16_t(b.sw->dsp(0).pcie_cap() + pci::PCI_EXP_DEVCTL2);
  b.host.cfg_write(SwitchBench::dsp_bdf(0), devctl2, 2, pci::PCI_EXP_DEVCTL2_ARI);
  b.run_for(kMs);
  const size_t m = b.events.mark();
  const Op fn9 = b.host.cfg_read(0x0209, 0x00);  // ARI function 9
  const Op empty = b.host.cfg_read(0x0300, 0x00);  // port 1's slot is empty: its link is down
  const Op below_empty = b.host.cfg_read(SwitchBench::dsp_bdf(1), 0x00);
  b.run_for(kMs);
  EXPECT_EQ(fn9->value(), 0xc0de0000u);
  EXPECT_EQ(b.devices[0]->received.back().h.target_id, 0x0209);
  EXPECT_EQ(empty->result.outcome, pcie::Outcome::UR);
  EXPECT_EQ(below_empty->value(), 0x53511234u);  // the port itself answers
  EXPECT_EQ(ur_reasons(b.events, m), (std::vector<std::string>{"link down below the downstream port"}));
  EXPECT_TRUE(b.devices[1]->received.empty());
}

TEST(SwitchConfig, AConfigRequestFromBelowIsUrAndGoesBackDown) {
  SwitchBench b({true});
  b.enumerate();
  tlp::Header h = config0(0x0000);
  h.requester_id = 0x0200;
  h.tag = 5;
  b.devices[0]->send(h);
  b.run_for(kMs);
  const auto cpl = b.devices[0]->of_type(Type::Cpl);
  ASSERT_EQ(cpl.size(), 1u);
  EXPECT_EQ(cpl[0].h.status, tlp::CplStatus::UR);
  EXPECT_EQ(cpl[0].h.requester_id, 0x0200);
  EXPECT_EQ(cpl[0].h.tag, 5);
  EXPECT_EQ(b.events.find("unsupported_request").back()["reason"], "config request from below");
  EXPECT_EQ(b.sw->unsupported_requests, 1u);
}
