// Applying a queue's configuration to the offload engine, as the worker's VQ_CONFIG and
// START_AND_ENABLE items and the MQ-start threads do: set_conf from a shadow snapshot, then,
// when asked, start. Only a VQ_CONFIG item logs "VQ%d configured: ..." (the application's
// vq_config work); START_AND_ENABLE logs the CVQ's start at debug level, MQ-start threads
// nothing per queue.
#pragma once

#include "tlm/activity.h"
#include "vnet/app/app_state.h"

namespace dpusim::vnet {

// set_conf of queue q (the operation; its cost is the caller's step).
void set_vq_conf(AppDevices& devs, unsigned ep, unsigned q, const VqShadow& sh);
// VQ_CONFIG's set_conf as a step of the worker, with its cost and its "configured" line.
void configure_vq(AppEnv& env, AppDevices& devs, unsigned ep, unsigned q, const VqShadow& sh, pcie::Activity& worker);

}  // namespace dpusim::vnet
