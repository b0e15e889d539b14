// The driver's side of a split virtqueue (virtio 1.2 §2.7.13 supplying buffers, §2.7.14
// receiving used buffers; Linux drivers/virtio/virtio_ring.c), in C++: the descriptor table,
// avail and used rings in host memory, written and read as the guest CPU does (in zero
// simulated time), with the free list and shadow indices the Python driver keeps
// (pybind/dpusim/drivers/virtio_ring.py): a queue can pass from one to the other and back.
//
// Descriptors are taken from the free list in order (FIFO) and returned to its end when their
// chain is used, as the Python driver does, so both put the same chains in the same slots.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

#include "host/host_memory.h"

namespace dpusim::guest {

struct Buf {
  uint64_t addr;
  uint32_t len;
};

class DriverRing {
 public:
  struct Layout {
    uint16_t size = 0;
    uint64_t desc = 0, avail = 0, used = 0;
  };
  // A chain the device holds: its descriptors and the driver's token for it.
  struct Posted {
    uint16_t head;
    std::vector<uint16_t> ids;
    uint64_t token;
  };
  struct State {
    std::vector<uint16_t> free_ids;
    uint16_t avail_idx = 0, last_used = 0;
    std::vector<Posted> posted;
  };

  // Takes over a queue in the state `s` (throws std::invalid_argument if it is inconsistent:
  // a descriptor both free and posted, an index outside the ring).
  DriverRing(host::HostMemory& mem, const Layout& layout, State s);

  // Chains `n_out` device-readable then `n_in` device-writable buffers and publishes the head
  // (entry, then idx). False (nothing written) when fewer than n_out + n_in descriptors are free.
  bool add(const Buf* bufs, size_t n_out, size_t n_in, uint64_t token);
  // The next used chain: its token and the length the device wrote. False when none.
  bool get(uint64_t* token, uint32_t* len);
  // Whether the device has used chains not yet taken.
  bool has_used() const;
  // VRING_AVAIL_F_NO_INTERRUPT and friends (a hint the device may ignore).
  void set_avail_flags(uint16_t flags);
  size_t num_free() const { return free_.size(); }
  size_t in_flight() const { return in_flight_; }
  const Layout& layout() const { return layout_; }
  State state() const;

 private:
  host::HostMemory& mem_;
  Layout layout_;
  std::deque<uint16_t> free_;
  uint16_t avail_idx_, last_used_;
  std::vector<Posted> slots_;  // by head; ids empty = not posted
  size_t in_flight_ = 0;
};

}  // namespace dpusim::guest
