// Applying a queue's configuration to the offload engine, as the worker's VQ_CONFIG and
// START_AND_ENABLE items and the MQ-start threads do: set_conf from a shadow snapshot (logged
// "VQ%d configured: ..."), then, when asked, start.
#pragma once

#include "tlm/activity.h"
#include "vnet/app_state.h"

namespace dpusim::vnet {

void configure_vq(AppState& app, unsigned ep, unsigned q, const VqShadow& sh, pcie::Activity& thread,
                  const char* thread_name, bool start);

}  // namespace dpusim::vnet
