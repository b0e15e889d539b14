// Wires between network ports (models/net).
#pragma once

#include "tlm/timing.h"

namespace dpusim::net::timing {

extern const pcie::TimingParam wire_propagation_ps;

}  // namespace dpusim::net::timing
