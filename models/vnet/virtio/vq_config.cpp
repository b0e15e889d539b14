#include "vnet/virtio/vq_config.h"

#include "vnet/app/vnet_timing.h"

namespace dpusim::vnet {

void set_vq_conf(AppState& app, unsigned i, unsigned q, const VqShadow& sh) {
  app.controllers[i].engine->vq_set_conf(q, VqConf{sh.size, sh.msix, sh.desc, sh.driver, sh.device});
}

void configure_vq(AppState& app, unsigned i, unsigned q, const VqShadow& sh, pcie::Activity& w) {
  w.then(app.cost(timing::work_vq_set_conf_ps), [&app, i, q, sh] {
    set_vq_conf(app, i, q, sh);
    app.log.info(kWorkerThread, "VQ%d configured: size=%u, msix=%u, desc=0x%lx, driver=0x%lx, device=0x%lx", int(q),
                 sh.size, sh.msix, static_cast<unsigned long>(sh.desc), static_cast<unsigned long>(sh.driver),
                 static_cast<unsigned long>(sh.device));
  });
}

}  // namespace dpusim::vnet
