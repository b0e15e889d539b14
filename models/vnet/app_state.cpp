#include "vnet/app_state.h"

namespace dpusim::vnet {

AppState::AppState(pcie::SimContext& c, const VnetOptions& options, std::string p)
    : ctx(c), opt(options), path(std::move(p)), log(c), later("later", &c.explore), main_thread(later), wq(c, log, later) {
  // its threads' same-time steps are an exploration knob ("ties")
  wq.device_path = [](int dev) { return "ep" + std::to_string(dev); };
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
