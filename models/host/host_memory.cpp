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
  return addr;
}

bool HostMemory::free(uint64_t addr) {
  auto it = regions_.find(addr);
  if (it == regions_.end()) return false;
  allocated_bytes_ -= it->second - it->first;
  for (uint64_t p = it->first / kPage; p <= (it->second - 1) / kPage; ++p) {
    // A page may be shared with a neighbouring allocation: keep it then.
    const uint64_t lo = p * kPage, hi = lo + kPage;
    auto next = std::next(it);
    const bool shared = (it != regions_.begin() && std::prev(it)->second > lo) ||
                        (next != regions_.end() && next->first < hi);
    if (!shared) pages_.erase(p);
  }
  regions_.erase(it);
  return true;
}

bool HostMemory::allocated(uint64_t addr, uint64_t len) const {
  if (len == 0) len = 1;
  auto it = regions_.upper_bound(addr);
  if (it == regions_.begin()) return false;
  --it;
  return addr >= it->first && addr + len <= it->second && addr + len > addr;
}

void HostMemory::read(uint64_t addr, uint8_t* out, uint64_t len) const {
  while (len) {
    const uint64_t page = addr / kPage, off = addr % kPage;
    const uint64_t n = std::min(len, kPage - off);
    auto it = pages_.find(page);
    if (it == pages_.end()) {
      std::memset(out, 0, n);
    } else {
      std::memcpy(out, it->second->data() + off, n);
    }
    addr += n;
    out += n;
    len -= n;
  }
}

void HostMemory::write(uint64_t addr, const uint8_t* in, uint64_t len) {
  while (len) {
    const uint64_t page = addr / kPage, off = addr % kPage;
    const uint64_t n = std::min(len, kPage - off);
    auto& p = pages_[page];
    if (!p) {
      p = std::make_unique<Page>();
      p->fill(0);
    }
    std::memcpy(p->data() + off, in, n);
    addr += n;
    in += n;
    len -= n;
  }
}

}  // namespace dpusim::host
