// The DMA endpoint's RTL (models/rtl/dma/hdl/rtl_dma.sv) through its hard IP core
// (models/rtl/stream), driven by a host over a link: registers and their byte enables, copies
// of many lengths and alignments under each Max_Payload_Size / Max_Read_Request_Size with the
// TLPs each should take (none crossing 4 KiB: the core fails the run if one does), 64-bit
// addresses, MSI-X delivery and masking, and the errors (Bus Master Enable, a zero length, a
// host UR, a completion timeout, a doorbell while busy). One SystemC elaboration per process:
// each TEST is its own ctest entry.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <systemc>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "host_script.h"
#include "rtl/dma/rtl_dma_endpoint.h"
#include "rtl/dma/rtl_dma_regs.h"
#include "tlm/pci_regs.h"

using namespace dpusim;
using namespace dpusim::pci;
using namespace dpusim::rtl::dma;
using nlohmann::json;

namespace {

constexpr uint32_t kBar0 = 0xc0000000;
constexpr uint64_t kUs = 1000000;

struct Tlp {
  std::string type;
  uint64_t addr;
  unsigned len_dw;
};

struct Bench {
  pcie::SimContext ctx{1};
  RtlDmaEndpoint* ep;
  test::HostScript* hs;
  std::vector<Tlp> up;  // TLPs toward the host, as the link logged them

  explicit Bench(const host::HostSpec& spec = {}) {
    ctx.log.open_memory();
    ep = new RtlDmaEndpoint("ep", ctx);
    hs = new test::HostScript("hs", ctx, *ep, spec);
    ctx.log.add_watcher({{"event", "\"tlp\""}, {"dir", "\"up\""}}, false);
    ctx.log.set_watch_callback([this](uint64_t, const std::string& line) {
      const json e = json::parse(line);
      if (e.contains("addr"))
        up.push_back({e["type"], std::stoull(e["addr"].get<std::string>(), nullptr, 16), e["len"].get<unsigned>()});
    });
  }
  void run(std::function<void()> script) {
    hs->run(std::move(script));
    sc_core::sc_start();
    ASSERT_TRUE(hs->done()) << "the script did not finish at " << sc_core::sc_time_stamp().value() << " ps; log:\n" << ctx.log.take_memory().substr(0, 20000);
  }
  // Programs a copy and rings the doorbell; with `irq`, waits for the MSI, else polls STATUS
  // until BUSY clears. Returns STATUS.
  uint32_t copy(uint64_t src, uint64_t dst, uint32_t len, bool irq = true) {
    const size_t msis = hs->host.msis().size();
    hs->write32(kBar0 + RTL_DMA_SRC_LO, uint32_t(src));
    hs->write32(kBar0 + RTL_DMA_SRC_HI, uint32_t(src >> 32));
    hs->write32(kBar0 + RTL_DMA_DST_LO, uint32_t(dst));
    hs->write32(kBar0 + RTL_DMA_DST_HI, uint32_t(dst >> 32));
    hs->write32(kBar0 + RTL_DMA_LEN, len);
    hs->write32(kBar0 + RTL_DMA_CTRL, irq ? RTL_DMA_CTRL_IRQ_EN : 0);
    hs->write32(kBar0 + RTL_DMA_DOORBELL, RTL_DMA_DOORBELL_START);
    if (irq) {
      EXPECT_TRUE(hs->wait_msis(msis + 1, 10000 * kUs)) << "no MSI-X for the copy of " << len << " bytes";
      return hs->read32(kBar0 + RTL_DMA_STATUS);
    }
    for (;;) {
      const uint32_t status = hs->read32(kBar0 + RTL_DMA_STATUS);
      if (!(status & RTL_DMA_STATUS_BUSY)) return status;
      hs->sleep(kUs);
    }
  }
  std::vector<Tlp> data_tlps(const std::string& type) const {
    std::vector<Tlp> out;
    for (const Tlp& t : up)
      if (t.type == type && (t.addr < host::RootComplex::kMsiBase || t.addr >= host::RootComplex::kMsiEnd))
        out.push_back(t);
    return out;
  }
};

// The requests [addr, addr + len) takes when split inside naturally aligned `limit`-byte blocks.
std::vector<Tlp> expected_split(const std::string& type, uint64_t addr, uint64_t len, unsigned limit) {
  std::vector<Tlp> out;
  for (uint64_t cur = addr, end = addr + len; cur < end;) {
    const uint64_t next = std::min(end, (cur / limit + 1) * limit);
    out.push_back({type, cur & ~uint64_t(3), unsigned(((cur & 3) + (next - cur) + 3) / 4)});
    cur = next;
  }
  return out;
}

void expect_tlps(const std::vector<Tlp>& got, const std::vector<Tlp>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].addr, want[i].addr) << what << ", TLP " << i;
    EXPECT_EQ(got[i].len_dw, want[i].len_dw) << what << ", TLP " << i;
  }
}

