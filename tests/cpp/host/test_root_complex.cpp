// The root complex (models/host/root_complex.h): DMA reads served after host.mem_read_ps and
// completed at the host's Max_Payload_Size on Read Completion Boundaries (PCIe r5.0 §2.3.1.1),
// DMA writes with their byte enables, writes to the MSI window as MSIs, DMA outside allocated
// memory refused (UR for a read, a dropped write, an invariant violation either way), watched
// memory, and the requests the host issues.
#include <gtest/gtest.h>

#include <systemc>

#include "../support/device_stub.h"
#include "../support/event_record.h"
#include "../support/host_side.h"
#include "../support/kernel.h"
#include "host/host_timing.h"

using namespace dpusim;
using namespace dpusim::testing;
using tlp::Type;

namespace {

constexpr uint64_t kMs = 1000000000ull;

struct HostBench {
  pcie::SimContext ctx{1};
  EventRecord events{ctx.log};
  DeviceStub dev{"dev", ctx, 0};
  HostSide host{ctx, dev.port};  // MPS 256, RCB 64, MRRS 512
  void run_for(uint64_t ps) { dpusim::testing::run_for(ctx, ps); }
  void dma(Type type, uint64_t address, uint16_t length_dw, const std::vector<uint8_t>& data = {}, uint8_t first_be = 0xf,
           uint8_t last_be = 0xf) {
    tlp::Header h;
    h.type = type;
    h.requester_id = 0x0200;
    h.tag = 9;
    h.address = address;
    h.length_dw = length_dw;
    h.first_be = first_be;
    h.last_be = length_dw > 1 ? last_be : 0;
    dev.send(h, data);
  }
};

}  // namespace

TEST(RootComplex, ADmaReadIsCompletedAtMpsEndingOnRcbBoundariesAfterTheMemoryLatency) {
  HostBench b;
  const uint64_t base = b.host.rc.memory.alloc(4096, 4096);
  std::vector<uint8_t> bytes(4096);
  for (size_t k = 0; k < bytes.size(); ++k) bytes[k] = uint8_t(k * 7);
  b.host.rc.memory.write(base, bytes.data(), bytes.size());
  b.dma(Type::MRd, base + 0x20, 150);  // 600 bytes from offset 32
  b.run_for(kMs);

  const auto cpl = b.dev.of_type(Type::CplD);
  ASSERT_EQ(cpl.size(), 3u);
  const std::vector<size_t> sizes{224, 256, 120};
  const std::vector<uint16_t> counts{600, 376, 120};
  const std::vector<uint8_t> lower{0x20, 0x00, 0x00};
  size_t at = 0x20;
  for (size_t k = 0; k < cpl.size(); ++k) {
    EXPECT_EQ(cpl[k].data, std::vector<uint8_t>(bytes.begin() + std::ptrdiff_t(at), bytes.begin() + std::ptrdiff_t(at + sizes[k])))
        << "completion " << k;
    EXPECT_EQ(cpl[k].h.byte_count, counts[k]);
    EXPECT_EQ(cpl[k].h.lower_address, lower[k]);
    EXPECT_EQ(cpl[k].h.requester_id, 0x0200);
    EXPECT_EQ(cpl[k].h.tag, 9);
    EXPECT_EQ(cpl[k].h.completer_id, 0x0000);
    at += sizes[k];
  }
  const uint64_t arrival = b.events.find("tlp", {{"path", "link_host"}, {"dir", "up"}}).at(0)["rx_ps"];
  const auto down = b.events.find("tlp", {{"path", "link_host"}, {"dir", "down"}});
  ASSERT_EQ(down.size(), 3u);
  EXPECT_EQ(down[0]["tx_ps"].get<uint64_t>(), arrival + b.ctx.timing.get(host::timing::mem_read_ps));
}

