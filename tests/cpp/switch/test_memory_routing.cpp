// Memory requests and completions through the generic switch (models/switch/pcie_switch.h;
// PCIe r5.0 §7.5.1.3 Memory Space and Bus Master Enable, §7.5.1.3.9-12 the windows, §2.3.2
// Unexpected Completions): down through the port whose window claims the address, up or to a
// peer from below, completions by their requester's bus; what nothing claims gets UR if it is
// non-posted and is dropped and counted if it is posted.
#include "switch_fixture.h"

using namespace dpusim;
using namespace dpusim::testing;
using tlp::Type;

namespace {

std::vector<std::string> reasons(EventRecord& ev, const std::string& event, size_t from) {
  std::vector<std::string> out;
  for (const Json& e : ev.find(event, {{"path", "switch.dummy"}}, from)) out.push_back(e["reason"]);
  return out;
}

tlp::Header mwr(uint16_t requester, uint64_t address) {
  tlp::Header h;
  h.type = Type::MWr;
  h.requester_id = requester;
  h.address = address;
  return h;
}

}  // namespace

TEST(SwitchMemory, DownTheClaimingWindowWithMemorySpaceEnabledOnTheWay) {
  SwitchBench b({true, true});
  b.enumerate();
  b.command(false, false);
  const uint64_t a0 = SwitchBench::window(0) + 0x10;
  size_t m = b.events.mark();
  const Op off = b.host.mem_read(a0, 4);
  b.run_for(kMs);
  b.host.cfg_write(0x0000, pci::PCI_COMMAND, 2, pci::PCI_COMMAND_MEMORY);
  b.run_for(kMs);
  const Op port_off = b.host.mem_read(a0, 4);
  b.run_for(kMs);
  b.host.cfg_write(SwitchBench::dsp_bdf(0), pci::PCI_COMMAND, 2, pci::PCI_COMMAND_MEMORY);
  b.run_for(kMs);
  const Op on = b.host.mem_read(a0, 4);
  const Op nowhere = b.host.mem_read(0xd0000000, 4);
  b.host.mem_write32(0xd0000000, 1);
  b.host.mem_write32(SwitchBench::window(0) + 0x20, 0x12345678);
  b.run_for(kMs);

  EXPECT_EQ(off->result.outcome, pcie::Outcome::UR);
  EXPECT_EQ(port_off->result.outcome, pcie::Outcome::UR);
  EXPECT_EQ(on->value(), 0xa3a2a1a0u);
  EXPECT_EQ(nowhere->result.outcome, pcie::Outcome::UR);
  EXPECT_EQ(reasons(b.events, "unsupported_request", m),
            (std::vector<std::string>{"memory space disabled on the upstream port", "memory space disabled on the downstream port",
                                      "address in no downstream port's window"}));
  EXPECT_EQ(reasons(b.events, "posted_dropped", m), (std::vector<std::string>{"address in no downstream port's window"}));
  EXPECT_EQ(b.sw->posted_dropped, 1u);
  // A memory UR's completer is the upstream port's own ID.
  EXPECT_EQ(b.host.of_type(Type::Cpl).back().h.completer_id, 0x0000);
  const auto at0 = b.devices[0]->received;
  ASSERT_EQ(at0.size(), 2u);
  EXPECT_EQ(at0[0].h.type, Type::MRd);
  EXPECT_EQ(at0[0].h.address, a0);
  EXPECT_EQ(at0[1].h.type, Type::MWr);
  EXPECT_EQ(at0[1].data, (std::vector<uint8_t>{0x78, 0x56, 0x34, 0x12}));
  EXPECT_TRUE(b.devices[1]->received.empty());
}

TEST(SwitchMemory, APrefetchableWindowAbove4GiBClaimsToo) {
  SwitchBench b({true, true});
  b.enumerate();
  // Port 1: 0x40_0000_0000..0x40_000F_FFFF (the 64-bit prefetchable window).
  b.host.cfg_write(SwitchBench::dsp_bdf(1), pci::PCI_PREF_MEMORY_BASE, 4, 0x00010001);
  b.host.cfg_write(SwitchBench::dsp_bdf(1), pci::PCI_PREF_BASE_UPPER32, 4, 0x40);
  b.host.cfg_write(SwitchBench::dsp_bdf(1), pci::PCI_PREF_LIMIT_UPPER32, 4, 0x40);
  const Op in = b.host.mem_read(0x40000ffffcull, 4);
  const Op past = b.host.mem_read(0x4000100000ull, 4);
  b.run_for(kMs);
  EXPECT_EQ(in->value(), 0xa3a2a1a0u);
  EXPECT_EQ(past->result.outcome, pcie::Outcome::UR);
  ASSERT_EQ(b.devices[1]->received.size(), 1u);
  EXPECT_EQ(b.devices[1]->received[0].h.address, 0x40000ffffcull);
}

