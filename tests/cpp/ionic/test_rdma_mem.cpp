// The RDMA memory tables on their own (models/ionic/rdma_mem.h, rdma_resources.h, and load_buf
// of dma_io.h): a region's range resolved to bus runs through its page table, containment at
// its edges, key 0 for local work only, the table's limit of 1024 regions, REG_MR's rotation
// rule, a page table read by DMA with its refusals, and a QP's creation ending the work of the
// one before (rocm-ernic's ionic_datapath.c, Linux ionic_fw.h).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "fake_device_io.h"
#include "ionic/le_bytes.h"
#include "ionic/rdma_mem.h"
#include "ionic/rdma_resources.h"

namespace dpusim::ionic {
namespace rdma_mem_test {

using Runs = std::vector<std::pair<uint64_t, uint64_t>>;  // (bus address, length)
Runs runs_of(const std::vector<BusRun>& runs) {
  Runs out;
  for (const BusRun& r : runs) out.emplace_back(r.addr, r.len);
  return out;
}

// A region of 3 pages of 4 KiB at va 0x7000_0100: pages 0 and 1 adjacent on the bus, page 2 not.
MemRegion paged(uint32_t key) {
  GuestBuf b;
  b.pages = {0x50000, 0x51000, 0x90000};
  b.first_off = 0x100;
  return MemRegion{key, 0x70000100, 3 * 4096 - 0x100, 0x0fff, b};
}

TEST(RdmaMem, AResolvedRangeFollowsThePageTableAndJoinsAdjacentPages) {
  MrTable t;
  ASSERT_TRUE(t.put(paged(0x1234)));
  std::vector<BusRun> runs;
  // From va + 0x10 to 0x10 bytes into page 2.
  ASSERT_TRUE(t.resolve(0x1234, 0x70000110, 2 * 4096 - 0x110 + 0x10, false, &runs));
  EXPECT_EQ(runs_of(runs), (Runs{{0x50110, 0x1ef0}, {0x90000, 0x10}}));
}

TEST(RdmaMem, ContainmentHoldsAtTheEdgesAndCannotOverflow) {
  MrTable t;
  ASSERT_TRUE(t.put(paged(7)));
  const uint64_t end = 0x70000100 + 3 * 4096 - 0x100;
  std::vector<BusRun> runs;
  EXPECT_TRUE(t.resolve(7, end - 1, 1, false, &runs));      // the last byte
  EXPECT_EQ(runs_of(runs), (Runs{{0x90fff, 1}}));
  EXPECT_FALSE(t.resolve(7, end - 1, 2, false, &runs));     // one past it
  EXPECT_FALSE(t.resolve(7, 0x700000ff, 1, false, &runs));  // one before the start
  EXPECT_FALSE(t.resolve(7, 0x70000100, UINT64_MAX, false, &runs));
  EXPECT_FALSE(t.resolve(8, 0x70000100, 1, false, &runs));  // no such key
}

TEST(RdmaMem, KeyZeroNamesBusAddressesForLocalWorkOnly) {
  MrTable t;
  std::vector<BusRun> runs;
  EXPECT_FALSE(t.resolve(IONIC_DMA_LKEY, 0x1000, 8, false, &runs));  // a peer's rkey
  EXPECT_TRUE(runs.empty());
  EXPECT_TRUE(t.resolve(IONIC_DMA_LKEY, 0x1000, 8, true, &runs));
  EXPECT_EQ(runs_of(runs), (Runs{{0x1000, 8}}));
}

TEST(RdmaMem, TheTableHoldsAtMost1024AndRegMrDropsTheOtherRotations) {
  MrTable t;
  for (uint32_t k = 1; k <= IONIC_RDMA_MAX_MR; ++k) ASSERT_TRUE(t.put(MemRegion{k, 0, 8, 0, {}}));
  EXPECT_FALSE(t.put(MemRegion{0x5000, 0, 8, 0, {}}));  // a 1025th
  EXPECT_TRUE(t.put(MemRegion{3, 0, 16, 0, {}}));       // a key already there is replaced
  EXPECT_EQ(t.size(), size_t(IONIC_RDMA_MAX_MR));
  EXPECT_EQ(t.find(3)->length, 16u);
  t.drop_rotations(0x01000005);  // the same low 24 bits as key 5
  EXPECT_EQ(t.find(5), nullptr);
  EXPECT_NE(t.find(6), nullptr);
  EXPECT_TRUE(t.remove(6));
  EXPECT_FALSE(t.remove(6));
}

TEST(RdmaMem, APageTableIsReadByDmaAndItsLimitsRefused) {
  FakeDeviceIo dev{0x100000};
  for (int i = 0; i < 3; ++i) put_le64(dev.at(0x100000 + 8 * i), 0x50000 + 0x1000 * uint64_t(i));
  bool ok = false;
  GuestBuf got;
  std::string why;
  auto done = [&](bool o, GuestBuf b, std::string w) {
    ok = o;
    got = std::move(b);
    why = std::move(w);
  };
  load_buf(dev, BufDesc{0x100000, 3, 0}, 0x70000123, done);
  ASSERT_TRUE(ok) << why;
  EXPECT_EQ(got.pages, (std::vector<uint64_t>{0x50000, 0x51000, 0x52000}));
  EXPECT_EQ(got.first_off, 0x123u);
  EXPECT_EQ(got.page_shift, 12u);
  load_buf(dev, BufDesc{0x4000, 1, 0}, 0, done);  // one entry: direct
  EXPECT_TRUE(ok);
  EXPECT_EQ(got.base, 0x4000u);
  EXPECT_TRUE(got.pages.empty());
  load_buf(dev, BufDesc{0x100000, 3, 31}, 0, done);
  EXPECT_FALSE(ok);
  EXPECT_EQ(why, "page size 2^31 above 2^30");
  load_buf(dev, BufDesc{0x100000, IONIC_RDMA_MAX_MAP_COUNT + 1, 0}, 0, done);
  EXPECT_FALSE(ok);
  EXPECT_EQ(why, "page table of 65537 entries, more than 65536");
  load_buf(dev, BufDesc{0x900000, 2, 0}, 0, done);  // the table is not in guest memory
  EXPECT_FALSE(ok);
  EXPECT_EQ(why, "page table read at 0x900000 failed");
}

TEST(RdmaMem, AQpRecreatedEndsTheWorkOfTheOneBefore) {
  RdmaResources res;
  res.qps[4].gen = 1;
  EXPECT_EQ(res.live_qp(4, 1), &res.qps[4]);
  res.qps.erase(4);  // destroyed and created again
  res.qps[4].gen = 2;
  EXPECT_EQ(res.live_qp(4, 1), nullptr);
  EXPECT_NE(res.live_qp(4, 2), nullptr);
  res.mrs.put(MemRegion{9, 0, 8, 0, {}});
  res.clear();  // RESET_LIF
  EXPECT_EQ(res.live_qp(4, 2), nullptr);
  EXPECT_EQ(res.mrs.size(), 0u);
}

}  // namespace rdma_mem_test
}  // namespace dpusim::ionic
