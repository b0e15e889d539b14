// PE1, the application's TLP server (models/vnet/app/pe1.h): config requests routed by the BDF
// cache and the slow path (the DOCA guide's switch emulation: Type 0 at any bus reaches the
// USP, Type 1 on the USP's secondary bus the DSP of that device number, a DSP's secondary bus
// its endpoint), bus renumbering, the dummy function's Unsupported Request, the endpoint BAR0's
// MMIO read and write rules, and the server itself: one FIFO, each TLP served after its cost,
// arrival to completion bounded by vnet.pe1.bound_ps.
#include "vnet_fixture.h"

using namespace dpusim;
using namespace dpusim::testing;
using tlp::Type;

namespace {

tlp::Header request(Type type, uint64_t address, uint16_t length_dw, uint8_t first_be = 0xf, uint8_t last_be = 0) {
  tlp::Header h;
  h.type = type;
  h.address = address;
  h.length_dw = length_dw;
  h.first_be = first_be;
  h.last_be = length_dw > 1 ? last_be : 0;
  return h;
}

tlp::Header config0(Type type, uint16_t target, uint16_t reg = 0) {
  tlp::Header h;
  h.type = type;
  h.target_id = target;
  h.register_offset = reg;
  return h;
}

}  // namespace

TEST(Pe1, ConfigRequestsFollowTheBdfCacheAndTheSlowPath) {
  VnetBench b(2, 0);
  b.enumerate();
  const size_t before = b.host.received.size();
  const Op ep0 = b.host.cfg_read(VnetBench::ep_bdf(0), 0x00);
  const Op ep0_again = b.host.cfg_read(VnetBench::ep_bdf(0), 0x00);
  const Op ep1_class = b.host.cfg_read(VnetBench::ep_bdf(1), 0x08);
  const Op dsp1 = b.host.cfg_read(VnetBench::dsp_bdf(1), 0x00);
  const Op usp_at_bus5 = b.host.raw(config0(Type::CfgRd0, 0x0500));  // Type 0: the USP at any bus
  const Op usp_fn1 = b.host.raw(config0(Type::CfgRd0, 0x0001));       // ... but only 0.0
  const Op no_dsp2 = b.host.cfg_read(VnetBench::dsp_bdf(2), 0x00);     // device 2 of 2 DSPs
  const Op ep0_dev1 = b.host.cfg_read(0x0208, 0x00);                   // device 1 below DSP0
  const Op far_bus = b.host.cfg_read(0x0900, 0x00);                    // no secondary is 9
  b.run_for(kMs);

  EXPECT_EQ(ep0->value(), 0x10411af4u);
  EXPECT_EQ(ep0_again->value(), 0x10411af4u);
  EXPECT_EQ(ep1_class->value(), 0x02000001u);
  EXPECT_EQ(dsp1->value(), 0x10f11af4u);
  EXPECT_EQ(usp_at_bus5->value(), 0x10f11af4u);
  for (const Op& ur : {usp_fn1, no_dsp2, ep0_dev1, far_bus}) EXPECT_EQ(ur->result.outcome, pcie::Outcome::UR);

  // Completions in request order (one FIFO); completer IDs from the request's target.
  const std::vector<Captured> cpl(b.host.received.begin() + std::ptrdiff_t(before), b.host.received.end());
  ASSERT_EQ(cpl.size(), 9u);
  const std::vector<uint16_t> completers{0x0200, 0x0200, 0x0300, 0x0108, 0x0500, 0x0001, 0x0110, 0x0208, 0x0900};
  for (size_t k = 0; k < cpl.size(); ++k) EXPECT_EQ(cpl[k].h.completer_id, completers[k]) << "completion " << k;
  EXPECT_EQ(cpl[0].h.type, Type::CplD);
  EXPECT_EQ(cpl[5].h.type, Type::Cpl);
  EXPECT_EQ(cpl[5].h.status, tlp::CplStatus::UR);
  EXPECT_EQ(b.events.count("unsupported_request", {{"path", "switch.dummy"}}), 4u);

  // The slow path's match is logged once per endpoint: the cache serves every later request
  // (enumeration's BAR writes were the first).
  EXPECT_EQ(b.events.line_count("find_device_by_bdf: matched EP[0] for bus 0x02"), 1u);
  EXPECT_EQ(b.events.line_count("find_device_by_bdf: matched EP[1] for bus 0x03"), 1u);
  EXPECT_EQ(b.events.line_count("VNet pf_index=0: first probed at 02:00.0 (transient)"), 1u);
  EXPECT_EQ(b.events.line_level("VNet pf_index=0: first probed at 02:00.0 (transient)"), "debug");
}

