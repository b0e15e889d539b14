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
  const uint16_t x = VNET_EP_PCIE_CAP;
  cfg.add_capability(PCI_CAP_ID_EXP, VNET_EP_PCIE_CAP_LEN, x);
  cfg.define(x + PCI_EXP_FLAGS, 2, VNET_EP_PCIE_FLAGS);
  cfg.define(x + PCI_EXP_DEVCAP, 4, VNET_EP_DEVCAP | PCI_EXP_DEVCAP_FLR);
  cfg.define(x + PCI_EXP_DEVCTL, 2, 0, VNET_VF_DEVCTL_MASK);
  cfg.define(x + PCI_EXP_LNKCAP, 4, VNET_EP_LNKCAP);
  cfg.define(x + PCI_EXP_LNKSTA, 2, VNET_EP_LNKSTA);
  fn.set_pcie_cap(x);
  const uint16_t m = VNET_EP_MSIX_CAP;
  cfg.add_capability(PCI_CAP_ID_MSIX, PCI_MSIX_CAP_SIZEOF, m);
  cfg.define(m + PCI_MSIX_FLAGS, 2, vnet_vf_num_msix(max_qps) - 1, PCI_MSIX_FLAGS_ENABLE | PCI_MSIX_FLAGS_MASKALL);
  cfg.define(m + PCI_MSIX_TABLE, 4, VNET_BAR0_MSIX_TABLE);
  cfg.define(m + PCI_MSIX_PBA, 4, VNET_BAR0_MSIX_PBA);
  add_virtio_pci_caps(cfg);
  cfg.seal();
}

}  // namespace dpusim::vnet
