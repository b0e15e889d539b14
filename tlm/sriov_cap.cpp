#include "tlm/sriov_cap.h"

#include <string>

#include "tlm/bytes.h"
#include "tlm/pci_regs.h"

namespace dpusim::pcie {

using namespace dpusim::pci;

uint64_t SriovState::vf_bar_size() const {
  const uint64_t page = uint64_t(sys_pgsize) << 12;
  return page > vf_bar0_min ? page : vf_bar0_min;
}

int SriovState::vf_at(uint64_t addr) const {
  if (!vfe || !vf_mse || vf_bar0 == 0 || addr < vf_bar0) return -1;
  const uint64_t vf = (addr - vf_bar0) / vf_bar_size();
  return vf < total_vfs ? int(vf) : -1;
}

bool SriovCap::one_supported_page_size(uint32_t v) const {
  return v != 0 && (v & (v - 1)) == 0 && (v & spec_.supported_page_sizes) == v;
}

uint32_t SriovCap::vf_bar0_low(uint32_t v) const {
  return (v & ~uint32_t(state_.vf_bar_size() - 1) & ~0xfu) | PCI_BASE_ADDRESS_MEM_TYPE_64 | PCI_BASE_ADDRESS_MEM_PREFETCH;
}

SriovCap::SriovCap(ConfigSpace& cfg, uint16_t at, const SriovCapSpec& spec) : cfg_(cfg), at_(at), spec_(spec) {
  if (spec.vf_bar0_size < 4096 || (spec.vf_bar0_size & (spec.vf_bar0_size - 1)) || !(spec.supported_page_sizes & 1))
    throw ConfigLayoutError("SR-IOV capability: VF BAR0 of " + std::to_string(spec.vf_bar0_size) +
                            " bytes (a power of two >= 4096) or supported page sizes without 4 KiB");
  state_.total_vfs = spec.total_vfs;
  state_.vf_bar0_min = spec.vf_bar0_size;
  const uint16_t s = at;
  cfg.add_ext_capability(PCI_EXT_CAP_ID_SRIOV, 1, PCI_EXT_CAP_SRIOV_SIZEOF, s);
  cfg.define(s + PCI_SRIOV_CAP, 4, 0);
  cfg.define(s + PCI_SRIOV_CTRL, 2, 0, spec.control_mask);
  cfg.define(s + PCI_SRIOV_STATUS, 2, 0);
  cfg.define(s + PCI_SRIOV_INITIAL_VF, 2, spec.total_vfs);
  cfg.define(s + PCI_SRIOV_TOTAL_VF, 2, spec.total_vfs);
  cfg.define(s + PCI_SRIOV_NUM_VF, 2, 0, 0xffff);
  cfg.define(s + PCI_SRIOV_FUNC_LINK, 1, 0);
  cfg.define(s + PCI_SRIOV_VF_OFFSET, 2, spec.first_vf_offset);
  cfg.define(s + PCI_SRIOV_VF_STRIDE, 2, spec.vf_stride);
  cfg.define(s + PCI_SRIOV_VF_DID, 2, spec.vf_device_id);
  cfg.define(s + PCI_SRIOV_SUP_PGSIZE, 4, spec.supported_page_sizes);
  cfg.define(s + PCI_SRIOV_SYS_PGSIZE, 4, 1, spec.supported_page_sizes);
  const uint16_t bar0 = s + PCI_SRIOV_BAR, bar1 = bar0 + 4;
  cfg.define(bar0, 4, vf_bar0_low(0), 0xfffffff0);
  cfg.define(bar1, 4, 0, 0xffffffff);
  for (uint16_t b = 2; b < PCI_SRIOV_NUM_BARS; ++b) cfg.define(uint16_t(bar0 + 4 * b), 4, 0);  // unimplemented
  cfg.define(s + PCI_SRIOV_VFM, 4, 0);
  // NumVFs may be written only while VF Enable is clear (§9.3.3.7): later writes are dropped.
  cfg.filter_write(s + PCI_SRIOV_NUM_VF, [this](uint16_t, uint32_t&, uint8_t& be) {
    if (state_.vfe) be &= uint8_t(~3u);
  });
  // System Page Size takes exactly one supported size; anything else leaves it unchanged.
  cfg.filter_write(s + PCI_SRIOV_SYS_PGSIZE, [this](uint16_t dw, uint32_t& data, uint8_t& be) {
    const uint32_t v = bytes::merge_enabled(cfg_.get(dw, 4), data, be);
    if (!one_supported_page_size(v)) {
      be = 0;
      return;
    }
    data = v;
    be = 0xf;
  });
  // VF BAR0: the address bits at and above the per-VF size are writable (sizing reads the size).
  cfg.filter_write(bar0, [this](uint16_t dw, uint32_t& data, uint8_t& be) {
    data = vf_bar0_low(bytes::merge_enabled(cfg_.get(dw, 4), data, be));
    be = 0xf;
  });
  cfg.on_write(s, PCI_EXT_CAP_SRIOV_SIZEOF, [this](uint16_t dw, uint32_t before, uint32_t after, uint8_t) {
    const SriovState old = state_;
    if (dw == at_ + PCI_SRIOV_SYS_PGSIZE && before != after) {
      // A larger page makes the VF BARs larger: the address bits below the new size read 0.
      state_.sys_pgsize = after;
      const uint16_t b0 = at_ + PCI_SRIOV_BAR;
      cfg_.set(b0, 4, vf_bar0_low(cfg_.get(b0, 4)));
    }
    decode();
    if (dw == at_ + PCI_SRIOV_CTRL && on_control) on_control(old, state_);
  });
  decode();
}

void SriovCap::decode() {
  const uint16_t ctrl = uint16_t(cfg_.get(at_ + PCI_SRIOV_CTRL, 2));
  state_.vfe = ctrl & PCI_SRIOV_CTRL_VFE;
  state_.vf_mse = ctrl & PCI_SRIOV_CTRL_MSE;
  state_.ari_hierarchy = ctrl & PCI_SRIOV_CTRL_ARI;
  state_.num_vfs = uint16_t(cfg_.get(at_ + PCI_SRIOV_NUM_VF, 2));
  state_.sys_pgsize = cfg_.get(at_ + PCI_SRIOV_SYS_PGSIZE, 4);
  state_.vf_bar0 = uint64_t(cfg_.get(at_ + PCI_SRIOV_BAR + 4, 4)) << 32 | (cfg_.get(at_ + PCI_SRIOV_BAR, 4) & ~0xfu);
}

}  // namespace dpusim::pcie
