// A switch port's PCI-PCI bridge function (PCIe r5.0 §7.5.1.3): its bus numbers and memory
// windows, which the switch routes by, read live from config space so that renumbering or a
// new window takes effect at once.
#pragma once

#include <cstdint>
#include <string>

#include "tlm/capabilities.h"
#include "tlm/function.h"

namespace dpusim::sw {

class Bridge : public pcie::Function {
 public:
  Bridge(std::string path, pcie::SimContext& ctx) : pcie::Function(std::move(path), ctx) {}

  uint8_t primary() const;
  uint8_t secondary() const;
  uint8_t subordinate() const;
  // True when `bus` is in [secondary, subordinate] (never while secondary is 0, unassigned).
  bool covers_bus(uint8_t bus) const;
  // True when `addr` is inside the memory or the prefetchable window (a window whose base is
  // above its limit is disabled). Command.MSE is checked separately.
  bool in_windows(uint64_t addr) const;
  bool ari_forwarding() const;
};

}  // namespace dpusim::sw