TEST(SwitchMemory, UpOrToAPeerWithBusMasterEnabledOnTheWay) {
  SwitchBench b({true, true});
  b.enumerate();
  b.command(true, false);
  const size_t m = b.events.mark();
  b.devices[0]->send(mwr(0x0200, 0xfee00000), {0x31, 0, 0, 0});  // an MSI: port 0's BME off
  b.run_for(kMs);
  b.host.cfg_write(SwitchBench::dsp_bdf(0), pci::PCI_COMMAND, 2, pci::PCI_COMMAND_MEMORY | pci::PCI_COMMAND_MASTER);
  b.run_for(kMs);
  b.devices[0]->send(mwr(0x0200, 0xfee00000), {0x32, 0, 0, 0});  // the USP's BME off
  b.run_for(kMs);
  b.host.cfg_write(0x0000, pci::PCI_COMMAND, 2, pci::PCI_COMMAND_MEMORY | pci::PCI_COMMAND_MASTER);
  b.run_for(kMs);
  b.devices[0]->send(mwr(0x0200, 0xfee00000), {0x33, 0, 0, 0});
  b.devices[0]->send(mwr(0x0200, SwitchBench::window(1) + 0x40), {1, 2, 3, 4});  // peer to peer
  tlp::Header own = mwr(0x0200, SwitchBench::window(0));
  own.type = Type::MRd;
  own.tag = 7;
  b.devices[0]->send(own);  // its own window: not for the switch to send back down
  b.run_for(kMs);

  EXPECT_EQ(reasons(b.events, "posted_dropped", m), (std::vector<std::string>{"bus master disabled on the ingress downstream port",
                                                                              "bus master disabled on the upstream port"}));
  ASSERT_EQ(b.host.rc.msis().size(), 1u);
  EXPECT_EQ(b.host.rc.msis()[0].data, 0x33u);
  EXPECT_EQ(b.host.rc.msis()[0].requester_id, 0x0200);
  ASSERT_EQ(b.devices[1]->of_type(Type::MWr).size(), 1u);
  EXPECT_EQ(b.devices[1]->of_type(Type::MWr)[0].data, (std::vector<uint8_t>{1, 2, 3, 4}));
  EXPECT_EQ(reasons(b.events, "unsupported_request", m), (std::vector<std::string>{"address inside the ingress port's own window"}));
  const auto cpl = b.devices[0]->of_type(Type::Cpl);
  ASSERT_EQ(cpl.size(), 1u);
  EXPECT_EQ(cpl[0].h.status, tlp::CplStatus::UR);
  EXPECT_EQ(cpl[0].h.tag, 7);
}

TEST(SwitchMemory, CompletionsFollowTheirRequestersBus) {
  SwitchBench b({true, true, false});
  b.enumerate();
  // A DMA read of host memory: its completion comes back down to the requester's port.
  const uint64_t buf = b.host.rc.memory.alloc(64, 64);
  const uint8_t bytes[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  b.host.rc.memory.write(buf, bytes, 8);
  tlp::Header rd = mwr(0x0300, buf);
  rd.type = Type::MRd;
  rd.length_dw = 2;
  rd.last_be = 0xf;
  rd.tag = 3;
  b.devices[1]->send(rd);
  b.run_for(kMs);
  const auto back = b.devices[1]->of_type(Type::CplD);
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].data, std::vector<uint8_t>(bytes, bytes + 8));
  EXPECT_EQ(back[0].h.tag, 3);

  const size_t m = b.events.mark();
  auto cpl = [](uint16_t requester) {
    tlp::Header h;
    h.type = Type::Cpl;
    h.requester_id = requester;
    h.completer_id = 0x0300;
    h.byte_count = 4;
    return h;
  };
  b.devices[1]->send(cpl(0x0200));  // for port 0's device: peer completion
  b.devices[0]->send(cpl(0x0200));  // for a requester below the port it came from
  b.devices[0]->send(cpl(0x0100));  // for the switch's own bus
  b.devices[0]->send(cpl(0x0400));  // for port 2's bus: its link is down
  b.run_for(kMs);
  b.host.raw(cpl(0x0900));  // from above, for no port's bus
  b.run_for(kMs);
  ASSERT_EQ(b.devices[0]->of_type(Type::Cpl).size(), 1u);
  EXPECT_EQ(b.devices[0]->of_type(Type::Cpl)[0].h.completer_id, 0x0300);
  EXPECT_EQ(reasons(b.events, "unexpected_completion", m),
            (std::vector<std::string>{"requester below the port the completion came from",
                                      "the switch's own functions issue no requests",
                                      "link down below the requester's downstream port", "requester bus below no downstream port"}));
  EXPECT_TRUE(b.devices[2]->received.empty());
}