TEST(RootComplex, DmaOutsideAllocatedMemoryIsRefused) {
  HostBench b;
  const uint64_t base = b.host.rc.memory.alloc(16, 16);
  b.dma(Type::MRd, 0x50000000, 1);
  b.dma(Type::MWr, 0x50000000, 1, {1, 2, 3, 4});
  b.dma(Type::MWr, base + 12, 2, std::vector<uint8_t>(8, 0x55));  // runs 4 bytes past the end
  b.run_for(kMs);

  const auto cpl = b.dev.of_type(Type::Cpl);
  ASSERT_EQ(cpl.size(), 1u);
  EXPECT_EQ(cpl[0].h.status, tlp::CplStatus::UR);
  EXPECT_EQ(cpl[0].h.byte_count, 4);
  EXPECT_EQ(cpl[0].h.tag, 9);
  const auto refused = b.events.find("dma_outside_memory", {{"path", "host"}});
  ASSERT_EQ(refused.size(), 3u);
  // The read is refused once the memory latency has passed; the writes at arrival.
  EXPECT_EQ(refused[0], (Json{{"time_ps", refused[0]["time_ps"]}, {"path", "host"}, {"event", "dma_outside_memory"},
                              {"op", "write"}, {"requester", "02:00.0"}, {"addr", "0x50000000"}, {"len", 1}}));
  EXPECT_EQ(refused[1]["addr"], "0x1000000c");
  EXPECT_EQ(refused[1]["len"], 2);
  EXPECT_EQ(refused[2]["op"], "read");
  const auto v = b.events.find("invariant_violation", {{"kind", "dma_outside_memory"}});
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[2]["detail"], "read by 02:00.0 at 1342177280 length 1 DW outside allocated host memory");
  EXPECT_TRUE(b.ctx.checker.failed());
  uint8_t tail[4] = {9, 9, 9, 9};
  b.host.rc.memory.read(base + 12, tail, 4);
  EXPECT_EQ(std::vector<uint8_t>(tail, tail + 4), std::vector<uint8_t>(4, 0)) << "a refused write writes nothing";
}

TEST(RootComplex, ADmaWriteWritesTheEnabledBytesOnly) {
  HostBench b;
  const uint64_t base = b.host.rc.memory.alloc(16, 16);
  std::vector<uint8_t> data(12);
  for (size_t k = 0; k < data.size(); ++k) data[k] = uint8_t(0x11 + k);
  b.dma(Type::MWr, base, 3, data, 0x6, 0x3);
  b.run_for(kMs);
  std::vector<uint8_t> got(12);
  b.host.rc.memory.read(base, got.data(), got.size());
  EXPECT_EQ(got, (std::vector<uint8_t>{0, 0x12, 0x13, 0, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0, 0}));
  EXPECT_FALSE(b.ctx.checker.failed());
}

TEST(RootComplex, AWriteToTheMsiWindowIsAnMsi) {
  HostBench b;
  std::vector<host::MsiEvent> seen;
  b.host.rc.on_msi = [&](const host::MsiEvent& e) { seen.push_back(e); };
  b.dma(Type::MWr, 0xfee01004, 1, {0x34, 0x12, 0, 0});
  b.run_for(kMs);
  ASSERT_EQ(b.host.rc.msis().size(), 1u);
  const host::MsiEvent& e = b.host.rc.msis()[0];
  EXPECT_EQ(e.requester_id, 0x0200);
  EXPECT_EQ(e.address, 0xfee01004u);
  EXPECT_EQ(e.data, 0x1234u);
  EXPECT_EQ(e.time_ps, b.events.find("tlp", {{"path", "link_host"}, {"dir", "up"}}).at(0)["rx_ps"].get<uint64_t>());
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].data, 0x1234u);
  const auto ev = b.events.find("msi", {{"path", "host"}});
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0]["requester"], "02:00.0");
  EXPECT_EQ(ev[0]["addr"], "0xfee01004");
  EXPECT_EQ(ev[0]["data"], "0x1234");
  EXPECT_EQ(b.host.rc.trace_msi_count, 1u);
  EXPECT_EQ(b.events.count("dma_outside_memory"), 0u);
}