TEST(Pe1, SubordinateRangesAreNeverChecked) {
  VnetBench b(2, 0);
  b.enumerate();
  b.host.cfg_write(VnetBench::dsp_bdf(1), 0x18, 4, 0x00050301);  // DSP1: buses 3..5
  const Op below = b.host.cfg_read(0x0400, 0x00);                 // a PCIe switch would forward it
  const Op ep1 = b.host.cfg_read(0x0300, 0x00);
  b.run_for(kMs);
  EXPECT_EQ(below->result.outcome, pcie::Outcome::UR);
  EXPECT_EQ(ep1->value(), 0x10411af4u);
  EXPECT_EQ(b.events.line_count("DSP[1] bus config: P=01 S=03 Sub=05 (was: S=03 Sub=03)"), 1u);
}

TEST(Pe1, RenumberingADspInvalidatesItsEndpointsCacheEntryAndRebindsTheBdf) {
  VnetBench b(2, 0);
  b.enumerate();
  const size_t m = b.events.mark();
  b.host.cfg_write(VnetBench::dsp_bdf(0), 0x18, 4, 0x00070701);  // secondary 2 -> 7
  const Op old_bdf = b.host.cfg_read(0x0200, 0x00);
  const Op new_bdf = b.host.cfg_read(0x0700, 0x00);
  b.run_for(kMs);

  // The cache entry for 02:00.0 is gone: bus 2 is nobody's secondary any more.
  EXPECT_EQ(old_bdf->result.outcome, pcie::Outcome::UR);
  EXPECT_EQ(new_bdf->value(), 0x10411af4u);
  EXPECT_EQ(b.host.received.back().h.completer_id, 0x0700);
  const std::vector<std::string> want{
      "DSP[0] bus config: P=01 S=07 Sub=07 (was: S=02 Sub=02)",
      "Invalidating BDF cache for EP on old bus 0x02",
      "find_device_by_bdf: matched EP[0] for bus 0x07",
      "Device BDF renumbered: 0x0200 -> 0x0700",
      "VNet pf_index=0: BDF reassigned 02:00.0 -> 07:00.0",
  };
  EXPECT_EQ(b.events.lines("vnet.main", m), want);
  EXPECT_EQ(b.events.line_level("Device BDF renumbered: 0x0200 -> 0x0700"), "debug");
}

TEST(Pe1, TheDummyAnswersUrAndCompletesAPostedUrInternally) {
  VnetBench b(1, 0);
  b.enumerate();
  const size_t before = b.host.received.size(), m = b.events.mark();
  const Op cfg = b.host.raw(config0(Type::CfgRd0, 0x0018));  // 00:03.0: nothing
  const Op rd = b.host.mem_read(0x1000, 4);                   // no BAR claims it
  const Op wide = b.host.mem_read(0x1000, 8);
  const Op narrow = b.host.mem_read(0x1003, 1);
  b.host.mem_write32(0x1000, 0xdeadbeef);                     // posted
  const Op io = b.host.raw(request(Type::IORd, 0x100, 1));    // I/O: INVALID, the dummy
  tlp::Header msg;
  msg.type = Type::Msg;
  msg.message_code = 0x7f;     // Vendor_Defined Type 1
  msg.message_routing = 4;     // terminate at receiver
  b.host.raw(msg);
  b.run_for(kMs);

  for (const Op& op : {cfg, rd, wide, narrow, io}) EXPECT_EQ(op->result.outcome, pcie::Outcome::UR);
  // Five completions for five non-posted requests; the posted write and message get none.
  const std::vector<Captured> cpl(b.host.received.begin() + std::ptrdiff_t(before), b.host.received.end());
  ASSERT_EQ(cpl.size(), 5u);
  // A config UR carries the request's target as completer; a memory or I/O UR the dummy's
  // last recorded BDF (never bits of the address). Whatever was asked, the byte count is 4.
  for (const Captured& c : cpl) {
    EXPECT_EQ(c.h.type, Type::Cpl);
    EXPECT_EQ(c.h.status, tlp::CplStatus::UR);
    EXPECT_EQ(c.h.completer_id, 0x0018);
    EXPECT_EQ(c.h.byte_count, 4);
  }
  const auto ur = b.events.find("unsupported_request", {{"path", "switch.dummy"}}, m);
  ASSERT_EQ(ur.size(), 7u);
  const std::vector<std::string> types{"CfgRd0", "MRd", "MRd", "MRd", "MWr", "IORd", "Msg"};
  for (size_t k = 0; k < types.size(); ++k) EXPECT_EQ(ur[k]["type"], types[k]);
  const auto internal = b.events.find("posted_ur_completed_internally", {{"path", "switch.dummy"}}, m);
  ASSERT_EQ(internal.size(), 2u);
  EXPECT_EQ(internal[0]["type"], "MWr");
  EXPECT_EQ(internal[1]["type"], "Msg");
}

