#include "testep/testep_timing.h"

namespace dpusim::testep::timing {

using pcie::ExploreRange;

const pcie::TimingParam service_ps({"test_endpoint.service_ps", 50000, 0, 1000000000, "ps"},
                                   ExploreRange::per_run(50, 200));
const pcie::TimingParam dma_setup_ps({"test_endpoint.dma_setup_ps", 100000, 0, 1000000000, "ps"},
                                     ExploreRange::per_run(50, 200));

}  // namespace dpusim::testep::timing