TEST(RootComplex, AWatchedRangeReportsTheFirstWriteThatTouchesIt) {
  HostBench b;
  const uint64_t base = b.host.rc.memory.alloc(64, 64);
  const uint64_t id = b.host.rc.watch_memory(base + 8, 4);
  std::vector<std::pair<uint64_t, uint64_t>> hits;
  b.host.rc.on_memory_write = [&](uint64_t w) { hits.push_back({w, pcie::SimContext::now_ps()}); };
  b.dma(Type::MWr, base, 1, {1, 2, 3, 4});      // beside it
  b.dma(Type::MWr, base + 8, 1, {5, 6, 7, 8});  // on it
  b.dma(Type::MWr, base + 8, 1, {5, 6, 7, 8});  // one-shot: already reported
  b.run_for(kMs);
  const auto up = b.events.find("tlp", {{"path", "link_host"}, {"dir", "up"}});
  ASSERT_EQ(up.size(), 3u);
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].first, id);
  EXPECT_EQ(hits[0].second, up[1]["rx_ps"].get<uint64_t>());
}

TEST(RootComplex, HostRequestsCheckTheirArgumentsAndReturnTheBytesAskedFor) {
  HostBench b;
  auto refused = [&](uint16_t offset, unsigned size) {
    try {
      b.host.cfg_read(0x0100, offset, size);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(refused(2, 4), "config offset 2 is not aligned to size 4 inside 0..0xfff");
  EXPECT_EQ(refused(0x1000, 4), "config offset 4096 is not aligned to size 4 inside 0..0xfff");
  EXPECT_EQ(refused(0, 3), "config access size 3 is not 1, 2 or 4");
  const Op half = b.host.cfg_read(0x0000, 0x02, 2);  // bus 0: Type 0
  const Op byte = b.host.cfg_read(0x0300, 0x11, 1);  // beyond: Type 1
  const Op rd = b.host.mem_read(0x1000, 1000);       // split at the MRRS of 512
  b.run_for(kMs);
  EXPECT_EQ(half->value(), 0xc0deu);
  EXPECT_EQ(byte->value(), 0x00u);
  ASSERT_EQ(rd->result.data.size(), 1000u);
  EXPECT_EQ(rd->result.data[0], 0xa0);
  EXPECT_EQ(rd->result.data[512], 0xa0);  // the second request's first byte
  const auto cfg = b.dev.received;
  ASSERT_EQ(cfg.size(), 4u);
  EXPECT_EQ(cfg[0].h.type, Type::CfgRd0);
  EXPECT_EQ(cfg[0].h.first_be, 0xc);
  EXPECT_EQ(cfg[1].h.type, Type::CfgRd1);
  EXPECT_EQ(cfg[1].h.register_offset, 0x10);
  EXPECT_EQ(cfg[1].h.first_be, 0x2);
  EXPECT_EQ(cfg[2].h.address, 0x1000u);
  EXPECT_EQ(cfg[2].h.length_dw, 128);
  EXPECT_EQ(cfg[3].h.address, 0x1200u);
  EXPECT_EQ(cfg[3].h.length_dw, 122);
}

TEST(RootComplex, ARequestFromBelowThatIsNotMemoryGetsUr) {
  HostBench b;
  tlp::Header cfg;
  cfg.type = Type::CfgRd0;
  cfg.requester_id = 0x0200;
  cfg.tag = 4;
  b.dev.send(cfg);
  tlp::Header msg;
  msg.type = Type::Msg;
  msg.requester_id = 0x0200;
  msg.message_code = 0x7f;
  msg.message_routing = 4;
  b.dev.send(msg);
  b.run_for(kMs);
  const auto ur = b.events.find("unsupported_request", {{"path", "host"}});
  ASSERT_EQ(ur.size(), 2u);
  EXPECT_EQ(ur[0]["type"], "CfgRd0");
  EXPECT_EQ(ur[1]["type"], "Msg");
  ASSERT_EQ(b.dev.received.size(), 1u);  // the message needs no completion
  EXPECT_EQ(b.dev.received[0].h.type, Type::Cpl);
  EXPECT_EQ(b.dev.received[0].h.status, tlp::CplStatus::UR);
  EXPECT_EQ(b.dev.received[0].h.tag, 4);
}
