// Kernel memory through the vhost-user memory table, and the device side of a split ring
// (linux_vring.h).
#include "host/linux_vring.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

namespace dpusim::host::uml {

KernelMemory::~KernelMemory() { clear(); }

void KernelMemory::clear() {
  for (const Map& m : maps_) munmap(m.base, m.map_len);
  maps_.clear();
}

bool KernelMemory::set(const std::vector<MemRegion>& regions, const std::vector<int>& fds, std::string* error) {
  clear();
  bool ok = regions.size() == fds.size();
  if (!ok && error)
    *error = "SET_MEM_TABLE: " + std::to_string(regions.size()) + " regions but " + std::to_string(fds.size()) +
             " file descriptors";
  for (size_t i = 0; ok && i < regions.size(); ++i) {
    const MemRegion& r = regions[i];
    const uint64_t len = r.mmap_offset + r.size;
    void* p = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, fds[i], 0);
    if (p == MAP_FAILED) {
      ok = false;
      if (error) *error = "SET_MEM_TABLE: region " + std::to_string(i) + " of " + std::to_string(r.size) +
                          " bytes cannot be mapped";
      break;
    }
    Map m;
    m.guest = r.guest_addr;
    m.size = r.size;
    m.base = static_cast<uint8_t*>(p);
    m.data = m.base + r.mmap_offset;
    m.map_len = len;
    maps_.push_back(m);
  }
  for (int fd : fds) close(fd);
  if (!ok) clear();
  return ok;
}

uint8_t* KernelMemory::at(uint64_t addr, uint64_t len) const {
  for (const Map& m : maps_)
    if (addr >= m.guest && len <= m.size && addr - m.guest <= m.size - len) return m.data + (addr - m.guest);
  return nullptr;
}

uint32_t Chain::in_len() const {
  uint32_t n = 0;
  for (const Segment& s : in) n += s.len;
  return n;
}

uint32_t Chain::write(const uint8_t* bytes, uint32_t len) const {
  uint32_t done = 0;
  for (const Segment& s : in) {
    if (done == len) break;
    const uint32_t n = std::min(s.len, len - done);
    std::memcpy(s.p, bytes + done, n);
    done += n;
  }
  return done;
}

bool DeviceRing::ready(const KernelMemory& mem, std::string* error) const {
  if (num_ == 0 || num_ > 32768 || (num_ & (num_ - 1))) {
    if (error) *error = "ring size " + std::to_string(num_) + " is not a power of two in 1..32768";
    return false;
  }
  if (!mem.at(desc_, 16ull * num_) || !mem.at(avail_, 4 + 2ull * num_) || !mem.at(used_, 4 + 8ull * num_)) {
    if (error) *error = "ring areas outside the memory table";
    return false;
  }
  return true;
}

int DeviceRing::pop(const KernelMemory& mem, Chain* out, std::string* error) {
  if (!ready(mem, error)) return -1;
  const uint8_t* avail = mem.at(avail_, 4 + 2ull * num_);
  if (le16(avail + 2) == last_avail_) return 0;
  const uint16_t head = le16(avail + 4 + 2 * (last_avail_ % num_));
  ++last_avail_;
  out->head = head;
  out->out.clear();
  out->in.clear();
  const uint8_t* desc = mem.at(desc_, 16ull * num_);
  uint16_t i = head;
  for (uint32_t hops = 0;; ++hops) {
    if (i >= num_ || hops >= num_) {
      if (error) *error = "descriptor chain from " + std::to_string(head) + ": index " + std::to_string(i) +
                          (hops >= num_ ? " loops" : " beyond the ring size " + std::to_string(num_));
      return -1;
    }
    const uint8_t* d = desc + 16 * i;
    const uint64_t addr = le64(d);
    const uint32_t len = le32(d + 8);
    const uint16_t flags = le16(d + 12);
    if (flags & VRING_DESC_F_INDIRECT) {
      if (error) *error = "descriptor " + std::to_string(i) + " is indirect, a feature not offered";
      return -1;
    }
    uint8_t* p = mem.at(addr, len);
    if (!p && len) {
      if (error) *error = "descriptor " + std::to_string(i) + ": " + std::to_string(len) + " bytes at " +
                          std::to_string(addr) + " outside the memory table";
      return -1;
    }
    if (flags & VRING_DESC_F_WRITE) out->in.push_back({p, len});
    else if (!out->in.empty()) {
      if (error) *error = "descriptor " + std::to_string(i) + ": readable after a writable one";
      return -1;
    } else out->out.insert(out->out.end(), p, p + len);
    if (!(flags & VRING_DESC_F_NEXT)) return 1;
    i = le16(d + 14);
  }
}

bool DeviceRing::push(const KernelMemory& mem, uint16_t head, uint32_t len) {
  uint8_t* used = mem.at(used_, 4 + 8ull * num_);
  if (!used || num_ == 0) return false;
  uint8_t* e = used + 4 + 8 * (used_idx_ % num_);
  put_le32(e, head);
  put_le32(e + 4, len);
  ++used_idx_;
  put_le16(used + 2, used_idx_);  // the kernel is stopped while the bridge runs: no barrier
  return true;
}

}  // namespace dpusim::host::uml
