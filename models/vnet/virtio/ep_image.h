// An endpoint's two configuration images (vnet_virtio_types.h struct pcie_virtio_dev, vnet_pci_device.c): the host-visible VirtIO
// image (struct pcie_virtio_dev, 4 KiB: type 0 header, PCIe, MSI-X and the five VirtIO vendor
// capabilities packed after it, nothing in extended space) that every host read is served
// from, and the internal switch image (device 0x10F0) whose BAR the application routes memory
// requests by. A config write goes to the internal image first, then to the VirtIO image.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "vnet/app/app_log.h"
#include "vnet/sriov/sriov_cap.h"
#include "tlm/config_space.h"
#include "tlm/function.h"

namespace dpusim::vnet {

// Capability offsets of struct pcie_virtio_dev.
inline constexpr uint16_t VNET_EP_PCIE_CAP = 0x40;
inline constexpr uint16_t VNET_EP_PCIE_CAP_LEN = 36;
inline constexpr uint16_t VNET_EP_MSIX_CAP = 0x64;
inline constexpr uint16_t VNET_EP_COMMON_CAP = 0x70;
inline constexpr uint16_t VNET_EP_NOTIFY_CAP = 0x80;
inline constexpr uint16_t VNET_EP_ISR_CAP = 0x94;
inline constexpr uint16_t VNET_EP_DEVICE_CAP = 0xa4;
inline constexpr uint16_t VNET_EP_PCI_CFG_CAP = 0xb4;
static_assert(VNET_EP_PCIE_CAP + VNET_EP_PCIE_CAP_LEN == VNET_EP_MSIX_CAP, "PCIe cap and MSI-X cap abut");

// Reset values.
inline constexpr uint32_t VNET_EP_ID = uint32_t(0x1041) << 16 | 0x1af4;
inline constexpr uint32_t VNET_EP_CLASS_REV = 0x02000001;
inline constexpr uint32_t VNET_EP_SUBSYSTEM = uint32_t(0x0001) << 16 | 0x1af4;
inline constexpr uint32_t VNET_EP_BAR0_RESET = 0x0000000c;  // 64-bit prefetchable
inline constexpr uint32_t VNET_EP_BAR0_SIZING = 0xffff800c;  // 32 KiB
inline constexpr uint32_t VNET_EP_PCIE_FLAGS = 0x0002;       // v2, endpoint
inline constexpr uint32_t VNET_EP_DEVCAP = 0x00008001;
inline constexpr uint32_t VNET_EP_LNKCAP = 0x00011c85;       // Gen5 x8, ASPM L0s+L1
inline constexpr uint16_t VNET_EP_LNKSTA = 0x1085;
inline constexpr uint16_t VNET_EP_MSIX_FLAGS = 0x00ff;       // 256 vectors, disabled
inline constexpr uint32_t VNET_EP_INTERNAL_ID = uint32_t(0x10f0) << 16 | 0x1af4;

// The PCI Express capability of struct pcie_virtio_dev (36 bytes, read-only but for
// `devctl_mask` in Device Control) and its MSI-X capability (`msix_flags`: Table Size; only
// Enable and Function Mask writable; table and PBA in BAR0); a VF's image has the same layout.
void add_vnet_pcie_msix_caps(pcie::Function& fn, uint32_t devcap, uint16_t devctl_mask, uint16_t msix_flags);

// The five VirtIO vendor capabilities of struct pcie_virtio_dev (common, notify, ISR, device,
// PCI cfg access), linked after the MSI-X capability; a VF's image has the same.
void add_virtio_pci_caps(pcie::ConfigSpace& cfg);

class EpImages {
 public:
  // `path` names the VirtIO image's function ("ep0"); `total_vfs` > 0 lays out the SR-IOV,
  // ARI and ACS extended capabilities (sriov_cap.h), otherwise extended space reads 0.
  EpImages(const std::string& path, pcie::SimContext& ctx, AppLog& log, unsigned total_vfs = 0);

  // The host-visible image (its Function captures the BDF the host addresses it by).
  pcie::Function& virtio() { return virtio_; }
  const pcie::Function& virtio() const { return virtio_; }
  pcie::ConfigSpace& internal() { return internal_; }
  const pcie::ConfigSpace& internal() const { return internal_; }
  // The PF's SR-IOV capability (nullptr without --total-vfs).
  pcie::SriovCap* sriov() { return sriov_.get(); }
  const pcie::SriovCap* sriov() const { return sriov_.get(); }

  // A host config read: the image DW masked with the first byte enables.
  uint32_t read(uint16_t offset, uint8_t first_be) const;
  // A host config write: internal image, then the VirtIO image (which captures `target`).
  void write(uint16_t offset, uint32_t data, uint8_t first_be, uint16_t target);

  // BAR0 as the application routes by it (internal image) and as the host programmed it.
  uint64_t routing_bar0() const;
  uint64_t virtio_bar0() const;

 private:
  void init_virtio(unsigned total_vfs);
  void init_internal();
  pcie::Function virtio_;
  pcie::ConfigSpace internal_{256};
  std::unique_ptr<pcie::SriovCap> sriov_;
  AppLog& log_;
};

}  // namespace dpusim::vnet
