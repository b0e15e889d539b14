#include "vnet/sriov_cap.h"

#include "tlm/pci_regs.h"
#include "vnet/vnet_layout.h"

namespace dpusim::vnet {

using namespace dpusim::pci;

namespace {

uint32_t byte_mask(uint8_t be) {
  uint32_t m = 0;
  for (unsigned i = 0; i < 4; ++i)
    if (be & (1u << i)) m |= 0xffu << (8 * i);
  return m;
}

bool one_supported_page_size(uint32_t v) { return v != 0 && (v & (v - 1)) == 0 && (v & VNET_SRIOV_SUP_PGSIZE) == v; }

}  // namespace

uint64_t SriovPfState::vf_bar_size() const {
  const uint64_t page = uint64_t(sys_pgsize) << 12;
  return page > VNET_BAR0_SIZE ? page : VNET_BAR0_SIZE;
}

int SriovPfState::vf_at(uint64_t addr) const {
  if (!vfe || !vf_mse || vf_bar0 == 0 || addr < vf_bar0) return -1;
  const uint64_t vf = (addr - vf_bar0) / vf_bar_size();
  return vf < total_vfs ? int(vf) : -1;
}

SriovCap::SriovCap(pcie::ConfigSpace& cfg, unsigned total_vfs) : cfg_(cfg) {
  state_.total_vfs = uint16_t(total_vfs);
  const uint16_t s = VNET_SRIOV_CAP;
  cfg.add_ext_capability(PCI_EXT_CAP_ID_SRIOV, 1, PCI_EXT_CAP_SRIOV_SIZEOF, s);
  cfg.define(s + PCI_SRIOV_CAP, 4, 0);
  cfg.define(s + PCI_SRIOV_CTRL, 2, 0, VNET_SRIOV_CTRL_MASK);
  cfg.define(s + PCI_SRIOV_STATUS, 2, 0);
  cfg.define(s + PCI_SRIOV_INITIAL_VF, 2, total_vfs);
  cfg.define(s + PCI_SRIOV_TOTAL_VF, 2, total_vfs);
  cfg.define(s + PCI_SRIOV_NUM_VF, 2, 0, 0xffff);
  cfg.define(s + PCI_SRIOV_FUNC_LINK, 1, 0);
  cfg.define(s + PCI_SRIOV_VF_OFFSET, 2, VNET_SRIOV_FIRST_VF_OFFSET);
  cfg.define(s + PCI_SRIOV_VF_STRIDE, 2, VNET_SRIOV_VF_STRIDE);
  cfg.define(s + PCI_SRIOV_VF_DID, 2, VNET_VF_DEVICE_ID);
  cfg.define(s + PCI_SRIOV_SUP_PGSIZE, 4, VNET_SRIOV_SUP_PGSIZE);
  cfg.define(s + PCI_SRIOV_SYS_PGSIZE, 4, VNET_SRIOV_SYS_PGSIZE_RESET, VNET_SRIOV_SUP_PGSIZE);
  const uint16_t bar0 = s + PCI_SRIOV_BAR, bar1 = bar0 + 4;
  cfg.define(bar0, 4, VNET_SRIOV_VF_BAR0_FLAGS, 0xfffffff0);
  cfg.define(bar1, 4, 0, 0xffffffff);
  for (uint16_t b = 2; b < PCI_SRIOV_NUM_BARS; ++b) cfg.define(uint16_t(bar0 + 4 * b), 4, 0);  // unimplemented
  cfg.define(s + PCI_SRIOV_VFM, 4, 0);
  // NumVFs may be written only while VF Enable is clear (§9.3.3.7): later writes are dropped.
  cfg.filter_write(s + PCI_SRIOV_NUM_VF, [this](uint16_t, uint32_t&, uint8_t& be) {
    if (state_.vfe) be &= uint8_t(~3u);
  });
  // System Page Size takes exactly one supported size; anything else leaves it unchanged.
  cfg.filter_write(s + PCI_SRIOV_SYS_PGSIZE, [this](uint16_t dw, uint32_t& data, uint8_t& be) {
    const uint32_t v = (cfg_.get(dw, 4) & ~byte_mask(be)) | (data & byte_mask(be));
    if (!one_supported_page_size(v)) {
      be = 0;
      return;
    }
    data = v;
    be = 0xf;
  });
  // VF BAR0: the address bits at and above the per-VF size are writable (sizing reads the size).
  cfg.filter_write(bar0, [this](uint16_t dw, uint32_t& data, uint8_t& be) {
    const uint32_t v = (cfg_.get(dw, 4) & ~byte_mask(be)) | (data & byte_mask(be));
    data = (v & ~uint32_t(state_.vf_bar_size() - 1) & ~0xfu) | VNET_SRIOV_VF_BAR0_FLAGS;
    be = 0xf;
  });
  cfg.on_write(s, PCI_EXT_CAP_SRIOV_SIZEOF, [this](uint16_t dw, uint32_t before, uint32_t after, uint8_t) {
    const SriovPfState old = state_;
    if (dw == VNET_SRIOV_CAP + PCI_SRIOV_SYS_PGSIZE && before != after) {
      // A larger page makes the VF BARs larger: the address bits below the new size read 0.
      state_.sys_pgsize = after;
      const uint16_t b0 = VNET_SRIOV_CAP + PCI_SRIOV_BAR;
      cfg_.set(b0, 4, (cfg_.get(b0, 4) & ~uint32_t(state_.vf_bar_size() - 1) & ~0xfu) | VNET_SRIOV_VF_BAR0_FLAGS);
    }
    decode();
    if (dw == VNET_SRIOV_CAP + PCI_SRIOV_CTRL && on_control) on_control(old, state_);
  });
  cfg.add_ext_capability(PCI_EXT_CAP_ID_ARI, 1, PCI_EXT_CAP_ARI_SIZEOF, VNET_ARI_CAP);
  // Next Function Number 0: the PF is the device's only PF (VFs are not in the ARI chain).
  cfg.define(VNET_ARI_CAP + PCI_ARI_CAP, 2, 0);
  cfg.define(VNET_ARI_CAP + PCI_ARI_CTRL, 2, 0);
  cfg.add_ext_capability(PCI_EXT_CAP_ID_ACS, 1, PCI_EXT_CAP_ACS_SIZEOF, VNET_ACS_CAP);
  cfg.define(VNET_ACS_CAP + PCI_ACS_CAP, 2, VNET_ACS_CAPS);
  cfg.define(VNET_ACS_CAP + PCI_ACS_CTRL, 2, 0, VNET_ACS_CAPS);
  decode();
}

void SriovCap::decode() {
  const uint16_t s = VNET_SRIOV_CAP;
  const uint16_t ctrl = uint16_t(cfg_.get(s + PCI_SRIOV_CTRL, 2));
  state_.vfe = ctrl & PCI_SRIOV_CTRL_VFE;
  state_.vf_mse = ctrl & PCI_SRIOV_CTRL_MSE;
  state_.ari_hierarchy = ctrl & PCI_SRIOV_CTRL_ARI;
  state_.num_vfs = uint16_t(cfg_.get(s + PCI_SRIOV_NUM_VF, 2));
  state_.sys_pgsize = cfg_.get(s + PCI_SRIOV_SYS_PGSIZE, 4);
  state_.vf_bar0 = uint64_t(cfg_.get(s + PCI_SRIOV_BAR + 4, 4)) << 32 | (cfg_.get(s + PCI_SRIOV_BAR, 4) & ~0xfu);
}

}  // namespace dpusim::vnet
