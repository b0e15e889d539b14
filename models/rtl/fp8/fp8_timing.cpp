#include "rtl/fp8/fp8_timing.h"

namespace dpusim::rtl::fp8::timing {

// At least 2 ps: a high and a low phase of a picosecond each.
const pcie::TimingParam clock_ps({"rtl.fp8.clock_ps", 1000, 2, 1000000000, "ps"});

}  // namespace dpusim::rtl::fp8::timing
