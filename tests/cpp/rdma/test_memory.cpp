// Memory regions: containment that cannot wrap, and the flat memory's window and key rules.
#include "rdma_test_util.h"

namespace dpusim::p4::rdma::test {
namespace {

TEST(Memory, ContainmentIsExactAtBothEndsAndCannotWrap) {
  MemoryRegion r{1, RegionOwner::kLocal, 0, 0x1000, 0x100};
  EXPECT_TRUE(region_covers(r, 0x1000, 0x100));
  EXPECT_TRUE(region_covers(r, 0x10ff, 1));
  EXPECT_TRUE(region_covers(r, 0x1100, 0));
  EXPECT_FALSE(region_covers(r, 0x1100, 1));
  EXPECT_FALSE(region_covers(r, 0xfff, 1));
  EXPECT_FALSE(region_covers(r, 0x1001, 0x100));
  // addr + len would wrap to inside the region.
  EXPECT_FALSE(region_covers(r, UINT64_MAX, 0x1002));
  MemoryRegion top{2, RegionOwner::kLocal, 0, UINT64_MAX - 0xf, 0x10};
  EXPECT_TRUE(region_covers(top, UINT64_MAX, 1));
  EXPECT_FALSE(region_covers(top, UINT64_MAX, 2));
}

TEST(Memory, AWindowTooLargeOrWrappingIsRefused) {
  std::string error;
  EXPECT_EQ(FlatMemory::create(0, FlatMemory::kMaxBytes + 1, &error), nullptr);
  EXPECT_NE(error.find("larger than the limit of 67108864 bytes"), std::string::npos) << error;
  EXPECT_EQ(FlatMemory::create(UINT64_MAX - 2, 4, &error), nullptr);
  EXPECT_NE(error.find("wraps past 2^64"), std::string::npos) << error;
  EXPECT_NE(FlatMemory::create(UINT64_MAX - 3, 4, &error), nullptr);
}

TEST(Memory, RegionsMustLieInTheWindowAndKeysAreUnique) {
  auto m = memory(0x10000, 0x1000);
  std::string error;
  EXPECT_TRUE(m->add_region({1, RegionOwner::kLocal, 0, 0x10000, 0x1000}, &error));
  EXPECT_FALSE(m->add_region({1, RegionOwner::kLocal, 0, 0x10000, 0x10}, &error));
  EXPECT_NE(error.find("region key 0x00000001 [0x10000, +16): the key is already registered"), std::string::npos) << error;
  EXPECT_FALSE(m->add_region({2, RegionOwner::kLocal, 0, 0x10ff0, 0x11}, &error));
  EXPECT_NE(error.find("is not inside the memory window [0x10000, +4096)"), std::string::npos) << error;
  // Two keys over the same bytes, and a peer's key whose range is on the peer.
  EXPECT_TRUE(m->add_region({3, RegionOwner::kLocal, 0, 0x10000, 0x10}, &error));
  EXPECT_TRUE(m->add_region({4, RegionOwner::kPeer, 0, 0x900000000, 0x10}, &error));
  EXPECT_TRUE(m->remove_region(3));
  EXPECT_FALSE(m->remove_region(3));
  EXPECT_EQ(m->find(3), nullptr);
}

TEST(Memory, DmaStaysInsideItsRegionAndNeverReachesAPeer) {
  auto m = memory(0x10000, 0x100);
  add(*m, 1, 0x10010, 0x10);
  add(*m, 2, 0x10010, 0x10, 0, RegionOwner::kPeer);
  std::uint8_t buf[0x11] = {};
  EXPECT_TRUE(m->write(*m->find(1), 0x10010, buf, 0x10));
  EXPECT_FALSE(m->write(*m->find(1), 0x10010, buf, 0x11));
  EXPECT_FALSE(m->read(*m->find(1), 0x1000f, buf, 1));
  EXPECT_FALSE(m->read(*m->find(2), 0x10010, buf, 1));
  EXPECT_FALSE(m->poke(0x100ff, buf, 2));
  EXPECT_TRUE(m->peek(0x100ff, buf, 1));
}

}  // namespace
}  // namespace dpusim::p4::rdma::test
