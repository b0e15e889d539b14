// Applying a queue's configuration to the offload engine, as the worker's VQ_CONFIG and
// START_AND_ENABLE items and the MQ-start threads do: set_conf from a shadow snapshot (logged
// "VQ%d configured: ..."), then, when asked, start.
#pragma once

#include "tlm/activity.h"
#include "vnet/app_state.h"

namespace dpusim::vnet {

// set_conf of queue q (the operation; its cost is the caller's step).
void set_vq_conf(AppState& app, unsigned ep, unsigned q, const VqShadow& sh, const char* thread_name);
// set_conf (and start, when `start`) as steps of `thread`, each with its cost.
void configure_vq(AppState& app, unsigned ep, unsigned q, const VqShadow& sh, pcie::Activity& thread,
                  const char* thread_name, bool start);

}  // namespace dpusim::vnet
