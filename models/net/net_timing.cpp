#include "net/net_timing.h"

namespace dpusim::net::timing {

const pcie::TimingParam wire_propagation_ps({"net.wire.propagation_ps", 5000, 0, 1000000000000ull, "ps"});

}  // namespace dpusim::net::timing
