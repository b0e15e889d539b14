#include "ionic/rdma_mem.h"

#include <algorithm>

namespace dpusim::ionic {

uint64_t GuestBuf::bus(uint64_t off, uint64_t* run) const {
  if (pages.empty()) {
    *run = UINT64_MAX - off;
    return base + off;
  }
  const uint64_t abs = off + first_off;
  const uint64_t psz = uint64_t(1) << page_shift;
  uint64_t idx = abs >> page_shift;
  if (abs < off || idx >= pages.size()) {
    *run = 0;
    return 0;
  }
  const uint64_t addr = pages[idx] + (abs & (psz - 1));
  uint64_t len = psz - (abs & (psz - 1));
  // Physically adjacent pages continue the run.
  while (idx + 1 < pages.size() && pages[idx + 1] == pages[idx] + psz) {
    len += psz;
    ++idx;
  }
  *run = len;
  return addr;
}

bool buf_runs(const GuestBuf& b, uint64_t off, uint64_t len, std::vector<BusRun>* out) {
  uint64_t done = 0;
  while (done < len) {
    uint64_t run = 0;
    const uint64_t addr = b.bus(off + done, &run);
    if (run == 0) return false;
    const uint64_t n = std::min(run, len - done);
    if (!out->empty() && out->back().addr + out->back().len == addr) out->back().len += n;
    else out->push_back({addr, n});
    done += n;
  }
  return true;
}

bool region_contains(const MemRegion& r, uint64_t va, uint64_t len) {
  return va >= r.va && len <= r.length && va - r.va <= r.length - len;
}

const MemRegion* MrTable::find(uint32_t key) const {
  auto it = regions_.find(key);
  return it == regions_.end() ? nullptr : &it->second;
}

bool MrTable::put(MemRegion r) {
  if (!regions_.count(r.key) && regions_.size() >= IONIC_RDMA_MAX_MR) return false;
  regions_[r.key] = std::move(r);
  return true;
}

bool MrTable::remove(uint32_t key) { return regions_.erase(key) != 0; }

void MrTable::drop_rotations(uint32_t key) {
  for (auto it = regions_.begin(); it != regions_.end();) {
    if (it->first != key && (it->first & 0xffffff) == (key & 0xffffff)) it = regions_.erase(it);
    else ++it;
  }
}

bool MrTable::resolve(uint32_t key, uint64_t va, uint64_t len, bool allow_dma_key, std::vector<BusRun>* out) const {
  if (key == IONIC_DMA_LKEY) {
    if (!allow_dma_key) return false;
    if (len) out->push_back({va, len});
    return true;
  }
  const MemRegion* r = find(key);
  if (!r || !region_contains(*r, va, len)) return false;
  return buf_runs(r->buf, va - r->va, len, out);
}

}  // namespace dpusim::ionic
