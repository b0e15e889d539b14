// The DMA endpoint's RTL (models/rtl/dma): its clock period, and the hard IP core's service time
// of a request (config requests answered, memory requests decoded and queued for the block).
#pragma once

#include "tlm/timing.h"

namespace dpusim::rtl::dma::timing {

extern const pcie::TimingParam clock_ps;
extern const pcie::TimingParam hard_ip_ps;

}  // namespace dpusim::rtl::dma::timing
