// The SR-IOV extended capability of a Physical Function (PCIe r5.0 §9.3.3), a capability builder
// any device composes (as QEMU's hw/pci/pcie_sriov.c serves every device): the registers with
// their reset values and write masks, the rules masks cannot say (NumVFs frozen while VF Enable
// is set, §9.3.3.7; System Page Size taking exactly one supported size, §9.3.3.13; VF BAR0's
// address bits following the per-VF size), and the host's writes decoded back into SriovState,
// whose SR-IOV Control edges the device acts on through `on_control` (VF Enable: start or stop
// its VFs). The device supplies only what differs: TotalVFs, the Routing-ID offset and stride,
// the VF Device ID, the page sizes it supports and the size of one VF's BAR0.
//
// VF BAR0/1 is one 64-bit BAR aperture: VF n's BAR is base + n x size, where size is the
// device's per-VF BAR0 size or the System Page Size if larger (every VF BAR is aligned to the
// system page size, §9.3.3.13). VF BARs 2..5 are not implemented and read 0.
#pragma once

#include <cstdint>
#include <functional>

#include "tlm/config_space.h"

namespace dpusim::pcie {

struct SriovCapSpec {
  uint16_t total_vfs = 0;         // InitialVFs = TotalVFs (no VF migration)
  uint16_t first_vf_offset = 1;   // First VF Offset and VF Stride (Routing IDs, §9.3.3.9-10)
  uint16_t vf_stride = 1;
  uint16_t vf_device_id = 0;
  uint32_t supported_page_sizes = 0x00000553;  // bit n: 2^(n+12) bytes; 4K 8K 64K 256K 1M 4M
  uint64_t vf_bar0_size = 4096;                // one VF's BAR0 (a power of two >= 4 KiB)
  // Host-writable SR-IOV Control bits: VF Enable, VF MSE, ARI Capable Hierarchy by default
  // (no VF Migration, no migration interrupt).
  uint16_t control_mask = 0x0019;
};

// The PF's SR-IOV state as the host programmed it.
struct SriovState {
  uint16_t total_vfs = 0, num_vfs = 0;
  bool vfe = false, vf_mse = false, ari_hierarchy = false;
  uint32_t sys_pgsize = 1;   // System Page Size (bit n: 2^(n+12) bytes), 4 KiB at reset
  uint64_t vf_bar0 = 0;      // the aperture's base
  uint64_t vf_bar0_min = 0;  // the device's per-VF BAR0 size

  // Per-VF BAR size: the device's, or the system page size if larger.
  uint64_t vf_bar_size() const;
  uint64_t vf_bar_base(unsigned vf) const { return vf_bar0 + uint64_t(vf) * vf_bar_size(); }
  // The VF (0-based) whose BAR holds `addr`, or -1 (the aperture decodes only with VFE and VF MSE).
  int vf_at(uint64_t addr) const;
};

class SriovCap {
 public:
  // Lays the capability out at `at` in a PF's config space (before it is sealed).
  SriovCap(ConfigSpace& cfg, uint16_t at, const SriovCapSpec& spec);
  SriovCap(const SriovCap&) = delete;
  SriovCap& operator=(const SriovCap&) = delete;

  uint16_t offset() const { return at_; }
  const SriovCapSpec& spec() const { return spec_; }
  const SriovState& state() const { return state_; }
  // The Routing ID of VF `vf` (0-based) of a PF at `pf_rid` (§9.3.3.9-10).
  uint16_t vf_rid(uint16_t pf_rid, unsigned vf) const {
    return uint16_t(pf_rid + spec_.first_vf_offset + vf * spec_.vf_stride);
  }
  // An SR-IOV Control write (after it applied): the state before and after.
  std::function<void(const SriovState& before, const SriovState& after)> on_control;

 private:
  bool one_supported_page_size(uint32_t v) const;
  uint32_t vf_bar0_low(uint32_t v) const;  // BAR0's low DW with the bits below the size cleared
  void decode();

  ConfigSpace& cfg_;
  const uint16_t at_;
  const SriovCapSpec spec_;
  SriovState state_;
};

}  // namespace dpusim::pcie
