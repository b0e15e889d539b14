// The test endpoint (models/testep): service time of each request, DMA engine setup.
#pragma once

#include "tlm/timing.h"

namespace dpusim::testep::timing {

extern const pcie::TimingParam service_ps;
extern const pcie::TimingParam dma_setup_ps;

}  // namespace dpusim::testep::timing
