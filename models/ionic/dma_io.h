// Moving bytes between the device and guest memory described as bus runs (rdma_mem.h): a
// gather reads the runs one after another through the function's DMA requester (each read a
// split MRd and its completions) and hands over the bytes when the last one completed; a
// scatter issues the posted writes in order. Shared by the Ethernet transmit path and the
// RDMA datapath.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ionic/rdma_decode.h"
#include "ionic/rdma_mem.h"
#include "tlm/requester.h"

namespace dpusim::ionic {

// `done(bytes, ok)`: ok is false when a read completed with an error (bytes then empty).
using GatherDone = std::function<void(std::vector<uint8_t> bytes, bool ok)>;
void dma_gather(pcie::Requester& dma, std::vector<BusRun> runs, GatherDone done);
// Writes `bytes` (exactly as long as the runs) over the runs.
void dma_scatter(pcie::Requester& dma, const std::vector<BusRun>& runs, const uint8_t* bytes);
uint64_t runs_total(const std::vector<BusRun>& runs);
// A buffer as the guest described it (direct, or a page table read by DMA) for a region whose
// first byte is at `va`: done(ok, the buffer, why not) once known.
void load_buf(pcie::Requester& dma, const BufDesc& d, uint64_t va, std::function<void(bool ok, GuestBuf buf, std::string why)> done);

}  // namespace dpusim::ionic
