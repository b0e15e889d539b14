#include "vnet/app/app_state.h"

#include "vnet/app/vnet_timing.h"

namespace dpusim::vnet {

AppEnv::AppEnv(pcie::SimContext& c, const VnetOptions& options, std::string p, pcie::TimedQueue& q, unsigned pid)
    : ctx(c), opt(options), path(std::move(p)), log(c, pid), later(q), main_thread(later) {}

AppWork::AppWork(AppEnv& env, AppDevices& devs, unsigned pid) : wq(env.ctx, env.log, env.later), devs_(devs) {
  // A device's name in the checker's generation ledger: each process has its own generations.
  wq.device_path = [pid](int dev) {
    return (pid == 1 ? std::string() : "vnet" + std::to_string(pid) + ".") + "ep" + std::to_string(dev);
  };
}

uint64_t AppEnv::loop_iteration_at(uint64_t t_ps) {
  const uint64_t origin = ctx.latency_ps(timing::main_loop_origin_ps);  // per run: one phase
  const uint64_t period = ctx.timing.get(timing::main_loop_ps);
  if (t_ps <= origin) return origin;
  return origin + (t_ps - origin + period - 1) / period * period;
}

std::string AppDevices::bdf_of(unsigned ep) const { return tlp::bdf_str(devices[ep]->images.virtio().id()); }

bool AppWork::submit(WorkType type, unsigned ep, uint32_t arg) {
  WorkItem it;
  it.type = type;
  it.device = int(ep);
  it.generation = devs_.devices[ep]->reset_generation;
  it.arg = arg;
  return wq.submit(it);
}

}  // namespace dpusim::vnet