uint32_t cause(uint32_t status) { return (status >> RTL_DMA_STATUS_CAUSE_SHIFT) & 7; }
uint32_t cpl_status(uint32_t status) { return (status >> RTL_DMA_STATUS_CPL_SHIFT) & 7; }

// Copies every length of `lengths` at every pair of source and destination offsets (bytes past
// a 4 KiB page start, plus 0..3), checking the destination byte for byte with guard bytes on
// either side, the TLPs each copy took, and the completion counter.
void copy_matrix(unsigned mps, unsigned mrrs, const std::vector<uint32_t>& lengths, const std::vector<uint64_t>& bases) {
  Bench b;
  b.run([&] {
    b.hs->enable(kBar0, mps, mrrs);
    host::HostMemory& mem = b.hs->host.memory;
    std::mt19937 rng(mps * 7 + mrrs);
    uint32_t copies = 0;
    for (uint32_t len : lengths) {
      for (uint64_t base : bases) {
        for (unsigned so = 0; so < 4; ++so) {
          const unsigned dof = (so * 3 + len) % 4;  // every destination alignment across lengths
          const uint64_t src_page = mem.alloc(len + 2 * 4096, 4096), dst_page = mem.alloc(len + 2 * 4096, 4096);
          const uint64_t src = src_page + base + so, dst = dst_page + base + dof;
          std::vector<uint8_t> data(len), guard(len + 32, 0xee);
          for (auto& byte : data) byte = uint8_t(rng());
          mem.write(src, data.data(), len);
          mem.write(dst - 16, guard.data(), guard.size());
          b.up.clear();
          const uint32_t status = b.copy(src, dst, len);
          const std::string what = "copy of " + std::to_string(len) + " bytes from " + std::to_string(base + so) +
                                   " to " + std::to_string(base + dof) + " (MPS " + std::to_string(mps) + ", MRRS " +
                                   std::to_string(mrrs) + ")";
          ASSERT_EQ(status, RTL_DMA_STATUS_DONE) << what;
          std::vector<uint8_t> got(len + 32);
          mem.read(dst - 16, got.data(), got.size());
          ASSERT_EQ(std::vector<uint8_t>(got.begin() + 16, got.end() - 16), data) << what;
          ASSERT_EQ(std::vector<uint8_t>(got.begin(), got.begin() + 16), std::vector<uint8_t>(16, 0xee)) << what;
          ASSERT_EQ(std::vector<uint8_t>(got.end() - 16, got.end()), std::vector<uint8_t>(16, 0xee)) << what;
          expect_tlps(b.data_tlps("MRd"), expected_split("MRd", src, len, mrrs), what + ": reads");
          expect_tlps(b.data_tlps("MWr"), expected_split("MWr", dst, len, std::min(mps, 512u)), what + ": writes");
          b.hs->write32(kBar0 + RTL_DMA_STATUS, RTL_DMA_STATUS_DONE);
          ++copies;
          mem.free(src_page);
          mem.free(dst_page);
        }
      }
    }
    EXPECT_EQ(b.hs->read32(kBar0 + RTL_DMA_COUNT), copies);
    EXPECT_EQ(b.hs->read32(kBar0 + RTL_DMA_STATUS), 0u);
  });
}

}  // namespace

