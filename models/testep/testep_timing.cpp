#include "testep/testep_timing.h"

namespace dpusim::testep::timing {

const pcie::TimingParam service_ps({"test_endpoint.service_ps", 50000, 0, 1000000000, "ps"});
const pcie::TimingParam dma_setup_ps({"test_endpoint.dma_setup_ps", 100000, 0, 1000000000, "ps"});

}  // namespace dpusim::testep::timing
