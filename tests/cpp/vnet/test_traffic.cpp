// The traffic source and checker (models/net/frame_source.h) and the driver's side of a split
// ring in C++ (models/guest/driver_ring.h).
#include <gtest/gtest.h>

#include <vector>

#include "guest/driver_ring.h"
#include "net/frame_source.h"
#include "vnet/virtio/virtio_spec.h"

using namespace dpusim;

namespace {
const uint8_t kDst[6] = {2, 0, 0, 0, 0, 1}, kSrc[6] = {2, 0, 0, 0, 0, 2};
}

TEST(Traffic, FramesCarryFlowSequenceAndLength) {
  net::FrameSource src(42, pcie::Rng(1, "t"), net::SizeDistribution::fixed(64), kDst, kSrc);
  std::vector<uint8_t> f(64);
  ASSERT_EQ(src.next(3, 777, f.data()), 64u);
  ASSERT_EQ(src.next(3, 778, f.data()), 64u);
  EXPECT_EQ(f[12], 0x88);
  EXPECT_EQ(f[13], 0xB5);
  EXPECT_EQ(f[14], 1);   // sequence 1 of flow 3
  EXPECT_EQ(f[22], 3);
  EXPECT_EQ(f[24], 64);
  EXPECT_EQ(f[26], uint8_t(778 & 0xff));
  EXPECT_EQ(src.sent_in(3), 2u);
}

TEST(Traffic, CheckerAcceptsWhatWasSentAndRefusesEveryKindOfDamage) {
  net::FrameSource src(9, pcie::Rng(1, "t"), net::SizeDistribution::uniform(60, 1500), kDst, kSrc);
  net::FrameChecker chk(9);
  std::vector<std::vector<uint8_t>> frames;
  for (int i = 0; i < 5; ++i) {
    std::vector<uint8_t> f(1500);
    f.resize(src.next(0, 1000, f.data()));
    frames.push_back(f);
  }
  EXPECT_TRUE(chk.check(0, frames[0].data(), frames[0].size(), 1500));
  EXPECT_TRUE(chk.check(1, frames[2].data(), frames[2].size(), 1600));  // another queue may run ahead
  EXPECT_TRUE(chk.check(0, frames[1].data(), frames[1].size(), 1700));
  EXPECT_FALSE(chk.check(0, frames[1].data(), frames[1].size(), 1800));  // twice
  std::vector<uint8_t> bad = frames[3];
  bad[40] ^= 1;
  EXPECT_FALSE(chk.check(0, bad.data(), bad.size(), 1900));  // payload changed
  EXPECT_FALSE(chk.check(0, frames[4].data(), frames[4].size() - 1, 1900));  // length field disagrees
  EXPECT_TRUE(chk.check(1, frames[4].data(), frames[4].size(), 2000));
  EXPECT_FALSE(chk.check(1, frames[3].data(), frames[3].size(), 2100));  // behind 4 on queue 1
  const auto& c = chk.counts();
  EXPECT_EQ(c.good, 4u);
  EXPECT_EQ(c.duplicate, 1u);
  EXPECT_EQ(c.corrupt, 1u);
  EXPECT_EQ(c.malformed, 1u);
  EXPECT_EQ(c.reordered, 1u);
  EXPECT_EQ(chk.missing(0, 5), 0u);  // every frame came, one of them out of order
  EXPECT_EQ(chk.missing(0, 6), 1u);  // a sixth was never received
  EXPECT_EQ(c.latency_min_ps, 500u);
  EXPECT_EQ(c.latency_max_ps, 1000u);
  EXPECT_EQ(chk.first_problem(), "flow 0 frame 1 received twice");
}

TEST(Traffic, SizesAreDrawnFromTheDistributionAndCheckedOnTheWayIn) {
  net::SizeDistribution imix{{{64, 7}, {576, 4}, {1500, 1}}, 0, 0};
  pcie::Rng rng(5, "sizes");
  unsigned small = 0;
  for (int i = 0; i < 1200; ++i) {
    const size_t n = imix.draw(rng);
    ASSERT_TRUE(n == 64 || n == 576 || n == 1500);
    small += n == 64;
  }
  EXPECT_GT(small, 600u);
  EXPECT_LT(small, 800u);
  EXPECT_EQ(imix.describe(), "64x7,576x4,1500x1");
  EXPECT_THROW(net::SizeDistribution::fixed(20).check(net::kTrafficHeaderBytes, 2036), std::invalid_argument);
  EXPECT_THROW(net::SizeDistribution::uniform(100, 60).check(net::kTrafficHeaderBytes, 2036), std::invalid_argument);
}

TEST(DriverRing, ChainsGoInFifoSlotsAndComeBackUsed) {
  host::HostMemory mem;
  guest::DriverRing::Layout l{8, mem.alloc(16 * 8, 16), mem.alloc(6 + 2 * 8, 2), mem.alloc(6 + 8 * 8, 4)};
  guest::DriverRing::State s;
  for (uint16_t i = 0; i < 8; ++i) s.free_ids.push_back(uint16_t(7 - i));  // as a driver left them
  guest::DriverRing ring(mem, l, s);
  const guest::Buf two[2] = {{0x1000, 12}, {0x2000, 60}};
  ASSERT_TRUE(ring.add(two, 2, 0, 111));
  uint8_t d[16];
  mem.read(l.desc + 16 * 7, d, 16);  // the first free id, 7, heads the chain and links to 6
  EXPECT_EQ(virtio::get_le64(d), 0x1000u);
  EXPECT_EQ(virtio::get_le16(d + 12), virtio::VRING_DESC_F_NEXT);
  EXPECT_EQ(virtio::get_le16(d + 14), 6);
  uint8_t a[6];
  mem.read(l.avail, a, 6);
  EXPECT_EQ(virtio::get_le16(a + 2), 1);  // idx
  EXPECT_EQ(virtio::get_le16(a + 4), 7);  // ring[0] = head
  EXPECT_EQ(ring.num_free(), 6u);
  uint64_t token;
  uint32_t len;
  EXPECT_FALSE(ring.get(&token, &len));
  // The device uses the chain.
  uint8_t e[8] = {7, 0, 0, 0, 72, 0, 0, 0};
  mem.write(l.used + 4, e, 8);
  uint8_t idx[2] = {1, 0};
  mem.write(l.used + 2, idx, 2);
  ASSERT_TRUE(ring.get(&token, &len));
  EXPECT_EQ(token, 111u);
  EXPECT_EQ(len, 72u);
  EXPECT_EQ(ring.num_free(), 8u);
  EXPECT_EQ(ring.state().free_ids.back(), 6);  // returned to the end, in chain order
  // A state naming a descriptor twice is refused.
  guest::DriverRing::State twice;
  twice.free_ids = {1, 1};
  EXPECT_THROW(guest::DriverRing(mem, l, twice), std::invalid_argument);
}