TEST(RtlDma, RegistersReadBackWithByteEnablesAndReadOnlyFields) {
  Bench b;
  b.run([&] {
    b.hs->enable(kBar0, 128, 512);
    EXPECT_EQ(b.hs->read32(kBar0 + RTL_DMA_ID), kRtlDmaId);
    EXPECT_EQ(b.hs->read32(kBar0 + RTL_DMA_PARAMS), kBufferLog2 << 8 | kTags);
    b.hs->write32(kBar0 + RTL_DMA_SRC_LO, 0x11223344);
    b.hs->write32(kBar0 + RTL_DMA_SRC_HI, 0x55667788);
    b.hs->write32(kBar0 + RTL_DMA_DST_LO, 0x99aabbcc);
    b.hs->write32(kBar0 + RTL_DMA_LEN, 0xffffffff);  // 24 bits
    b.hs->write32(kBar0 + RTL_DMA_ID, 0);            // read-only
    b.hs->write32(kBar0 + RTL_DMA_COUNT, 7);         // read-only
    b.hs->write(kBar0 + RTL_DMA_SRC_LO + 1, {0xa5});           // one byte: byte enable 0010
    b.hs->write(kBar0 + RTL_DMA_DST_LO + 2, {0x01, 0x02});     // two bytes: 1100
    EXPECT_EQ(b.hs->read32(kBar0 + RTL_DMA_SRC_LO), 0x1122a544u);
    EXPECT_EQ(b.hs->read32(kBar0 + RTL_DMA_DST_LO), 0x0201bbccu);
    EXPECT_EQ(b.hs->read32(kBar0 + RTL_DMA_LEN), 0x00ffffffu);
    EXPECT_EQ(b.hs->read32(kBar0 + RTL_DMA_ID), kRtlDmaId);
    EXPECT_EQ(b.hs->read32(kBar0 + RTL_DMA_COUNT), 0u);
    EXPECT_EQ(b.hs->read32(kBar0 + RTL_DMA_DOORBELL), 0u);
    EXPECT_EQ(b.hs->read32(kBar0 + 0x100), 0u);  // unassigned
    // A read of several DWs in one request, and of a byte at an odd address.
    const pcie::Result r = b.hs->mem_read(kBar0 + RTL_DMA_SRC_LO, 12);
    ASSERT_EQ(r.outcome, pcie::Outcome::SC);
    EXPECT_EQ(r.data, (std::vector<uint8_t>{0x44, 0xa5, 0x22, 0x11, 0x88, 0x77, 0x66, 0x55, 0xcc, 0xbb, 0x01, 0x02}));
    const pcie::Result one = b.hs->mem_read(kBar0 + RTL_DMA_ID + 3, 1);
    EXPECT_EQ(one.data, std::vector<uint8_t>{0x44});
    // A 64-bit write of two registers at once.
    b.hs->write(kBar0 + RTL_DMA_DST_LO, {1, 2, 3, 4, 5, 6, 7, 8});
    EXPECT_EQ(b.hs->read32(kBar0 + RTL_DMA_DST_HI), 0x08070605u);
  });
}

