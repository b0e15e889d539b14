#include "host/host_memory.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

namespace dpusim::host {

uint64_t HostMemory::alloc(uint64_t size, uint64_t align) {
  if (size == 0) throw std::invalid_argument("host memory allocation of 0 bytes");
  if (align == 0 || (align & (align - 1)))
    throw std::invalid_argument("host memory alignment " + std::to_string(align) + " is not a power of two");
  auto fit = [&](uint64_t& next, uint64_t end) -> uint64_t {
    const uint64_t start = (next + align - 1) & ~(align - 1);
    if (start < next || start + size < start || start + size > end) return 0;
    next = start + size;
    return start;
  };
  uint64_t addr = fit(next_low_, kLowEnd);
  if (!addr) addr = fit(next_high_, kHighEnd);
  if (!addr)
    throw std::runtime_error("host memory exhausted: cannot allocate " + std::to_string(size) + " bytes");
  regions_[addr] = addr + size;
  allocated_bytes_ += size;
  if (on_change) on_change(addr, addr + size);
  return addr;
}

bool HostMemory::free(uint64_t addr) {
  auto it = regions_.find(addr);
  if (it == regions_.end() || attached_.count(addr)) return false;  // attached memory: detach()
  allocated_bytes_ -= it->second - it->first;
  if (on_change) on_change(it->first, it->second);  // before the pages go
  for (uint64_t p = it->first / kPage; p <= (it->second - 1) / kPage; ++p) {
    // A page may be shared with a neighbouring allocation: keep it then.
    const uint64_t lo = p * kPage, hi = lo + kPage;
    auto next = std::next(it);
    const bool shared = (it != regions_.begin() && std::prev(it)->second > lo) ||
                        (next != regions_.end() && next->first < hi);
    if (!shared) pages_.erase(p);
  }
  recent_.fill({0, nullptr});
  regions_.erase(it);
  return true;
}

void HostMemory::attach(uint64_t base, uint64_t size, uint8_t* data) {
  if (size == 0 || base + size < base || !data)
    throw std::invalid_argument("attached memory of " + std::to_string(size) + " bytes at " + std::to_string(base) +
                                " is empty or wraps");
  auto next = regions_.lower_bound(base);
  if ((next != regions_.end() && next->first < base + size) ||
      (next != regions_.begin() && std::prev(next)->second > base))
    throw std::invalid_argument("attached memory at " + std::to_string(base) + " overlaps an allocation");
  regions_[base] = base + size;
  attached_[base] = data;
  if (on_change) on_change(base, base + size);
}

bool HostMemory::detach(uint64_t base) {
  auto it = attached_.find(base);
  if (it == attached_.end()) return false;
  if (on_change) on_change(base, regions_[base]);
  regions_.erase(base);
  attached_.erase(it);
  return true;
}

uint8_t* HostMemory::attached_at(uint64_t addr, uint64_t len) const {
  if (attached_.empty()) return nullptr;
  auto it = attached_.upper_bound(addr);
  if (it == attached_.begin()) return nullptr;
  --it;
  const uint64_t end = regions_.at(it->first);
  return addr >= it->first && addr + len <= end ? it->second + (addr - it->first) : nullptr;
}

bool HostMemory::allocated(uint64_t addr, uint64_t len) const {
  if (len == 0) len = 1;
  auto it = regions_.upper_bound(addr);
  if (it == regions_.begin()) return false;
  --it;
  return addr >= it->first && addr + len <= it->second && addr + len > addr;
}

uint8_t* HostMemory::direct(uint64_t addr, uint64_t* start, uint64_t* end) {
  const uint64_t page_lo = addr / kPage * kPage, page_hi = page_lo + kPage - 1;
  auto next = regions_.upper_bound(addr);
  if (next != regions_.begin()) {
    auto it = std::prev(next);
    if (addr < it->second) {
      *start = std::max(page_lo, it->first);
      *end = std::min(page_hi, it->second - 1);
      if (uint8_t* ext = attached_at(*start, 1)) return ext;
      return page(addr / kPage, true)->data() + (*start - page_lo);
    }
    *start = std::max(page_lo, it->second);
  } else {
    *start = page_lo;
  }
  *end = next == regions_.end() ? page_hi : std::min(page_hi, next->first - 1);
  return nullptr;
}

HostMemory::Page* HostMemory::page(uint64_t number, bool create) const {
  auto& slot = recent_[number % recent_.size()];
  if (slot.first == number + 1) return slot.second;
  auto it = pages_.find(number);
  Page* p = nullptr;
  if (it != pages_.end()) {
    p = it->second.get();
  } else if (create) {
    auto& owned = const_cast<HostMemory*>(this)->pages_[number];
    owned = std::make_unique<Page>();
    owned->fill(0);
    p = owned.get();
  } else {
    return nullptr;
  }
  slot = {number + 1, p};
  return p;
}

void HostMemory::read(uint64_t addr, uint8_t* out, uint64_t len) const {
  if (const uint8_t* ext = attached_at(addr, len)) {
    std::memcpy(out, ext, len);
    return;
  }
  while (len) {
    const uint64_t off = addr % kPage;
    const uint64_t n = std::min(len, kPage - off);
    const Page* p = page(addr / kPage, false);
    if (!p) {
      std::memset(out, 0, n);
    } else {
      std::memcpy(out, p->data() + off, n);
    }
    addr += n;
    out += n;
    len -= n;
  }
}

void HostMemory::write(uint64_t addr, const uint8_t* in, uint64_t len) {
  if (uint8_t* ext = attached_at(addr, len)) {
    std::memcpy(ext, in, len);
    ++attached_writes_;
    return;
  }
  while (len) {
    const uint64_t off = addr % kPage;
    const uint64_t n = std::min(len, kPage - off);
    std::memcpy(page(addr / kPage, true)->data() + off, in, n);
    addr += n;
    in += n;
    len -= n;
  }
}

}  // namespace dpusim::host
