#include "net/net_timing.h"

namespace dpusim::net::timing {

using pcie::ExploreRange;

const pcie::TimingParam wire_propagation_ps({"net.wire.propagation_ps", 5000, 0, 1000000000000ull, "ps"},
                                            ExploreRange::per_run(20, 1000));

}  // namespace dpusim::net::timing