TEST(RtlDma, ReadsOver16DwsGetCompleterAbortAndTheWindowEndsAtFourKiB) {
  Bench b;
  b.run([&] {
    b.hs->enable(kBar0, 128, 512);
    EXPECT_EQ(b.hs->mem_read(kBar0, 64).outcome, pcie::Outcome::SC);
    const pcie::Result big = b.hs->mem_read(kBar0, 68);
    EXPECT_EQ(big.outcome, pcie::Outcome::CA);
    EXPECT_EQ(big.data, std::vector<uint8_t>(68, 0xff));
    // Past the register window lies the MSI-X table: a read across both is two requests (none
    // crosses 4 KiB), the block's unassigned last DW and the table's first (its address).
    b.hs->write32(kBar0 + kMsixTable, 0xfee00004);
    const pcie::Result across = b.hs->mem_read(kBar0 + kRegsWindow - 4, 8);
    EXPECT_EQ(across.outcome, pcie::Outcome::SC);
    EXPECT_EQ(across.data, (std::vector<uint8_t>{0, 0, 0, 0, 0x04, 0x00, 0xe0, 0xfe}));
    // The block keeps answering afterwards.
    EXPECT_EQ(b.hs->read32(kBar0 + RTL_DMA_ID), kRtlDmaId);
  });
}

TEST(RtlDma, CopiesAtMps128Mrrs128) {
  copy_matrix(128, 128, {1, 2, 3, 4, 5, 7, 63, 64, 65, 127, 128, 129, 255, 256, 257, 1000, 4096, 4097}, {0, 4096 - 130});
}

TEST(RtlDma, CopiesAtMps256Mrrs512) {
  copy_matrix(256, 512, {1, 4, 5, 255, 256, 257, 511, 512, 513, 3000, 8192, 9001}, {0, 4096 - 513});
}

TEST(RtlDma, CopiesAtMps512Mrrs4096) {
  copy_matrix(512, 4096, {3, 512, 513, 4095, 4096, 4097, 20000}, {0, 2048 + 3});
}

TEST(RtlDma, MaxPayloadSizeAboveTheSupportedIsCappedAt512) {
  copy_matrix(4096, 1024, {2049}, {1});
}

TEST(RtlDma, AddressesAbove4GiBUse4DwHeaders) {
  Bench b;
  b.run([&] {
    b.hs->enable(kBar0, 256, 512);
    host::HostMemory& mem = b.hs->host.memory;
    mem.alloc(host::HostMemory::kLowEnd - host::HostMemory::kLowBase - 4096, 4096);  // the low window, nearly all
    const uint64_t src = mem.alloc(8192, 4096) + 5, dst = mem.alloc(8192, 4096) + 2;
    ASSERT_GE(src, 1ull << 32);
    std::vector<uint8_t> data(3000);
    for (size_t i = 0; i < data.size(); ++i) data[i] = uint8_t(i * 13 + 1);
    mem.write(src, data.data(), data.size());
    ASSERT_EQ(b.copy(src, dst, 3000), RTL_DMA_STATUS_DONE);
    std::vector<uint8_t> got(data.size());
    mem.read(dst, got.data(), got.size());
    EXPECT_EQ(got, data);
    expect_tlps(b.data_tlps("MRd"), expected_split("MRd", src, 3000, 512), "reads above 4 GiB");
    expect_tlps(b.data_tlps("MWr"), expected_split("MWr", dst, 3000, 256), "writes above 4 GiB");
  });
}

