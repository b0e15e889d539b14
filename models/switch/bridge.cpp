#include "switch/bridge.h"

#include "tlm/pci_regs.h"

namespace dpusim::sw {

using namespace dpusim::pci;

uint8_t Bridge::primary() const { return uint8_t(cfg.get(PCI_PRIMARY_BUS, 1)); }
uint8_t Bridge::secondary() const { return uint8_t(cfg.get(PCI_SECONDARY_BUS, 1)); }
uint8_t Bridge::subordinate() const { return uint8_t(cfg.get(PCI_SUBORDINATE_BUS, 1)); }

bool Bridge::covers_bus(uint8_t bus) const {
  const uint8_t sec = secondary();
  return sec != 0 && bus >= sec && bus <= subordinate();
}

bool Bridge::in_windows(uint64_t addr) const {
  const uint64_t mem_base = uint64_t(cfg.get(PCI_MEMORY_BASE, 2) & 0xfff0) << 16;
  const uint64_t mem_limit = uint64_t(cfg.get(PCI_MEMORY_LIMIT, 2) & 0xfff0) << 16 | 0xfffff;
  if (mem_base <= mem_limit && addr >= mem_base && addr <= mem_limit) return true;
  const uint64_t pref_base = uint64_t(cfg.get(PCI_PREF_BASE_UPPER32, 4)) << 32 |
                             uint64_t(cfg.get(PCI_PREF_MEMORY_BASE, 2) & 0xfff0) << 16;
  const uint64_t pref_limit = uint64_t(cfg.get(PCI_PREF_LIMIT_UPPER32, 4)) << 32 |
                              uint64_t(cfg.get(PCI_PREF_MEMORY_LIMIT, 2) & 0xfff0) << 16 | 0xfffff;
  return pref_base <= pref_limit && addr >= pref_base && addr <= pref_limit;
}

bool Bridge::ari_forwarding() const {
  return pcie_cap() && (cfg.get(pcie_cap() + PCI_EXP_DEVCTL2, 2) & PCI_EXP_DEVCTL2_ARI);
}

}  // namespace dpusim::sw
