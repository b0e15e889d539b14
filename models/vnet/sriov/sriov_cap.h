// The PF's SR-IOV, ARI and ACS extended capabilities as the host sees them (the DOCA guide's
// "SR-IOV PCIe Capability (Host View)"; PCIe r5.0 §9.3.3 SR-IOV, §7.8.8 ARI, §7.7.8 ACS):
// chained 0x100 (SR-IOV) -> 0x140 (ARI) -> 0x148 (ACS, next 0), each header version 1, laid
// out only when the application runs with --total-vfs (otherwise extended space reads 0).
//
// The registers and their rules are the capability library's (tlm/sriov_cap.h,
// tlm/capabilities.h); this file holds what the application chooses: the chain's offsets, the
// VF Routing-ID layout, the VF Device ID, the page sizes and the per-VF BAR0 of 32 KiB (the
// endpoint BAR0's size, vnet_layout.h). The application acts on the Control edges (VFE
// fan-out, sriov.h).
#pragma once

#include <cstdint>
#include <memory>

#include "tlm/config_space.h"
#include "tlm/sriov_cap.h"

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
// Host-writable SR-IOV Control bits: VF Enable, VF MSE, ARI Capable Hierarchy (no migration).
inline constexpr uint16_t VNET_SRIOV_CTRL_MASK = 0x0019;
// ACS for the functions of a multi-function device (§6.12.1.2): P2P Request and Completion
// Redirect, Direct Translated P2P.
inline constexpr uint16_t VNET_ACS_CAPS = 0x004c;

// Lays out the three capabilities in the PF image `cfg` (before it is sealed); the SR-IOV one
// is returned, for the application to hook its Control edges.
std::unique_ptr<pcie::SriovCap> add_vnet_sriov_caps(pcie::ConfigSpace& cfg, unsigned total_vfs);

}  // namespace dpusim::vnet
