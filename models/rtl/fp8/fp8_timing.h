// The fp8 unit's RTL (models/rtl/fp8): its clock period. A job of n elements takes
// ceil(n / 4) + 5 cycles of it (fp8_adapter.h).
#pragma once

#include "tlm/timing.h"

namespace dpusim::rtl::fp8::timing {

extern const pcie::TimingParam clock_ps;

}  // namespace dpusim::rtl::fp8::timing
