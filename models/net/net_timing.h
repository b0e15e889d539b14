// Wires between network ports and the mesh between devices (models/net).
#pragma once

#include "tlm/timing.h"

namespace dpusim::net::timing {

extern const pcie::TimingParam wire_propagation_ps;
extern const pcie::TimingParam mesh_latency_ps;
extern const pcie::TimingParam mesh_rate_mbps;

}  // namespace dpusim::net::timing
