// Guest memory as the RDMA datapath reaches it (rocm-ernic's ionic_datapath.c): buffers that
// are direct or described by a page table, and the memory region table every SGE's lkey and
// every rkey resolve through.
//
//  - A buffer with map_count <= 1 is direct: its bytes are at dma_addr onwards. Otherwise
//    dma_addr holds map_count le64 page addresses (pages of 2^page_size_log2 bytes, 4 KiB when
//    0; above 2^30 refused), read by DMA once, when the buffer is registered; a region's first
//    byte sits at va's offset within the first page.
//  - The region table holds at most 1024 regions, keyed by the full 32-bit key (lkeys and
//    rkeys share it). Containment is by subtraction, which cannot overflow: va >= r.va,
//    len <= r.length and va - r.va <= r.length - len.
//  - lkey 0 (IONIC_DMA_LKEY) names a bus address directly; only a local work request may use
//    it, never a peer's rkey.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ionic/rdma_decode.h"

namespace dpusim::ionic {

// A contiguous piece of guest memory on the bus.
struct BusRun {
  uint64_t addr = 0;
  uint64_t len = 0;
};

struct GuestBuf {
  uint64_t base = 0;               // direct
  std::vector<uint64_t> pages;     // page table (empty: direct)
  unsigned page_shift = 12;
  uint64_t first_off = 0;          // the first byte's offset in page 0
  // The bus address of byte `off` and how many bytes are contiguous from there (0 past the
  // table's end; unbounded for a direct buffer).
  uint64_t bus(uint64_t off, uint64_t* run) const;
};

// Largest page table the device reads (entries), so that a guest's map_count cannot make it
// allocate without bound.
inline constexpr uint32_t IONIC_RDMA_MAX_MAP_COUNT = 1u << 16;

struct MemRegion {
  uint32_t key = 0;
  uint64_t va = 0, length = 0;
  uint16_t access = 0;  // IB access flags
  GuestBuf buf;
};

bool region_contains(const MemRegion& r, uint64_t va, uint64_t len);

class MrTable {
 public:
  const MemRegion* find(uint32_t key) const;
  // Adds or replaces the region of r.key; false when the table is full.
  bool put(MemRegion r);
  bool remove(uint32_t key);
  // REG_MR re-binds a region: any other key with the same low 24 bits goes.
  void drop_rotations(uint32_t key);
  size_t size() const { return regions_.size(); }
  // Resolves [va, va + len) of `key` to bus runs. lkey 0 names bus addresses (when
  // `allow_dma_key`). False when the key is unknown or the range is outside its region.
  bool resolve(uint32_t key, uint64_t va, uint64_t len, bool allow_dma_key, std::vector<BusRun>* out) const;

 private:
  std::map<uint32_t, MemRegion> regions_;
};

// Resolves `len` bytes of a buffer from offset `off` to bus runs; false past its end.
bool buf_runs(const GuestBuf& b, uint64_t off, uint64_t len, std::vector<BusRun>* out);

}  // namespace dpusim::ionic
