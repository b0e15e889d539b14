// Host memory (models/host/host_memory.h): a deterministic bump allocator over the low DRAM
// window (0x1000_0000..0xC000_0000, below the 32-bit MMIO aperture), then high DRAM from 4 GiB;
// bytes held in sparse 4 KiB pages, zero until written; only what was allocated is memory.
#include <gtest/gtest.h>

#include <stdexcept>
#include <tuple>
#include <vector>

#include "host/host_memory.h"

using dpusim::host::HostMemory;

TEST(HostMemory, TheBumpAllocatorAlignsAndNeverReuses) {
  HostMemory mem;
  EXPECT_EQ(mem.alloc(100, 16), 0x10000000u);
  EXPECT_EQ(mem.alloc(10, 4096), 0x10001000u);
  EXPECT_EQ(mem.alloc(1, 1), 0x1000100au);
  EXPECT_EQ(mem.allocated_bytes(), 111u);
  EXPECT_TRUE(mem.free(0x10001000));
  EXPECT_FALSE(mem.free(0x10001000));  // already freed
  EXPECT_FALSE(mem.free(0x10000004));  // not the start of an allocation
  EXPECT_EQ(mem.allocated_bytes(), 101u);
  EXPECT_EQ(mem.alloc(8, 8), 0x10001010u);  // after the last one, freed or not
}

TEST(HostMemory, LowDramFirstThenHighDramThenARefusalNamingTheSize) {
  HostMemory mem;
  EXPECT_EQ(mem.alloc(HostMemory::kLowEnd - HostMemory::kLowBase - 64, 64), HostMemory::kLowBase);
  EXPECT_EQ(mem.alloc(128, 64), HostMemory::kHighBase);  // 64 bytes left below: does not fit
  EXPECT_EQ(mem.alloc(64, 64), HostMemory::kLowEnd - 64);  // this does
  EXPECT_EQ(mem.alloc(uint64_t(1) << 37, 4096), 0x100001000u);  // 128 GiB, sparse
  try {
    mem.alloc(HostMemory::kHighEnd, 1);
    FAIL() << "allocated more than the host has";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "host memory exhausted: cannot allocate 274877906944 bytes");
  }
}

TEST(HostMemory, BadSizesAndAlignmentsAreRefused) {
  HostMemory mem;
  for (const auto& [size, align, what] :
       std::vector<std::tuple<uint64_t, uint64_t, const char*>>{{0, 4, "host memory allocation of 0 bytes"},
                                                                 {8, 3, "host memory alignment 3 is not a power of two"},
                                                                 {8, 0, "host memory alignment 0 is not a power of two"}}) {
    try {
      mem.alloc(size, align);
      ADD_FAILURE() << "accepted size " << size << " align " << align;
    } catch (const std::invalid_argument& e) {
      EXPECT_STREQ(e.what(), what);
    }
  }
  EXPECT_EQ(mem.allocated_bytes(), 0u);
}

TEST(HostMemory, OnlyWhatWasAllocatedIsMemory) {
  HostMemory mem;
  const uint64_t a = mem.alloc(96, 16);
  EXPECT_TRUE(mem.allocated(a, 96));
  EXPECT_TRUE(mem.allocated(a + 95, 1));
  EXPECT_FALSE(mem.allocated(a, 97));
  EXPECT_FALSE(mem.allocated(a - 1, 1));
  EXPECT_FALSE(mem.allocated(UINT64_MAX - 1, 4));  // no wrap-around
  const uint64_t b = mem.alloc(16, 16);
  ASSERT_EQ(b, a + 96);
  EXPECT_TRUE(mem.allocated(b, 16));
  EXPECT_FALSE(mem.allocated(a + 90, 10)) << "two allocations that abut are two, not one";
  mem.free(a);
  EXPECT_FALSE(mem.allocated(a, 1));
  EXPECT_TRUE(mem.allocated(b, 16));
}

TEST(HostMemory, PagesAreZeroUntilWrittenAndAFreeKeepsANeighboursBytes) {
  HostMemory mem;
  const uint64_t a = mem.alloc(8192, 4096);
  std::vector<uint8_t> out(16, 0xee);
  mem.read(a + 4090, out.data(), out.size());
  EXPECT_EQ(out, std::vector<uint8_t>(16, 0));
  std::vector<uint8_t> in(16);
  for (size_t k = 0; k < in.size(); ++k) in[k] = uint8_t(k + 1);
  mem.write(a + 4090, in.data(), in.size());  // across the page boundary
  mem.read(a + 4090, out.data(), out.size());
  EXPECT_EQ(out, in);
  // Two allocations sharing a page: freeing one keeps the other's bytes.
  const uint64_t x = mem.alloc(16, 16), y = mem.alloc(16, 16);
  ASSERT_EQ(x / 4096, y / 4096);
  const uint8_t seven = 7;
  mem.write(y, &seven, 1);
  mem.write(x, &seven, 1);
  mem.free(x);
  uint8_t got = 0;
  mem.read(y, &got, 1);
  EXPECT_EQ(got, 7);
  // A freed page of its own is gone: its bytes read 0 again.
  mem.free(a);
  mem.read(a + 4090, out.data(), out.size());
  EXPECT_EQ(out, std::vector<uint8_t>(16, 0));
}
