#include "vnet/app_state.h"

namespace dpusim::vnet {

AppState::AppState(pcie::SimContext& c, const VnetOptions& options, std::string p, pcie::TimedQueue& q, unsigned pid)
    : ctx(c), opt(options), path(std::move(p)), log(c, pid), later(q), main_thread(later), wq(c, log, later) {
  // A device's name in the checker's generation ledger: each process has its own generations.
  wq.device_path = [pid](int dev) {
    return (pid == 1 ? std::string() : "vnet" + std::to_string(pid) + ".") + "ep" + std::to_string(dev);
  };
}

std::string AppState::bdf_of(unsigned ep) const { return tlp::bdf_str(devices[ep]->images.virtio().id()); }

bool AppState::submit(WorkType type, unsigned ep, uint32_t arg) {
  WorkItem it;
  it.type = type;
  it.device = int(ep);
  it.generation = devices[ep]->reset_generation;
  it.arg = arg;
  return wq.submit(it);
}

}  // namespace dpusim::vnet
