#include "vnet/sriov/sriov_cap.h"

#include "tlm/capabilities.h"
#include "vnet/virtio/vnet_layout.h"

namespace dpusim::vnet {

std::unique_ptr<pcie::SriovCap> add_vnet_sriov_caps(pcie::ConfigSpace& cfg, unsigned total_vfs) {
  pcie::SriovCapSpec spec;
  spec.total_vfs = uint16_t(total_vfs);
  spec.first_vf_offset = VNET_SRIOV_FIRST_VF_OFFSET;
  spec.vf_stride = VNET_SRIOV_VF_STRIDE;
  spec.vf_device_id = VNET_VF_DEVICE_ID;
  spec.supported_page_sizes = VNET_SRIOV_SUP_PGSIZE;
  spec.vf_bar0_size = VNET_BAR0_SIZE;
  spec.control_mask = VNET_SRIOV_CTRL_MASK;
  auto sriov = std::make_unique<pcie::SriovCap>(cfg, VNET_SRIOV_CAP, spec);
  // Next Function Number 0: the PF is the device's only PF (VFs are not in the ARI chain).
  pcie::add_ari_cap(cfg, 0, VNET_ARI_CAP);
  pcie::add_acs_cap(cfg, VNET_ACS_CAPS, VNET_ACS_CAP);
  return sriov;
}

}  // namespace dpusim::vnet
