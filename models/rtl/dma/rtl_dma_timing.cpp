#include "rtl/dma/rtl_dma_timing.h"

namespace dpusim::rtl::dma::timing {

using pcie::ExploreRange;

// At least 2 ps: a high and a low phase of a picosecond each.
const pcie::TimingParam clock_ps({"rtl.dma.clock_ps", 4000, 2, 1000000000, "ps"});
const pcie::TimingParam hard_ip_ps({"rtl.dma.hard_ip_ps", 20000, 0, 1000000000, "ps"}, ExploreRange::per_run(50, 200));

}  // namespace dpusim::rtl::dma::timing
