// A split virtqueue in host memory as the device side walks it (virtio 1.2 §2.7), every access
// a DMA through the endpoint's requester, so each byte crosses the fabric as MRd/MWr:
// the avail ring's flags and idx, one ring entry, a descriptor chain (validated: an index out
// of range, a loop, a zero length, a descriptor of the wrong direction, an indirect one), the
// buffers it names, and the used ring's element and idx.
//
// A read that does not complete successfully (UR for an address outside host memory, a
// timeout) is reported as such; the caller treats a malformed ring as a device error.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tlm/requester.h"

namespace dpusim::vnet {

// What the driver programmed for a queue (the application's set_conf).
struct VqConf {
  uint16_t size = 0, msix = 0xffff;
  uint64_t desc = 0, driver = 0, device = 0;
};

struct Desc {
  uint64_t addr;
  uint32_t len;
  uint16_t flags;
};

struct Chain {
  uint16_t head = 0;
  std::vector<Desc> readable, writable;  // in chain order, split by VRING_DESC_F_WRITE
};

class SplitRing {
 public:
  // On success `error` is empty; otherwise it says what was malformed.
  using AvailDone = std::function<void(uint16_t flags, uint16_t idx, const std::string& error)>;
  using EntryDone = std::function<void(uint16_t head, const std::string& error)>;
  using ChainDone = std::function<void(Chain chain, const std::string& error)>;
  using BytesDone = std::function<void(std::vector<uint8_t> bytes, const std::string& error)>;

  SplitRing(pcie::Requester& dma, const VqConf& conf) : dma_(dma), conf_(conf) {}
  // Held by its queue (callbacks refer to it): not copied or moved.
  SplitRing(const SplitRing&) = delete;
  SplitRing& operator=(const SplitRing&) = delete;
  void set_conf(const VqConf& conf) { conf_ = conf; }
  const VqConf& conf() const { return conf_; }

  void read_avail(AvailDone done);
  void read_entry(uint16_t avail_index, EntryDone done);
  // Walks the chain from `head`: at most `size` descriptors, every index < size, no zero
  // length, no indirect descriptors (VIRTIO_F_RING_INDIRECT_DESC is not offered), readable
  // descriptors before writable ones.
  void read_chain(uint16_t head, ChainDone done);
  // The bytes of `descs`, concatenated.
  void read_buffers(const std::vector<Desc>& descs, BytesDone done);
  // Writes `bytes` into `descs` in order (the caller checked they fit); posted.
  void write_buffers(const std::vector<Desc>& descs, const std::vector<uint8_t>& bytes);
  // Writes used ring elements for slots [used_idx, used_idx + n) and then the new idx; posted,
  // so they reach host memory in this order.
  void publish_used(uint16_t used_idx, const std::vector<std::pair<uint32_t, uint32_t>>& elems);
  // A single byte back into host memory (the CVQ's ack).
  void write_byte(uint64_t addr, uint8_t value);

 private:
  void walk(std::shared_ptr<Chain> chain, uint16_t index, unsigned count, ChainDone done);
  pcie::Requester& dma_;
  VqConf conf_;
};

}  // namespace dpusim::vnet
