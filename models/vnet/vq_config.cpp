#include "vnet/vq_config.h"

#include "vnet/vnet_timing.h"

namespace dpusim::vnet {

void set_vq_conf(AppState& app, unsigned i, unsigned q, const VqShadow& sh, const char* thread) {
  app.controllers[i].engine->vq_set_conf(q, VqConf{sh.size, sh.msix, sh.desc, sh.driver, sh.device});
  app.log.info(thread, "VQ%d configured: size=%u, msix=%u, desc=0x%lx, driver=0x%lx, device=0x%lx", int(q), sh.size,
               sh.msix, static_cast<unsigned long>(sh.desc), static_cast<unsigned long>(sh.driver),
               static_cast<unsigned long>(sh.device));
}

void configure_vq(AppState& app, unsigned i, unsigned q, const VqShadow& sh, pcie::Activity& a, const char* thread,
                  bool start) {
  a.then(app.cost(timing::work_vq_set_conf_ps), [&app, i, q, sh, thread] { set_vq_conf(app, i, q, sh, thread); });
  if (start) a.then(app.cost(timing::work_vq_start_ps), [&app, i, q] { app.controllers[i].engine->vq_start(q); });
}

}  // namespace dpusim::vnet
