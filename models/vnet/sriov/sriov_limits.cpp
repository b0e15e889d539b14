#include "vnet/sriov/sriov_limits.h"

#include <cstdio>

#include "vnet/virtio/vnet_layout.h"

namespace dpusim::vnet {

std::optional<std::string> sriov_validate_caps(const SriovRequest& r) {
  char buf[256];
  if (r.total_vfs < 1 || unsigned(r.total_vfs) > VNET_SRIOV_MAX_VFS_PER_PF) {
    std::snprintf(buf, sizeof buf, "Invalid --total-vfs value: %d. Must be between 1 and %u (per-PF VF limit)",
                  r.total_vfs, VNET_SRIOV_MAX_VFS_PER_PF);
    return std::string(buf);
  }
  const unsigned vfs = unsigned(r.total_vfs);
  const unsigned last_fn = r.first_vf_offset + (vfs - 1) * r.vf_stride;
  if (last_fn > VNET_ARI_MAX_FUNCTION) {
    std::snprintf(buf, sizeof buf,
                  "SR-IOV: last VF function %u (first_vf_offset=%u + (total_vfs=%u - 1) * vf_stride=%u) exceeds the "
                  "ARI ceiling of %u",
                  last_fn, r.first_vf_offset, vfs, r.vf_stride, VNET_ARI_MAX_FUNCTION);
    return std::string(buf);
  }
  const unsigned vqs = VNET_TOTAL_VQS(r.max_queue_pairs);
  const unsigned long budget = static_cast<unsigned long>(r.num_ep) * vfs * vqs;
  if (budget > VNET_SRIOV_VQ_BUDGET) {
    std::snprintf(buf, sizeof buf,
                  "SR-IOV: device-wide VF VQ budget exceeded: %u PF(s) x %u VF(s) x %u VQs = %lu > %u", r.num_ep, vfs,
                  vqs, budget, VNET_SRIOV_VQ_BUDGET);
    return std::string(buf);
  }
  const unsigned all = r.num_ep * vfs;
  if (all > VNET_SRIOV_MAX_TOTAL_VFS) {
    std::snprintf(buf, sizeof buf, "SR-IOV: aggregate VF count %u (%u PF(s) x %u VF(s)) exceeds the device limit of %u",
                  all, r.num_ep, vfs, VNET_SRIOV_MAX_TOTAL_VFS);
    return std::string(buf);
  }
  // VF g's MAC: the base MAC's low 16 bits + num_ep + g, no carry into the upper octets.
  const unsigned last_g = all - 1;
  if (r.mac_low16 + r.num_ep + last_g > 0xffff) {
    std::snprintf(buf, sizeof buf, "SR-IOV: VF MAC address overflow for vf_index %u (base low16=0x%04x + num_ep=%u + "
                  "vf_index=%u > 0xffff)", last_g, r.mac_low16, r.num_ep, last_g);
    return std::string(buf);
  }
  return std::nullopt;
}

}  // namespace dpusim::vnet