TEST(Pe1, MmioReadsOfOneOrTwoDwOnlyAndThePatternOutsideTheEmulatedStructures) {
  VnetBench b(1, 0);
  b.enumerate();
  const uint64_t bar = VnetBench::bar(0);
  const size_t before = b.host.received.size(), m = b.events.mark();
  const Op two_dw = b.host.mem_read(bar + 0x10, 8);  // config vector, num_queues; status, generation
  const Op zero = b.host.raw(request(Type::MRd, bar + 0x14, 1024));  // the 10-bit length field 0
  const Op three_dw = b.host.raw(request(Type::MRd, bar, 3, 0xf, 0xf));
  const Op past_end = b.host.mem_read(bar + 0x216, 2);  // the last 2 bytes of the DW at 0x214
  const Op net_cfg = b.host.mem_read(bar + 0x210, 4);
  const Op isr = b.host.mem_read(bar + 0x100, 4);
  b.run_for(kMs);

  EXPECT_EQ(two_dw->result.data, (std::vector<uint8_t>{0xff, 0xff, 0x11, 0x00, 0x40, 0x01, 0x00, 0x00}));
  EXPECT_EQ(three_dw->result.outcome, pcie::Outcome::UR);
  EXPECT_EQ(past_end->result.data, (std::vector<uint8_t>{0xfa, 0xfa}));
  EXPECT_EQ(net_cfg->value(), 0x00802801u);  // duplex 1, RSS key 40, indirection table 128
  EXPECT_EQ(isr->value(), 0xfafafafau);

  const std::vector<Captured> cpl(b.host.received.begin() + std::ptrdiff_t(before), b.host.received.end());
  ASSERT_EQ(cpl.size(), 6u);
  for (const Captured& c : cpl) EXPECT_EQ(c.h.completer_id, 0x0200);
  EXPECT_EQ(cpl[0].h.byte_count, 8);
  // A zero-length read: a successful completion without data.
  EXPECT_EQ(cpl[1].h.type, Type::Cpl);
  EXPECT_EQ(cpl[1].h.status, tlp::CplStatus::SC);
  EXPECT_EQ(cpl[1].h.byte_count, 4);
  EXPECT_EQ(cpl[2].h.status, tlp::CplStatus::UR);
  EXPECT_EQ(cpl[3].h.byte_count, 2);
  EXPECT_EQ(cpl[3].h.lower_address, 0x16);
  const std::vector<std::string> want{
      "zero read 0",
      "unsupported read length 3",
      "mmio read - offset 0x216 + 4 bytes (1DW) exceeds struct boundary (size: 24)",
      "mmio read - unsupported virtio bar offset 0x100",
  };
  EXPECT_EQ(b.events.lines("vnet.main", m), want);
  for (const std::string& line : want) EXPECT_EQ(b.events.line_level(line), "error") << line;
}

TEST(Pe1, MmioWritesOfMoreThanTwoDwOrOutsideTheCommonConfigAreDropped) {
  VnetBench b(1, 0);
  b.enumerate();
  const uint64_t bar = VnetBench::bar(0);
  const size_t m = b.events.mark();
  std::vector<uint8_t> three(12, 0);
  three[0] = 0x01;  // device_feature_select 1, if it were applied
  b.host.raw(request(Type::MWr, bar, 3, 0xf, 0xf), three);
  b.host.mem_write32(bar + 0x100, 1);    // ISR: not emulated
  b.host.mem_write32(bar + 0x200, 0);    // the MAC: device config is read-only
  const Op mac = b.host.mem_read(bar + 0x200, 4);
  b.run_for(kMs);

  const std::vector<std::string> want{"unsupported write length 3", "mmio write drop - unsupported virtio bar offset 0x100"};
  EXPECT_EQ(b.events.lines("vnet.main", m), want);
  EXPECT_EQ(b.dev(0).common(virtio::VIRTIO_PCI_COMMON_DFSELECT, 4), 0u);
  EXPECT_EQ(mac->value(), 0x12005452u);  // 52:54:00:12, as it was
}

