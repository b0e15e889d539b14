// The memory the P4 RDMA decision path (p4/rdma path.h) sees for one work request on the
// device. The path reads and writes synchronously, but the device reaches guest memory only by
// DMA, so the work request's source bytes are gathered first (the datapath needs them anyway)
// and the path reads them from here, and asks where they are on the bus (a conversion whose
// result lands on its unread source is streamed as the device streams it); what the fp8 unit writes is recorded and written by DMA
// once the decision is in. Keys resolve through the device's region table; lkey 0 names bus
// addresses; the rkey of a work request whose QP points at another node is that node's, and
// reads as a peer's region (which the path refuses for the compute shapes) even when the same
// number is one of this node's own keys.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "dpusim/p4/rdma/memory.h"
#include "ionic/rdma_mem.h"

namespace dpusim::ionic {

class StagedMemory : public p4::rdma::RdmaMemory {
 public:
  struct Staged {
    uint32_t key = 0;
    uint64_t va = 0;
    std::vector<uint8_t> bytes;
  };
  struct Write {
    uint32_t key = 0;
    uint64_t va = 0;
    std::vector<uint8_t> bytes;
  };
  // `peer_rkey`: the rkey to read as a peer's (when the QP's destination is another node).
  StagedMemory(const MrTable& mrs, std::vector<Staged> staged, bool has_peer_rkey, uint32_t peer_rkey,
               uint64_t peer_va);

  const p4::rdma::MemoryRegion* find(uint32_t key) const override;
  const p4::rdma::MemoryRegion* find_rkey(uint32_t key) const override;
  bool read(const p4::rdma::MemoryRegion& region, uint64_t addr, uint8_t* data, size_t len) override;
  bool write(const p4::rdma::MemoryRegion& region, uint64_t addr, const uint8_t* data, size_t len) override;
  // The bus runs behind the range, as the region table resolves them (lkey 0: bus addresses).
  bool locate(const p4::rdma::MemoryRegion& region, uint64_t addr, uint64_t len,
              std::vector<p4::rdma::MemoryRun>* out) const override;
  const std::vector<Write>& writes() const { return writes_; }

 private:
  const MrTable& mrs_;
  std::vector<Staged> staged_;
  mutable std::map<uint32_t, p4::rdma::MemoryRegion> seen_;
  bool has_peer_;
  p4::rdma::MemoryRegion peer_;
  std::vector<Write> writes_;
};

}  // namespace dpusim::ionic
