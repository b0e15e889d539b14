#include "vnet/virtio/vq_config.h"

#include "vnet/app/vnet_timing.h"

namespace dpusim::vnet {

void set_vq_conf(AppDevices& devs, unsigned i, unsigned q, const VqShadow& sh) {
  devs.controllers[i].engine->vqs().vq_set_conf(q, VqConf{sh.size, sh.msix, sh.desc, sh.driver, sh.device});
}

void configure_vq(AppEnv& env, AppDevices& devs, unsigned i, unsigned q, const VqShadow& sh, pcie::Activity& w) {
  w.then(env.cost(timing::work_vq_set_conf_ps), [&env, &devs, i, q, sh] {
    set_vq_conf(devs, i, q, sh);
    env.log.info(kWorkerThread, "VQ%d configured: size=%u, msix=%u, desc=0x%lx, driver=0x%lx, device=0x%lx", int(q),
                 sh.size, sh.msix, static_cast<unsigned long>(sh.desc), static_cast<unsigned long>(sh.driver),
                 static_cast<unsigned long>(sh.device));
  });
}

}  // namespace dpusim::vnet
