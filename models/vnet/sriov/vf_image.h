// A VF's configuration image (PCIe r5.0 §9.3.4, the SR-IOV VF header; the DOCA guide's
// "VF cfg BARs read 0"): Vendor and Device ID read FFFFh (the host takes 1af4:1041 from the
// PF's SR-IOV capability), Command with only Bus Master Enable writable (VF memory decode is
// the PF's VF MSE), the six Type-0 BARs read 0 (the VF's BAR is its slice of the PF's VF BAR
// aperture), the PCI Express capability with Function Level Reset Capability in Device
// Capabilities and Initiate FLR in Device Control, MSI-X with 2 x max-queue-pairs + 2
// vectors, and the VirtIO vendor capabilities at the PF's offsets; extended space reads 0.
#pragma once

#include <cstdint>

#include "tlm/function.h"

namespace dpusim::vnet {

inline constexpr uint32_t VNET_VF_ID = 0xffffffff;
inline constexpr uint16_t VNET_VF_DEVCTL_MASK = 0x7cff;  // every Device Control field but Initiate FLR

// Per-VF MSI-X vectors and doorbells: one per data VQ, the CVQ and the config vector.
inline constexpr unsigned vnet_vf_num_msix(unsigned max_qps) { return 2 * max_qps + 2; }

// Lays out `fn`'s image and seals it (the FLR reset image).
void init_vf_image(pcie::Function& fn, unsigned max_qps);

}  // namespace dpusim::vnet
