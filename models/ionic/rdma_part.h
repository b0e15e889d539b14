// What each part of the RDMA engine (rdma_engine.h) is built over: the simulation context and
// the NIC's path for its events, the device's DMA and time (a DeviceIo, so that the part runs
// on its own in a unit test), the QP and region tables, and the CQs and EQs.
#pragma once

#include <string>

#include "ionic/dma_io.h"
#include "ionic/rdma_completions.h"
#include "ionic/rdma_resources.h"
#include "tlm/sim_context.h"

namespace dpusim::ionic {

struct RdmaPartPorts {
  pcie::SimContext& ctx;
  std::string path;     // the NIC's component path, for its events
  DeviceIo& io;         // its DMA, its own time
  RdmaResources& res;   // the QPs, address handles and the region table
  RdmaCompletions& cq;  // the CQs and EQs
};

}  // namespace dpusim::ionic
