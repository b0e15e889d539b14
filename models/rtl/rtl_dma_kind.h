// The DMA endpoint of models/rtl/dma as a kind of the generic switch's slots: {"kind": "rtl_dma"}
// (no options; its clock is the timing parameter rtl.dma.clock_ps). A build without the RTL
// (DPUSIM_RTL=OFF) still knows the kind, and refuses it with the reason.
#pragma once

#include "device/endpoint_kind.h"

namespace dpusim::rtl {

platform::EndpointKind rtl_dma_kind();

}  // namespace dpusim::rtl