TEST(RtlDma, MsixMaskedVectorIsPendingUntilUnmaskedAndNoMessageWithoutIrqEn) {
  Bench b;
  b.run([&] {
    b.hs->enable(kBar0, 128, 512);
    host::HostMemory& mem = b.hs->host.memory;
    const uint64_t src = mem.alloc(4096, 4096), dst = mem.alloc(4096, 4096);
    // IRQ_EN clear: the copy completes silently.
    EXPECT_EQ(b.copy(src, dst, 100, false), RTL_DMA_STATUS_DONE);
    b.hs->sleep(10 * kUs);
    EXPECT_TRUE(b.hs->host.msis().empty());
    // The vector masked: the message waits in the PBA.
    b.hs->write32(kBar0 + kMsixTable + PCI_MSIX_ENTRY_VECTOR_CTRL, PCI_MSIX_ENTRY_CTRL_MASKBIT);
    b.hs->write32(kBar0 + RTL_DMA_CTRL, RTL_DMA_CTRL_IRQ_EN);
    b.hs->write32(kBar0 + RTL_DMA_DOORBELL, RTL_DMA_DOORBELL_START);
    b.hs->sleep(20 * kUs);
    EXPECT_EQ(b.hs->read32(kBar0 + RTL_DMA_STATUS), RTL_DMA_STATUS_DONE);
    EXPECT_TRUE(b.hs->host.msis().empty());
    EXPECT_EQ(b.hs->read32(kBar0 + kMsixPba), 1u);
    b.hs->write32(kBar0 + kMsixTable + PCI_MSIX_ENTRY_VECTOR_CTRL, 0);
    ASSERT_TRUE(b.hs->wait_msis(1, 10 * kUs));
    EXPECT_EQ(b.hs->host.msis()[0].address, test::HostScript::kMsiAddress);
    EXPECT_EQ(b.hs->host.msis()[0].data, test::HostScript::kMsiData);
    EXPECT_EQ(b.hs->host.msis()[0].requester_id, test::HostScript::kBdf);
    EXPECT_EQ(b.hs->read32(kBar0 + kMsixPba), 0u);
    // The Function Mask holds it too.
    const uint16_t cap = b.hs->find_cap(PCI_CAP_ID_MSIX);
    b.hs->cfg_write(cap + PCI_MSIX_FLAGS, PCI_MSIX_FLAGS_ENABLE | PCI_MSIX_FLAGS_MASKALL, 2);
    b.hs->write32(kBar0 + RTL_DMA_DOORBELL, RTL_DMA_DOORBELL_START);
    b.hs->sleep(20 * kUs);
    EXPECT_EQ(b.hs->host.msis().size(), 1u);
    b.hs->cfg_write(cap + PCI_MSIX_FLAGS, PCI_MSIX_FLAGS_ENABLE, 2);
    EXPECT_TRUE(b.hs->wait_msis(2, 10 * kUs));
    EXPECT_EQ(b.hs->read32(kBar0 + RTL_DMA_COUNT), 3u);
  });
  std::vector<std::string> outcomes;
  const std::string log = b.ctx.log.take_memory();
  for (size_t at = log.find("\"msix_raise\""); at != std::string::npos; at = log.find("\"msix_raise\"", at + 1)) {
    const size_t o = log.find("\"outcome\":\"", at) + 11;
    outcomes.push_back(log.substr(o, log.find('"', o) - o));
  }
  EXPECT_EQ(outcomes, (std::vector<std::string>{"pending", "pending"}));
}

TEST(RtlDma, TheMessageFollowsTheCopysLastWrite) {
  Bench b;
  b.run([&] {
    b.hs->enable(kBar0, 128, 512);
    const uint64_t src = b.hs->host.memory.alloc(4096, 4096), dst = b.hs->host.memory.alloc(4096, 4096);
    EXPECT_EQ(b.copy(src, dst, 4096), RTL_DMA_STATUS_DONE);
  });
  // 8 reads at MRRS 512, 32 writes at MPS 128, then the message: a posted write behind them.
  EXPECT_EQ(b.data_tlps("MRd").size(), 8u);
  std::vector<Tlp> writes;
  for (const Tlp& t : b.up)
    if (t.type == "MWr") writes.push_back(t);
  ASSERT_EQ(writes.size(), 33u);
  EXPECT_EQ(writes.back().addr, test::HostScript::kMsiAddress);
  EXPECT_EQ(b.data_tlps("MWr").size(), 32u);
}

TEST(RtlDma, BusMasterDisabledFailsTheCopyWithoutARequest) {
  Bench b;
  b.run([&] {
    b.hs->enable(kBar0, 128, 512);
    b.hs->cfg_write(PCI_COMMAND, PCI_COMMAND_MEMORY, 2);
    const uint64_t src = b.hs->host.memory.alloc(4096, 4096), dst = b.hs->host.memory.alloc(4096, 4096);
    const uint32_t status = b.copy(src, dst, 64, false);
    EXPECT_EQ(status & 0xf, RTL_DMA_STATUS_ERROR);
    EXPECT_EQ(cause(status), RTL_DMA_CAUSE_BUS_MASTER);
    EXPECT_TRUE(b.data_tlps("MRd").empty());
    EXPECT_EQ(b.hs->read32(kBar0 + RTL_DMA_COUNT), 0u);
  });
}

