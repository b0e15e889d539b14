// The driver's side of a split ring in C++ (models/guest/driver_ring.h): chains placed in the
// free descriptors in FIFO order, published in the avail ring, taken back from the used ring
// (virtio 1.2 §2.7).
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>

#include "guest/driver_ring.h"
#include "host/host_memory.h"
#include "vnet/virtio/virtio_spec.h"

using namespace dpusim;

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
