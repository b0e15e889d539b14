// Host memory: a sparse 64-bit byte store holding only what the host allocated, which devices
// reach by DMA. Allocation is a deterministic bump allocator (docs/architecture.md gives the
// windows); what lies outside every allocation is not memory, and a DMA there is refused.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

namespace dpusim::host {

class HostMemory {
 public:
  // Low DRAM window for allocations (below the 32-bit MMIO aperture), then high DRAM.
  static constexpr uint64_t kLowBase = 0x0000000010000000ull;
  static constexpr uint64_t kLowEnd = 0x00000000c0000000ull;
  static constexpr uint64_t kHighBase = 0x0000000100000000ull;
  static constexpr uint64_t kHighEnd = 0x0000004000000000ull;

  // Allocates `size` bytes aligned to `align` (a power of two); zero-filled. Throws
  // std::invalid_argument for a bad size/alignment, std::runtime_error when memory runs out.
  uint64_t alloc(uint64_t size, uint64_t align);
  // Frees the allocation that starts at `addr`; false if there is none.
  bool free(uint64_t addr);
  // True when [addr, addr + len) lies inside one allocation.
  bool allocated(uint64_t addr, uint64_t len) const;

  // Byte access without checks beyond allocation (the caller checked). Unwritten bytes read 0.
  void read(uint64_t addr, uint8_t* out, uint64_t len) const;
  void write(uint64_t addr, const uint8_t* in, uint64_t len);

  uint64_t allocated_bytes() const { return allocated_bytes_; }

  // Memory that lives elsewhere: [base, base + size) is `data` (a user-mode kernel's RAM as the
  // vhost-user memory table maps it, linux_bridge.h). It counts as allocated, so devices reach
  // it by DMA like any allocation; the owner keeps `data` valid until detach(). Throws
  // std::invalid_argument when the range is empty, wraps or overlaps an allocation.
  void attach(uint64_t base, uint64_t size, uint8_t* data);
  bool detach(uint64_t base);
  // How many write() calls landed in attached memory (direct pointers are not counted).
  uint64_t attached_writes() const { return attached_writes_; }

  // Direct access (the root complex's DMI grants): the page holding `addr` inside its
  // allocation, as a pointer to byte `*start` valid up to `*end` (inclusive), materialising the
  // page; null when `addr` is in no allocation, with [*start, *end] then the unallocated gap on
  // its page. A pointer stays valid until the range is freed (on_change says when).
  uint8_t* direct(uint64_t addr, uint64_t* start, uint64_t* end);
  // Called with [start, end) whenever an allocation appears or goes.
  std::function<void(uint64_t, uint64_t)> on_change;

 private:
  static constexpr uint64_t kPage = 4096;
  using Page = std::array<uint8_t, kPage>;
  // The page, through a small cache of recent look-ups (pages never move; freeing one clears
  // the cache); create: materialise it (zeroed) if it does not exist.
  Page* page(uint64_t number, bool create) const;
  // Looked up by page number only, never iterated: the order of an unordered map cannot leak.
  std::unordered_map<uint64_t, std::unique_ptr<Page>> pages_;
  std::map<uint64_t, uint64_t> regions_;  // start -> end (exclusive)
  std::map<uint64_t, uint8_t*> attached_;  // start of an attached region -> its bytes
  uint64_t attached_writes_ = 0;
  // The bytes of [addr, addr + len) when it lies in an attached region, else null.
  uint8_t* attached_at(uint64_t addr, uint64_t len) const;
  uint64_t next_low_ = kLowBase, next_high_ = kHighBase;
  uint64_t allocated_bytes_ = 0;
  mutable std::array<std::pair<uint64_t, Page*>, 16> recent_{};  // (page number + 1, page)
};

}  // namespace dpusim::host
