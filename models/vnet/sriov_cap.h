// The PF's SR-IOV, ARI and ACS extended capabilities as the host sees them (the DOCA guide's
// "SR-IOV PCIe Capability (Host View)"; PCIe r5.0 §9.3.3 SR-IOV, §7.8.8 ARI, §7.7.8 ACS):
// chained 0x100 (SR-IOV) -> 0x140 (ARI) -> 0x148 (ACS, next 0), each header version 1, laid
// out only when the application runs with --total-vfs (otherwise extended space reads 0).
//
// The registers live in the PF's config image with their write masks; host writes are decoded
// back into SriovPfState (struct vnet_sriov_pf_state), whose Control edges the application
// acts on (VFE fan-out, sriov.h). The VF BAR aperture is VF BAR0/1, a 64-bit prefetchable BAR
// whose per-VF size is the endpoint BAR0's 32 KiB or the System Page Size if larger (every VF
// BAR is aligned to the system page size, §9.3.3.13); VF n's BAR is base + n x size.
#pragma once

#include <cstdint>
#include <functional>

#include "tlm/config_space.h"

namespace dpusim::vnet {

// Layout (the guide's chain) and the constant fields.
inline constexpr uint16_t VNET_SRIOV_CAP = 0x100;
inline constexpr uint16_t VNET_ARI_CAP = 0x140;
inline constexpr uint16_t VNET_ACS_CAP = 0x148;
inline constexpr uint16_t VNET_SRIOV_FIRST_VF_OFFSET = 1;
inline constexpr uint16_t VNET_SRIOV_VF_STRIDE = 1;
inline constexpr uint16_t VNET_VF_DEVICE_ID = 0x1041;
// Supported Page Sizes: 4 KiB, 8 KiB, 64 KiB, 256 KiB, 1 MiB, 4 MiB (bit n = 2^(n+12) bytes).
inline constexpr uint32_t VNET_SRIOV_SUP_PGSIZE = 0x00000553;
inline constexpr uint32_t VNET_SRIOV_SYS_PGSIZE_RESET = 0x00000001;  // 4 KiB
inline constexpr uint32_t VNET_SRIOV_VF_BAR0_FLAGS = 0x0000000c;     // 64-bit prefetchable
// Host-writable SR-IOV Control bits: VF Enable, VF MSE, ARI Capable Hierarchy (no migration).
inline constexpr uint16_t VNET_SRIOV_CTRL_MASK = 0x0019;
// ACS for the functions of a multi-function device (§6.12.1.2): P2P Request and Completion
// Redirect, Direct Translated P2P.
inline constexpr uint16_t VNET_ACS_CAPS = 0x004c;

struct SriovPfState {
  uint16_t total_vfs = 0, num_vfs = 0;
  bool vfe = false, vf_mse = false, ari_hierarchy = false;
  uint32_t sys_pgsize = VNET_SRIOV_SYS_PGSIZE_RESET;
  uint64_t vf_bar0 = 0;  // the aperture's base as the host programmed it

  // Per-VF BAR size: 32 KiB, or the system page size if larger.
  uint64_t vf_bar_size() const;
  uint64_t vf_bar_base(unsigned vf) const { return vf_bar0 + uint64_t(vf) * vf_bar_size(); }
  // The VF (0-based) whose BAR holds `addr`, or -1 (the aperture decodes only with VFE and VF MSE).
  int vf_at(uint64_t addr) const;
};

class SriovCap {
 public:
  // Lays out the three capabilities in the PF image `cfg` (before it is sealed).
  SriovCap(pcie::ConfigSpace& cfg, unsigned total_vfs);

  const SriovPfState& state() const { return state_; }
  // An SR-IOV Control write (after it applied): the state before and after.
  std::function<void(const SriovPfState& before, const SriovPfState& after)> on_control;
 private:
  void decode();
  pcie::ConfigSpace& cfg_;
  SriovPfState state_;
};

}  // namespace dpusim::vnet
