// The C++ guest drivers (models/guest): docs/timing.md gives each default's source.
#pragma once

#include "tlm/timing.h"

namespace dpusim::guest::timing {

// How long a driver waits before looking again at a transmit ring that was full (it runs with
// transmit interrupts suppressed and reclaims used buffers as it goes).
extern const pcie::TimingParam tx_poll_ps;

}  // namespace dpusim::guest::timing