TEST(RtlDma, ClearingBusMasterMidCopyStopsItAfterTheOutstandingReads) {
  Bench b;
  b.run([&] {
    b.hs->enable(kBar0, 128, 128);
    host::HostMemory& mem = b.hs->host.memory;
    const uint64_t src = mem.alloc(1 << 20, 4096), dst = mem.alloc(1 << 20, 4096);
    b.hs->write32(kBar0 + RTL_DMA_SRC_LO, uint32_t(src));
    b.hs->write32(kBar0 + RTL_DMA_DST_LO, uint32_t(dst));
    b.hs->write32(kBar0 + RTL_DMA_LEN, 1 << 20);
    b.hs->write32(kBar0 + RTL_DMA_DOORBELL, RTL_DMA_DOORBELL_START);
    b.hs->sleep(20 * kUs);
    EXPECT_EQ(b.hs->read32(kBar0 + RTL_DMA_STATUS), RTL_DMA_STATUS_BUSY);
    b.hs->cfg_write(PCI_COMMAND, PCI_COMMAND_MEMORY, 2);
    b.hs->sleep(20 * kUs);
    const uint32_t status = b.hs->read32(kBar0 + RTL_DMA_STATUS);
    EXPECT_EQ(status & 0xf, RTL_DMA_STATUS_ERROR);
    EXPECT_EQ(cause(status), RTL_DMA_CAUSE_BUS_MASTER);
    const size_t reads = b.data_tlps("MRd").size(), writes = b.data_tlps("MWr").size();
    EXPECT_GT(reads, 0u);
    EXPECT_LT(reads, (1u << 20) / 128);
    // Every read it issued completed before the copy ended: nothing is outstanding, and no
    // write went out after Bus Master Enable was cleared.
    b.hs->sleep(100 * kUs);
    EXPECT_EQ(b.data_tlps("MRd").size(), reads);
    EXPECT_EQ(b.data_tlps("MWr").size(), writes);
    EXPECT_EQ(b.ctx.checker.outstanding(), 0u);
  });
}

TEST(RtlDma, ZeroLengthFailsAtOnce) {
  Bench b;
  b.run([&] {
    b.hs->enable(kBar0, 128, 512);
    const uint32_t status = b.copy(0x10000000, 0x10001000, 0);
    EXPECT_EQ(status & 0xf, RTL_DMA_STATUS_ERROR);
    EXPECT_EQ(cause(status), RTL_DMA_CAUSE_LENGTH);
    EXPECT_TRUE(b.data_tlps("MRd").empty());
  });
}

