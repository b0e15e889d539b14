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
#include "vnet/vnet_app.h"
#include "vnet/vnet_timing.h"

namespace dpusim::vnet {

void VnetApp::check_vq_enabled(unsigned i, unsigned q) {
  if (!controllers_[i].reset_since_driver_ok) return;
  ctx_.checker.violation(ctx_.now_ps(), "ep" + std::to_string(i), "vq_enabled_after_reset",
                         "VQ" + std::to_string(q) + " of " + bdf_of(i) +
                             " enabled after the host reset the device (generation " +
                             std::to_string(devices_[i]->reset_generation) +
                             ") and before its driver set DRIVER_OK again: the device walks rings the driver "
                             "has given up");
}

void VnetApp::watch_reset_hold(unsigned i, bool held) {
  const std::string key = "ep" + std::to_string(i) + ".reset_hold";
  if (!held) return liveness_.release(key);
  liveness_.hold(key, ctx_.timing.get(vnet::timing::reset_hold_bound_ps),
                 bdf_of(i) + " device_status held at 0x40 until its controller cleanup completes");
}

}  // namespace dpusim::vnet
