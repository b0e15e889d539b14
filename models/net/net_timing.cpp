#include "net/net_timing.h"

namespace dpusim::net::timing {

using pcie::ExploreRange;

const pcie::TimingParam wire_propagation_ps({"net.wire.propagation_ps", 5000, 0, 1000000000000ull, "ps"},
                                            ExploreRange::per_run(20, 1000));
const pcie::TimingParam mesh_latency_ps({"net.mesh.latency_ps", 2000000, 0, 1000000000000ull, "ps"},
                                        ExploreRange::per_run(50, 200));
const pcie::TimingParam mesh_rate_mbps({"net.mesh.rate_mbps", 100000, 1, 10000000, "Mb/s"});

}  // namespace dpusim::net::timing