TEST(RtlDma, HostUnsupportedRequestFailsTheCopyWithItsStatus) {
  Bench b;
  b.ctx.checker.expect("dma_outside_memory", 0);  // the host's complaint about the bad reads
  b.run([&] {
    b.hs->enable(kBar0, 128, 512);
    host::HostMemory& mem = b.hs->host.memory;
    const uint64_t dst = mem.alloc(8192, 4096), src = mem.alloc(4096, 4096);
    // The source runs 1 KiB past its allocation, the last there is: the fifth read of 512
    // bytes gets UR.
    const uint32_t status = b.copy(src + 2048, dst, 3072);
    EXPECT_EQ(status & 0xf, RTL_DMA_STATUS_ERROR);
    EXPECT_EQ(cause(status), RTL_DMA_CAUSE_CPL_STATUS);
    EXPECT_EQ(cpl_status(status), uint32_t(tlp::CplStatus::UR));
    EXPECT_EQ(b.hs->read32(kBar0 + RTL_DMA_COUNT), 0u);
    // What was read before the failure may have been written; nothing after it was.
    for (const Tlp& w : b.data_tlps("MWr")) EXPECT_LT(w.addr, dst + 2048);
    EXPECT_EQ(b.hs->host.msis().size(), 1u);
    // The engine takes the next copy.
    b.hs->write32(kBar0 + RTL_DMA_STATUS, RTL_DMA_STATUS_ERROR);
    EXPECT_EQ(b.copy(src, dst, 4096), RTL_DMA_STATUS_DONE);
  });
  // Both reads past the allocation were issued (8 tags, room in the buffer) before the first UR
  // came back; the host refused each.
  const std::string log = b.ctx.log.take_memory();
  size_t refused = 0;
  for (size_t at = log.find("\"event\":\"dma_outside_memory\""); at != std::string::npos;
       at = log.find("\"event\":\"dma_outside_memory\"", at + 1))
    ++refused;
  EXPECT_EQ(refused, 2u);
}

TEST(RtlDma, CompletionTimeoutEndsTheReadWithTheCoresCompleterAbort) {
  Bench b;
  b.ctx.timing.set("cpl_timeout_ps", 1000 * kUs);
  b.ctx.checker.expect("completion_timeout", 1);
  pcie::FaultRule drop;
  drop.match.type = tlp::Type::CplD;
  drop.match.tag = 1;
  drop.match.direction = "down";
  drop.match.requester_id = test::HostScript::kBdf;  // the block's reads, not the host's
  drop.count = 0;
  b.ctx.faults.add(drop);
  b.run([&] {
    b.hs->enable(kBar0, 128, 512);
    const uint64_t src = b.hs->host.memory.alloc(4096, 4096), dst = b.hs->host.memory.alloc(4096, 4096);
    const uint32_t status = b.copy(src, dst, 4096);
    EXPECT_EQ(status & 0xf, RTL_DMA_STATUS_ERROR);
    EXPECT_EQ(cause(status), RTL_DMA_CAUSE_CPL_STATUS);
    EXPECT_EQ(cpl_status(status), uint32_t(tlp::CplStatus::CA));
    EXPECT_GE(sc_core::sc_time_stamp().value(), 1000 * kUs);
  });
  EXPECT_FALSE(b.ctx.checker.failed()) << b.ctx.checker.first_failure();
  EXPECT_NE(b.ctx.log.take_memory().find("\"event\":\"cpl_timeout\""), std::string::npos);
}

TEST(RtlDma, DoorbellWhileBusyIsDroppedAndFlagged) {
  Bench b;
  b.run([&] {
    b.hs->enable(kBar0, 128, 512);
    const uint64_t src = b.hs->host.memory.alloc(65536, 4096), dst = b.hs->host.memory.alloc(65536, 4096);
    b.hs->write32(kBar0 + RTL_DMA_SRC_LO, uint32_t(src));
    b.hs->write32(kBar0 + RTL_DMA_DST_LO, uint32_t(dst));
    b.hs->write32(kBar0 + RTL_DMA_LEN, 65536);
    b.hs->write32(kBar0 + RTL_DMA_CTRL, RTL_DMA_CTRL_IRQ_EN);
    b.hs->write32(kBar0 + RTL_DMA_DOORBELL, RTL_DMA_DOORBELL_START);
    b.hs->write32(kBar0 + RTL_DMA_DOORBELL, RTL_DMA_DOORBELL_START);
    ASSERT_TRUE(b.hs->wait_msis(1, 1000 * kUs));
    EXPECT_EQ(b.hs->read32(kBar0 + RTL_DMA_STATUS), RTL_DMA_STATUS_DONE | RTL_DMA_STATUS_OVERRUN);
    b.hs->sleep(100 * kUs);
    EXPECT_EQ(b.hs->host.msis().size(), 1u);
    EXPECT_EQ(b.hs->read32(kBar0 + RTL_DMA_COUNT), 1u);
    b.hs->write32(kBar0 + RTL_DMA_STATUS, RTL_DMA_STATUS_DONE | RTL_DMA_STATUS_OVERRUN);
    EXPECT_EQ(b.hs->read32(kBar0 + RTL_DMA_STATUS), 0u);
  });
}