TEST(Pe1, EachTlpIsServedAfterItsCostInArrivalOrder) {
  VnetBench b(1, 0);
  b.enumerate();
  b.ctx.timing.set("vnet.pe1.config_ps", 3 * kUs);
  b.ctx.timing.set("vnet.pe1.mmio_write_ps", 5 * kUs);
  b.ctx.timing.set("vnet.pe1.mmio_read_ps", 7 * kUs);
  const size_t m = b.events.mark();
  const Op cfg = b.host.cfg_read(VnetBench::ep_bdf(0), 0x00);
  b.host.mem_write(VnetBench::bar(0) + 0x10, {0x03, 0x00});  // config_msix_vector 3
  const Op rd = b.host.mem_read(VnetBench::bar(0) + 0x10, 4);
  b.run_for(kMs);

  const auto down = b.events.find("tlp", {{"path", "link_host"}, {"dir", "down"}}, m);
  const auto up = b.events.find("tlp", {{"path", "link_host"}, {"dir", "up"}}, m);
  ASSERT_EQ(down.size(), 3u);
  ASSERT_EQ(up.size(), 2u);
  const uint64_t arrival = down[0]["rx_ps"];
  ASSERT_LT(down[2]["rx_ps"].get<uint64_t>(), arrival + 3 * kUs);  // all queued behind the first
  // Served back to back: 3 us, then 5 us, then 7 us; a completion leaves when its TLP is served.
  EXPECT_EQ(up[0]["tx_ps"].get<uint64_t>(), arrival + 3 * kUs);
  EXPECT_EQ(up[1]["tx_ps"].get<uint64_t>(), arrival + 15 * kUs);
  // The write was served before the read that followed it.
  EXPECT_EQ(rd->value(), 0x00110003u);
  EXPECT_EQ(cfg->value(), 0x10411af4u);
  EXPECT_FALSE(b.ctx.checker.failed());
}

TEST(Pe1, ArrivalToCompletionOverTheBoundFailsTheRun) {
  VnetBench b(1, 0);
  b.ctx.timing.set("vnet.pe1.bound_ps", 5 * kUs);  // config requests take 2 us each
  const size_t m = b.events.mark();
  for (int k = 0; k < 3; ++k) b.host.cfg_read(0x0000, 0x00);
  b.run_for(kMs);

  const auto down = b.events.find("tlp", {{"path", "link_host"}, {"dir", "down"}}, m);
  ASSERT_EQ(down.size(), 3u);
  const uint64_t first = down[0]["rx_ps"], third = down[2]["rx_ps"];
  const uint64_t done = first + 3 * b.param(vnet::timing::pe1_config_ps);
  const uint64_t took = done - third;
  ASSERT_GT(took, 5 * kUs);
  ASSERT_LT(first + 2 * b.param(vnet::timing::pe1_config_ps) - down[1]["rx_ps"].get<uint64_t>(), 5 * kUs);  // the second is within
  const auto v = b.events.find("invariant_violation", {{"kind", "pe1_service_bound"}});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0]["path"], "vnet.main");
  EXPECT_EQ(v[0]["time_ps"].get<uint64_t>(), done);
  EXPECT_EQ(v[0]["detail"], "CfgRd0 #" + std::to_string(down[2]["tlp"].get<uint64_t>()) + " took " +
                                std::to_string(took) + " ps from arrival to completion, over the bound of 5000000 ps");
  EXPECT_TRUE(b.ctx.checker.failed());
}

TEST(Pe1, ADestroyedEndpointIsUnreachableByConfigAndByItsOldBar) {
  VnetBench b(1, 0);
  b.enumerate();
  const size_t before = b.host.received.size();
  b.app.primary().slots().set_device_present(0, false);  // the destroy zeroes the internal BARs
  const Op cfg = b.host.cfg_read(VnetBench::ep_bdf(0), 0x00);
  const Op rd = b.host.mem_read(VnetBench::bar(0) + 0x14, 4);
  b.run_for(kMs);

  EXPECT_EQ(cfg->result.outcome, pcie::Outcome::UR);
  EXPECT_EQ(rd->result.outcome, pcie::Outcome::UR);
  // The memory UR's completer is the BDF the dummy last recorded: the config request's.
  ASSERT_EQ(b.host.received.size(), before + 2);
  EXPECT_EQ(b.host.received[before + 1].h.completer_id, 0x0200);
  EXPECT_EQ(b.events.line_count("Fallback BAR match for destroyed device at 0x4000000014, returning dummy"), 1u);
}
