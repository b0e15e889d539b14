// Running the SystemC kernel in a unit test. A model that posts a notification for Python (an
// invariant violation, a watched event) pauses the kernel at the end of that delta cycle; a
// test reads the event log instead, so these run on through such pauses.
#pragma once

#include <systemc>

#include <cstdint>

#include "tlm/sim_context.h"

namespace dpusim::testing {

// Runs until `ps` of simulated time have passed.
inline void run_for(pcie::SimContext& ctx, uint64_t ps) {
  const uint64_t end = pcie::SimContext::now_ps() + ps;
  do {
    sc_core::sc_start(sc_core::sc_time::from_value(end - pcie::SimContext::now_ps()));
    ctx.take_notifications();
  } while (pcie::SimContext::now_ps() < end);
}

// Runs until nothing is left to happen.
inline void settle(pcie::SimContext& ctx) {
  do {
    sc_core::sc_start();
    ctx.take_notifications();
  } while (sc_core::sc_pending_activity());
}

}  // namespace dpusim::testing
