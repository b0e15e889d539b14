#include "vnet/virtio/ep_image.h"

#include "tlm/bytes.h"
#include "tlm/pci_regs.h"
#include "vnet/virtio/virtio_spec.h"
#include "vnet/virtio/vnet_layout.h"

namespace dpusim::vnet {

using namespace dpusim::pci;
using namespace dpusim::virtio;

namespace {

// One VirtIO vendor capability: {vndr, next, len, cfg_type, bar, id, pad[2], offset, length}.
void virtio_cap(pcie::ConfigSpace& cfg, uint16_t at, uint8_t len, uint8_t cfg_type, uint32_t offset, uint32_t length) {
  cfg.add_capability(PCI_CAP_ID_VNDR, len, at);
  cfg.define(at + 2, 1, len);
  cfg.define(at + 3, 1, cfg_type);
  cfg.define(at + 4, 4, 0);  // bar 0, id 0
  cfg.define(at + 8, 4, offset);
  cfg.define(at + 12, 4, length);
}

}  // namespace

void add_virtio_pci_caps(pcie::ConfigSpace& cfg) {
  virtio_cap(cfg, VNET_EP_COMMON_CAP, 16, VIRTIO_PCI_CAP_COMMON_CFG, VNET_BAR0_COMMON_CFG, VNET_BAR0_COMMON_CFG_LEN);
  virtio_cap(cfg, VNET_EP_NOTIFY_CAP, 20, VIRTIO_PCI_CAP_NOTIFY_CFG, VNET_BAR0_DOORBELL, VNET_BAR0_DOORBELL_LEN);
  cfg.define(VNET_EP_NOTIFY_CAP + 16, 4, VNET_NOTIFY_OFF_MULTIPLIER);
  virtio_cap(cfg, VNET_EP_ISR_CAP, 16, VIRTIO_PCI_CAP_ISR_CFG, VNET_BAR0_ISR, VNET_BAR0_ISR_LEN);
  virtio_cap(cfg, VNET_EP_DEVICE_CAP, 16, VIRTIO_PCI_CAP_DEVICE_CFG, VNET_BAR0_DEVICE_CFG, VNET_BAR0_DEVICE_CFG_LEN);
  virtio_cap(cfg, VNET_EP_PCI_CFG_CAP, 20, VIRTIO_PCI_CAP_PCI_CFG, 0, 0);
}

void add_vnet_pcie_msix_caps(pcie::Function& fn, uint32_t devcap, uint16_t devctl_mask, uint16_t msix_flags) {
  pcie::ConfigSpace& cfg = fn.cfg;
  const uint16_t x = VNET_EP_PCIE_CAP;
  cfg.add_capability(PCI_CAP_ID_EXP, VNET_EP_PCIE_CAP_LEN, x);
  cfg.define(x + PCI_EXP_FLAGS, 2, VNET_EP_PCIE_FLAGS);
  cfg.define(x + PCI_EXP_DEVCAP, 4, devcap);
  cfg.define(x + PCI_EXP_DEVCTL, 2, 0, devctl_mask);
  cfg.define(x + PCI_EXP_LNKCAP, 4, VNET_EP_LNKCAP);
  cfg.define(x + PCI_EXP_LNKSTA, 2, VNET_EP_LNKSTA);
  fn.set_pcie_cap(x);
  // MSI-X: only Enable and Function Mask, in the top byte.
  const uint16_t m = VNET_EP_MSIX_CAP;
  cfg.add_capability(PCI_CAP_ID_MSIX, PCI_MSIX_CAP_SIZEOF, m);
  cfg.define(m + PCI_MSIX_FLAGS, 2, msix_flags, PCI_MSIX_FLAGS_ENABLE | PCI_MSIX_FLAGS_MASKALL);
  cfg.define(m + PCI_MSIX_TABLE, 4, VNET_BAR0_MSIX_TABLE);
  cfg.define(m + PCI_MSIX_PBA, 4, VNET_BAR0_MSIX_PBA);
}

EpImages::EpImages(const std::string& path, pcie::SimContext& ctx, AppLog& log, unsigned total_vfs)
    : virtio_(path, ctx), log_(log) {
  init_virtio(total_vfs);
  init_internal();
}

void EpImages::init_virtio(unsigned total_vfs) {
  pcie::ConfigSpace& cfg = virtio_.cfg;
  cfg.define(PCI_VENDOR_ID, 4, VNET_EP_ID);
  cfg.define(PCI_COMMAND, 2, 0,
             PCI_COMMAND_IO | PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER | PCI_COMMAND_PARITY | PCI_COMMAND_SERR |
                 PCI_COMMAND_INTX_DISABLE);
  cfg.define(PCI_STATUS, 2, PCI_STATUS_CAP_LIST, 0, PCI_STATUS_ERROR_BITS);
  cfg.define(PCI_CLASS_REVISION, 4, VNET_EP_CLASS_REV);
  // BAR0: the exact all-ones pattern reads back the size; anything else is taken as
  // (data AND byte mask) with the original low nibble: bytes not enabled become 0, and the
  // address bits below the size are writable (the application's BAR write mask).
  cfg.define(PCI_BASE_ADDRESS_0, 4, VNET_EP_BAR0_RESET, 0xfffffff0);
  cfg.filter_write(PCI_BASE_ADDRESS_0, [&cfg](uint16_t, uint32_t& data, uint8_t& be) {
    const uint32_t v = data & bytes::byte_enable_mask(be);
    data = v == 0xffffffff ? VNET_EP_BAR0_SIZING : (v & ~0xfu) | (cfg.get(PCI_BASE_ADDRESS_0, 4) & 0xf);
    be = 0xf;
  });
  cfg.define(PCI_BASE_ADDRESS_0 + 4, 4, 0, 0xffffffff);
  cfg.filter_write(PCI_BASE_ADDRESS_0 + 4, [](uint16_t, uint32_t& data, uint8_t& be) {
    data &= bytes::byte_enable_mask(be);
    be = 0xf;
  });
  cfg.define(PCI_SUBSYSTEM_VENDOR_ID, 4, VNET_EP_SUBSYSTEM);
  // PCI Express capability: all read-only, 36 bytes.
  add_vnet_pcie_msix_caps(virtio_, VNET_EP_DEVCAP, 0, VNET_EP_MSIX_FLAGS);
  add_virtio_pci_caps(cfg);
  if (total_vfs) sriov_ = add_vnet_sriov_caps(cfg, total_vfs);
  cfg.seal();
}

void EpImages::init_internal() {
  pcie::ConfigSpace& cfg = internal_;
  cfg.define(PCI_VENDOR_ID, 4, VNET_EP_INTERNAL_ID);
  cfg.define(PCI_COMMAND, 2, 0,  // I/O space is not writable here
             PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER | PCI_COMMAND_PARITY | PCI_COMMAND_SERR | PCI_COMMAND_INTX_DISABLE);
  cfg.define(PCI_STATUS, 2, PCI_STATUS_CAP_LIST, 0, PCI_STATUS_ERROR_BITS);
  cfg.define(PCI_CLASS_REVISION, 4, PCI_CLASS_NETWORK_ETHERNET << 8);
  cfg.define(PCI_SUBSYSTEM_VENDOR_ID, 4, VNET_EP_INTERNAL_ID);
  // BARs: sizing with all-ones and a full mask; otherwise the enabled bytes merge in and BAR0's
  // low nibble is forced to 0xC.
  cfg.define(PCI_BASE_ADDRESS_0, 4, VNET_EP_BAR0_RESET, 0xffffffff);
  cfg.define(PCI_BASE_ADDRESS_0 + 4, 4, 0, 0xffffffff);
  cfg.filter_write(PCI_BASE_ADDRESS_0, [this](uint16_t, uint32_t& data, uint8_t& be) {
    if (data == 0xffffffff && be == 0xf) {
      data = VNET_EP_BAR0_SIZING;
      log_.debug(kMainThread, "EP BAR0 Sizing: returning 0x%08x (32KB)", data);
      return;
    }
    data = (bytes::merge_enabled(internal_.get(PCI_BASE_ADDRESS_0, 4), data, be) & ~0xfu) | VNET_EP_BAR0_RESET;
    be = 0xf;
  });
  cfg.filter_write(PCI_BASE_ADDRESS_0 + 4, [this](uint16_t, uint32_t& data, uint8_t& be) {
    if (data == 0xffffffff && be == 0xf) {
      log_.debug(kMainThread, "EP BAR1 Sizing: returning 0x%08x (32KB upper)", data);
      return;
    }
    data = bytes::merge_enabled(internal_.get(PCI_BASE_ADDRESS_0 + 4, 4), data, be);
    be = 0xf;
    const uint64_t addr = uint64_t(data) << 32 | (internal_.get(PCI_BASE_ADDRESS_0, 4) & ~0xfu);
    log_.info(kMainThread, "EP BAR0 Final Address: 0x%lx", static_cast<unsigned long>(addr));
  });
  cfg.seal();
}

uint32_t EpImages::read(uint16_t offset, uint8_t first_be) const {
  return virtio_.config_read(offset, first_be);
}

void EpImages::write(uint16_t offset, uint32_t data, uint8_t first_be, uint16_t target) {
  internal_.write_dword(offset, data, first_be);
  virtio_.config_write(offset, data, first_be, target);
}

uint64_t EpImages::routing_bar0() const {
  return uint64_t(internal_.get(PCI_BASE_ADDRESS_0 + 4, 4)) << 32 | (internal_.get(PCI_BASE_ADDRESS_0, 4) & ~0xfu);
}

uint64_t EpImages::virtio_bar0() const {
  return uint64_t(virtio_.cfg.get(PCI_BASE_ADDRESS_0 + 4, 4)) << 32 | (virtio_.cfg.get(PCI_BASE_ADDRESS_0, 4) & ~0xfu);
}

}  // namespace dpusim::vnet
