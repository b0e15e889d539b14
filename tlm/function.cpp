#include "tlm/function.h"

#include "tlm/bytes.h"
#include "tlm/capabilities.h"
#include "tlm/pci_regs.h"
#include "tlm/requester.h"

namespace dpusim::pcie {

using namespace dpusim::pci;

Function::Function(std::string path, SimContext& ctx, uint16_t config_size)
    : cfg(config_size), path_(std::move(path)), ctx_(ctx) {}

void Function::config_write(uint16_t offset, uint32_t value, uint8_t byte_enable, uint16_t target_id) {
  // Capture Bus and Device Number (PCIe §2.2.6.2); the function number is the function's own.
  id_ = uint16_t((target_id & 0xfff8) | (id_ & 7));
  const uint32_t before = cfg.read_dword(offset);
  cfg.write_dword(offset, value, byte_enable);
  const uint32_t after = cfg.read_dword(offset);
  if (before != after && ctx_.log.enabled())
    ctx_.event(path_, "reg_write").hex("reg", offset & 0xffc).hex("before", before).hex("after", after).hex("be", byte_enable);
  if (on_flr && pcie_cap_ && (offset & 0xffc) == pcie_cap_ + PCI_EXP_DEVCTL && (byte_enable & 2) &&
      (value & PCI_EXP_DEVCTL_BCR_FLR) && (cfg.get(pcie_cap_ + PCI_EXP_DEVCAP, 4) & PCI_EXP_DEVCAP_FLR))
    on_flr();
}

uint32_t Function::config_read(uint16_t offset, uint8_t first_be) const {
  return cfg.read_dword(offset) & bytes::byte_enable_mask(first_be);
}

bool Function::memory_enabled() const { return cfg.get(PCI_COMMAND, 2) & PCI_COMMAND_MEMORY; }
bool Function::bus_master() const { return cfg.get(PCI_COMMAND, 2) & PCI_COMMAND_MASTER; }

uint64_t Function::bar_address(unsigned bar) const {
  if (bar > 5) return 0;
  const uint32_t lo = cfg.get(uint16_t(PCI_BASE_ADDRESS_0 + 4 * bar), 4);
  if (lo & PCI_BASE_ADDRESS_SPACE_IO) return 0;
  uint64_t addr = lo & PCI_BASE_ADDRESS_MEM_MASK;
  if ((lo & 0x6) == PCI_BASE_ADDRESS_MEM_TYPE_64 && bar < 5)
    addr |= uint64_t(cfg.get(uint16_t(PCI_BASE_ADDRESS_0 + 4 * (bar + 1)), 4)) << 32;
  return addr;
}

uint64_t Function::bar_size(unsigned bar) const {
  if (bar > 5) return 0;
  const uint16_t off = uint16_t(PCI_BASE_ADDRESS_0 + 4 * bar);
  uint64_t mask = cfg.rw_mask(off, 4) & PCI_BASE_ADDRESS_MEM_MASK;
  if (mask == 0) return 0;
  const uint32_t lo = cfg.get(off, 4);
  if ((lo & 0x6) == PCI_BASE_ADDRESS_MEM_TYPE_64 && bar < 5) {
    mask |= uint64_t(cfg.rw_mask(uint16_t(off + 4), 4)) << 32;
  } else {
    mask |= 0xffffffff00000000ull;
  }
  return ~mask + 1;
}

std::optional<BarHit> Function::decode(uint64_t address) const {
  if (!memory_enabled()) return std::nullopt;
  for (unsigned bar = 0; bar < 6; ++bar) {
    const uint64_t size = bar_size(bar);
    if (size == 0) continue;
    const uint64_t base = bar_address(bar);
    // An unassigned BAR (still 0) decodes nothing (PCIe §7.5.1.2.1 leaves it to software).
    if (base != 0 && address >= base && address - base < size) return BarHit{bar, address - base};
    const uint32_t lo = cfg.get(uint16_t(PCI_BASE_ADDRESS_0 + 4 * bar), 4);
    if ((lo & 0x6) == PCI_BASE_ADDRESS_MEM_TYPE_64) ++bar;
  }
  return std::nullopt;
}

unsigned Function::max_payload_size() const {
  return pcie_cap_ ? devctl_max_payload(uint16_t(cfg.get(pcie_cap_ + PCI_EXP_DEVCTL, 2))) : 128;
}
unsigned Function::max_read_request_size() const {
  return pcie_cap_ ? devctl_max_read_request(uint16_t(cfg.get(pcie_cap_ + PCI_EXP_DEVCTL, 2))) : 512;
}
bool Function::extended_tags() const {
  return pcie_cap_ && (cfg.get(pcie_cap_ + PCI_EXP_DEVCTL, 2) & PCI_EXP_DEVCTL_EXT_TAG);
}
unsigned Function::read_completion_boundary() const {
  return pcie_cap_ && (cfg.get(pcie_cap_ + PCI_EXP_LNKCTL, 2) & PCI_EXP_LNKCTL_RCB) ? 128 : 64;
}

void follow_device_control(Requester& requester, const Function& fn) {
  requester.max_payload_size = [&fn] { return fn.max_payload_size(); };
  requester.max_read_request_size = [&fn] { return fn.max_read_request_size(); };
  requester.tag_count = [&fn] { return fn.extended_tags() ? 256u : 32u; };
}

}  // namespace dpusim::pcie
