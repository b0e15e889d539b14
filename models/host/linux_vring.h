// The device side of the kernel's memory as a vhost-user backend sees it, and of a split
// virtqueue in it (virtio 1.2 §2.7): what the bridge (linux_bridge.h) uses to serve virt-pci's
// command and interrupt queues and to let devices DMA into the kernel's RAM.
//
// KernelMemory maps the regions of VHOST_USER_SET_MEM_TABLE (the user-mode kernel's physical
// memory file, arch/um/drivers/virtio_uml.c vhost_user_set_mem_table) and translates a kernel
// physical address range to a pointer only when the whole range lies in one region; anything
// else is refused, never clamped. DeviceRing walks descriptor chains with every index and
// length checked against the ring size and the memory table, so a corrupt ring yields a
// refusal with a reason, not a wild access.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "host/linux_wire.h"

namespace dpusim::host::uml {

class KernelMemory {
 public:
  KernelMemory() = default;
  ~KernelMemory();
  KernelMemory(const KernelMemory&) = delete;
  KernelMemory& operator=(const KernelMemory&) = delete;

  // Maps each region from its file descriptor (taking ownership of the fds). False, with
  // `error`, if a mapping fails; the table is then empty.
  bool set(const std::vector<MemRegion>& regions, const std::vector<int>& fds, std::string* error);
  void clear();
  // The host pointer of kernel physical [addr, addr + len), or null when it is not inside one
  // region.
  uint8_t* at(uint64_t addr, uint64_t len) const;
  bool empty() const { return maps_.empty(); }

  struct Map {
    uint64_t guest = 0, size = 0;
    uint8_t* base = nullptr;   // the mapping's first byte
    uint8_t* data = nullptr;   // base + mmap_offset: guest address `guest`
    uint64_t map_len = 0;
  };
  const std::vector<Map>& maps() const { return maps_; }

 private:
  std::vector<Map> maps_;
};

// One chain taken from a ring: the device-readable bytes gathered, the device-writable
// segments as pointers into kernel memory.
struct Chain {
  uint16_t head = 0;
  std::vector<uint8_t> out;
  struct Segment {
    uint8_t* p;
    uint32_t len;
  };
  std::vector<Segment> in;
  uint32_t in_len() const;
  // Copies `bytes` into the writable segments in order (as much as fits); returns how many.
  uint32_t write(const uint8_t* bytes, uint32_t len) const;
};

class DeviceRing {
 public:
  static constexpr uint16_t VRING_DESC_F_NEXT = 1;
  static constexpr uint16_t VRING_DESC_F_WRITE = 2;
  static constexpr uint16_t VRING_DESC_F_INDIRECT = 4;

  void set_num(uint32_t num) { num_ = num; }
  void set_base(uint16_t base) { last_avail_ = base; used_idx_ = base; }
  void set_addr(uint64_t desc, uint64_t avail, uint64_t used) {
    desc_ = desc;
    avail_ = avail;
    used_ = used;
  }
  void set_enabled(bool on) { enabled_ = on; }
  bool enabled() const { return enabled_; }
  uint32_t num() const { return num_; }
  // Ready when its size is a power of two in 1..32768 and its three areas lie in `mem`.
  bool ready(const KernelMemory& mem, std::string* error) const;

  // The next available chain: 1 = taken, 0 = none available, -1 = refused (`error` says why;
  // the chain's head is consumed so a bad entry cannot wedge the queue).
  int pop(const KernelMemory& mem, Chain* out, std::string* error);
  // Returns chain `head` with `len` bytes written, to the used ring.
  bool push(const KernelMemory& mem, uint16_t head, uint32_t len);

 private:
  uint32_t num_ = 0;
  uint64_t desc_ = 0, avail_ = 0, used_ = 0;
  uint16_t last_avail_ = 0, used_idx_ = 0;
  bool enabled_ = false;
};

}  // namespace dpusim::host::uml
