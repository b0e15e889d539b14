#include "vnet/app/app_invariants.h"

#include "vnet/app/vnet_timing.h"

namespace dpusim::vnet {

void AppInvariants::check_vq_enabled(unsigned i, unsigned q) {
  if (!devs_.controllers[i].reset_since_driver_ok) return;
  env_.ctx.checker.violation(env_.ctx.now_ps(), "ep" + std::to_string(i), "vq_enabled_after_reset",
                             "VQ" + std::to_string(q) + " of " + devs_.bdf_of(i) +
                                 " enabled after the host reset the device (generation " +
                                 std::to_string(devs_.devices[i]->reset_generation) +
                                 ") and before its driver set DRIVER_OK again: the device walks rings the driver "
                                 "has given up");
}

void AppInvariants::watch_reset_hold(unsigned i, bool held) {
  const std::string key = "ep" + std::to_string(i) + ".reset_hold";
  if (!held) return liveness_.release(key);
  liveness_.hold(key, env_.ctx.timing.get(timing::reset_hold_bound_ps),
                 devs_.bdf_of(i) + " device_status held at 0x40 until its controller cleanup completes");
}

}  // namespace dpusim::vnet
