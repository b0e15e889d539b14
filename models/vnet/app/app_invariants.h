// The application model's own invariant checks (tlm/invariants.h names the kinds), kept in one
// place so that they follow the model wherever its code moves:
//  - "vq_enabled_after_reset": once the host has reset a device (its registers were reset),
//    none of its VQs may be enabled until the driver has set DRIVER_OK again (virtio 1.2
//    §2.1.2, §3.1.1: a reset device must not use its queues until the driver re-initialises
//    it). The application's MQ start checks its cancel flag before each queue pair but not
//    before its final group enable, so a reset landing after the last check is followed by an
//    enable (docs/vnet.md);
//  - "liveness_stall" of the reset hold: a device holding device_status at 0x40 releases it
//    within vnet.reset_hold_bound_ps (the double-reset hazard never does).
// reset_hold_never_released (work_items.cpp) names the hazard at the instant it becomes
// certain; the bound catches any other way a hold could last for ever.
#pragma once

#include "tlm/liveness.h"
#include "vnet/app/app_state.h"

namespace dpusim::vnet {

class AppInvariants {
 public:
  AppInvariants(AppEnv& env, AppDevices& devs) : env_(env), devs_(devs), liveness_(env.ctx.checker, env.later) {}

  // VQ q of endpoint i was just enabled.
  void check_vq_enabled(unsigned i, unsigned q);
  // Endpoint i's reset hold began (held) or was released.
  void watch_reset_hold(unsigned i, bool held);
  // The end of the run: a shutdown may outlast a bound by design.
  void stop() { liveness_.stop(); }

 private:
  AppEnv& env_;
  AppDevices& devs_;
  pcie::LivenessWatch liveness_;
};

}  // namespace dpusim::vnet
