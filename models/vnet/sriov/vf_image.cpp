#include "vnet/sriov/vf_image.h"

#include "tlm/pci_regs.h"
#include "vnet/virtio/ep_image.h"
#include "vnet/virtio/vnet_layout.h"

namespace dpusim::vnet {

using namespace dpusim::pci;

void init_vf_image(pcie::Function& fn, unsigned max_qps) {
  pcie::ConfigSpace& cfg = fn.cfg;
  cfg.define(PCI_VENDOR_ID, 4, VNET_VF_ID);
  cfg.define(PCI_COMMAND, 2, 0, PCI_COMMAND_MASTER);
  cfg.define(PCI_STATUS, 2, PCI_STATUS_CAP_LIST, 0, PCI_STATUS_ERROR_BITS);
  cfg.define(PCI_CLASS_REVISION, 4, VNET_EP_CLASS_REV);
  cfg.define(PCI_SUBSYSTEM_VENDOR_ID, 4, VNET_EP_SUBSYSTEM);
  add_vnet_pcie_msix_caps(fn, VNET_EP_DEVCAP | PCI_EXP_DEVCAP_FLR, VNET_VF_DEVCTL_MASK,
                          uint16_t(vnet_vf_num_msix(max_qps) - 1));
  add_virtio_pci_caps(cfg);
  cfg.seal();
}

}  // namespace dpusim::vnet
