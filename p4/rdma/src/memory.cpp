// Region containment and the flat guest memory of tests and the Python bindings.
#include "dpusim/p4/rdma/memory.h"

#include <cstring>

#include "hex.h"

namespace dpusim::p4::rdma {

bool region_covers(const MemoryRegion& r, std::uint64_t addr, std::uint64_t len) {
  return addr >= r.addr && len <= r.length && addr - r.addr <= r.length - len;
}

bool RdmaMemory::locate(const MemoryRegion&, std::uint64_t addr, std::uint64_t len, std::vector<MemoryRun>* out) const {
  out->assign(1, MemoryRun{addr, len});
  return true;
}

std::unique_ptr<FlatMemory> FlatMemory::create(std::uint64_t base, std::size_t size, std::string* error) {
  if (size > kMaxBytes) {
    *error = "memory window of " + std::to_string(size) + " bytes is larger than the limit of " +
             std::to_string(kMaxBytes) + " bytes";
    return nullptr;
  }
  if (size > 0 && base > UINT64_MAX - (size - 1)) {
    *error = "memory window at " + hex64(base) + " of " + std::to_string(size) + " bytes wraps past 2^64";
    return nullptr;
  }
  return std::unique_ptr<FlatMemory>(new FlatMemory(base, size));
}

bool FlatMemory::in_window(std::uint64_t addr, std::size_t len) const {
  return addr >= base_ && len <= bytes_.size() && addr - base_ <= bytes_.size() - len;
}

bool FlatMemory::add_region(const MemoryRegion& region, std::string* error) {
  const std::string what = "region key " + hex32(region.key) + " [" + hex64(region.addr) + ", +" +
                           std::to_string(region.length) + ")";
  if (regions_.count(region.key) != 0) {
    *error = what + ": the key is already registered";
    return false;
  }
  if (region.owner == RegionOwner::kLocal && !in_window(region.addr, region.length)) {
    *error = what + " is not inside the memory window [" + hex64(base_) + ", +" + std::to_string(bytes_.size()) + ")";
    return false;
  }
  regions_[region.key] = region;
  return true;
}

bool FlatMemory::remove_region(std::uint32_t key) { return regions_.erase(key) != 0; }

bool FlatMemory::poke(std::uint64_t addr, const std::uint8_t* data, std::size_t len) {
  if (!in_window(addr, len)) return false;
  if (len != 0) std::memcpy(bytes_.data() + (addr - base_), data, len);
  return true;
}

bool FlatMemory::peek(std::uint64_t addr, std::uint8_t* data, std::size_t len) const {
  if (!in_window(addr, len)) return false;
  if (len != 0) std::memcpy(data, bytes_.data() + (addr - base_), len);
  return true;
}

const MemoryRegion* FlatMemory::find(std::uint32_t key) const {
  auto it = regions_.find(key);
  return it == regions_.end() ? nullptr : &it->second;
}

// A peer's region is not in this window whatever its range says: local DMA never reaches it.
bool FlatMemory::read(const MemoryRegion& region, std::uint64_t addr, std::uint8_t* data, std::size_t len) {
  return region.owner == RegionOwner::kLocal && region_covers(region, addr, len) && peek(addr, data, len);
}

bool FlatMemory::write(const MemoryRegion& region, std::uint64_t addr, const std::uint8_t* data, std::size_t len) {
  return region.owner == RegionOwner::kLocal && region_covers(region, addr, len) && poke(addr, data, len);
}

}  // namespace dpusim::p4::rdma
