#include "ionic/rdma_p4_memory.h"

#include <cstring>

#include "dpusim/p4/rdma/verbs.h"

namespace dpusim::ionic {

StagedMemory::StagedMemory(const MrTable& mrs, std::vector<Staged> staged, bool has_peer_rkey, uint32_t peer_rkey,
                           uint64_t peer_va)
    : mrs_(mrs), staged_(std::move(staged)), has_peer_(has_peer_rkey) {
  peer_.key = peer_rkey;
  peer_.owner = p4::rdma::RegionOwner::kPeer;
  peer_.addr = peer_va;
  peer_.length = UINT64_MAX - peer_va;
}

const p4::rdma::MemoryRegion* StagedMemory::find_rkey(uint32_t key) const {
  if (has_peer_ && key == peer_.key) return &peer_;
  return find(key);
}

const p4::rdma::MemoryRegion* StagedMemory::find(uint32_t key) const {
  auto it = seen_.find(key);
  if (it != seen_.end()) return &it->second;
  p4::rdma::MemoryRegion r;
  r.key = key;
  if (key == IONIC_DMA_LKEY) {  // bus addresses, all of them, for the guest's own kernel
    r.access = p4::rdma::IB_ACCESS_LOCAL_WRITE | p4::rdma::IB_ACCESS_REMOTE_WRITE | p4::rdma::IB_ACCESS_REMOTE_READ;
    r.length = UINT64_MAX;
  } else {
    const MemRegion* m = mrs_.find(key);
    if (!m) return nullptr;
    r.access = m->access;
    r.addr = m->va;
    r.length = m->length;
  }
  return &seen_.emplace(key, r).first->second;
}

bool StagedMemory::read(const p4::rdma::MemoryRegion& region, uint64_t addr, uint8_t* data, size_t len) {
  for (const Staged& s : staged_) {
    if (s.key != region.key || addr < s.va || len > s.bytes.size() || addr - s.va > s.bytes.size() - len) continue;
    std::memcpy(data, s.bytes.data() + (addr - s.va), len);
    return true;
  }
  return false;  // not gathered: read as a DMA failure
}

bool StagedMemory::write(const p4::rdma::MemoryRegion& region, uint64_t addr, const uint8_t* data, size_t len) {
  writes_.push_back(Write{region.key, addr, std::vector<uint8_t>(data, data + len)});
  return true;
}

bool StagedMemory::locate(const p4::rdma::MemoryRegion& region, uint64_t addr, uint64_t len,
                          std::vector<p4::rdma::MemoryRun>* out) const {
  std::vector<BusRun> runs;
  if (!mrs_.resolve(region.key, addr, len, true, &runs)) return false;
  out->clear();
  for (const BusRun& r : runs) out->push_back({r.addr, r.len});
  return true;
}

}  // namespace dpusim::ionic
