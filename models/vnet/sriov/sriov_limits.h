// The application's SR-IOV start-up checks (the DOCA guide's "Resources & validation",
// vnet_sriov_validate_caps()): per-PF VF limit, the ARI routing-ID ceiling, the device-wide
// VF VQ budget, the aggregate VF count and the per-VF MAC range, each refused with its own
// message (docs/vnet.md lists them verbatim).
#pragma once

#include <optional>
#include <string>

namespace dpusim::vnet {

inline constexpr unsigned VNET_SRIOV_MAX_VFS_PER_PF = 64;
inline constexpr unsigned VNET_ARI_MAX_FUNCTION = 255;
inline constexpr unsigned VNET_SRIOV_VQ_BUDGET = 4352;  // 256 VFs x VNET_TOTAL_VQS(8)
inline constexpr unsigned VNET_SRIOV_MAX_TOTAL_VFS = 256;

struct SriovRequest {
  int total_vfs = 0;  // per PF
  unsigned num_ep = 1, max_queue_pairs = 8;
  unsigned first_vf_offset = 1, vf_stride = 1;
  unsigned mac_low16 = 0;  // the base MAC's last two octets
};

// The first check that fails, as the message the application prints; nullopt when all pass.
std::optional<std::string> sriov_validate_caps(const SriovRequest& r);

// The --total-vfs / --lu-mode exclusion.
inline constexpr const char* VNET_SRIOV_LU_EXCLUSIVE =
    "--total-vfs and --lu-mode are mutually exclusive: live update transfers PF state only";

}  // namespace dpusim::vnet