TEST(RtlDma, CopiesAreExactWhenTheCoreHoldsTxReady) {
  Bench b;
  b.ep->set_tx_ready_pattern(0x4924924a);  // ready on about a third of the cycles
  b.run([&] {
    b.hs->enable(kBar0, 128, 256);
    host::HostMemory& mem = b.hs->host.memory;
    const uint64_t src = mem.alloc(16384, 4096) + 3, dst = mem.alloc(16384, 4096) + 1;
    std::vector<uint8_t> data(10001);
    for (size_t i = 0; i < data.size(); ++i) data[i] = uint8_t(i * 7 + 3);
    mem.write(src, data.data(), data.size());
    ASSERT_EQ(b.copy(src, dst, 10001), RTL_DMA_STATUS_DONE);
    std::vector<uint8_t> got(data.size());
    mem.read(dst, got.data(), got.size());
    EXPECT_EQ(got, data);
    EXPECT_EQ(b.hs->read32(kBar0 + RTL_DMA_ID), kRtlDmaId);
  });
}

TEST(RtlDma, LoweringTheLimitsMidCopyIsTheGuestsAffairNotABrokenBlock) {
  Bench b;
  b.run([&] {
    b.hs->enable(kBar0, 512, 4096);
    host::HostMemory& mem = b.hs->host.memory;
    const uint64_t src = mem.alloc(65536, 4096), dst = mem.alloc(65536, 4096);
    std::vector<uint8_t> data(65536);
    for (size_t i = 0; i < data.size(); ++i) data[i] = uint8_t(i * 5 + 1);
    mem.write(src, data.data(), data.size());
    b.hs->write32(kBar0 + RTL_DMA_SRC_LO, uint32_t(src));
    b.hs->write32(kBar0 + RTL_DMA_DST_LO, uint32_t(dst));
    b.hs->write32(kBar0 + RTL_DMA_LEN, 65536);
    b.hs->write32(kBar0 + RTL_DMA_CTRL, RTL_DMA_CTRL_IRQ_EN);
    b.hs->write32(kBar0 + RTL_DMA_DOORBELL, RTL_DMA_DOORBELL_START);
    b.hs->sleep(20 * kUs);
    // Max_Payload_Size and Max_Read_Request_Size down to 128 bytes while TLPs built under 512 and
    // 4096 are on their way: those leave as built, the later ones follow the new limits.
    const uint16_t exp = b.hs->find_cap(PCI_CAP_ID_EXP);
    const uint32_t devctl = b.hs->cfg_read(exp + PCI_EXP_DEVCTL, 2);
    b.hs->cfg_write(exp + PCI_EXP_DEVCTL, devctl & ~uint32_t(PCI_EXP_DEVCTL_PAYLOAD | PCI_EXP_DEVCTL_READRQ), 2);
    ASSERT_TRUE(b.hs->wait_msis(1, 1000 * kUs));
    EXPECT_EQ(b.hs->read32(kBar0 + RTL_DMA_STATUS), RTL_DMA_STATUS_DONE);
    std::vector<uint8_t> got(data.size());
    mem.read(dst, got.data(), got.size());
    EXPECT_EQ(got, data);
    const std::vector<Tlp> writes = b.data_tlps("MWr");
    ASSERT_FALSE(writes.empty());
    EXPECT_EQ(writes.front().len_dw, 128u);  // 512 bytes
    EXPECT_EQ(writes.back().len_dw, 32u);    // 128 bytes
  });
  const std::string log = b.ctx.log.take_memory();
  EXPECT_NE(log.find("\"event\":\"tlp_over_limit\""), std::string::npos);
}
