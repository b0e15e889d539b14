// The TLP channel's live update (vnet_pci_dev_lu.c, after DEV_ACK): what travels on the socket.
//
//  - CH_EXPORT: a u32 length and the active channel's export descriptor, from which the standby
//    creates its secondary channel; the standby refuses a length of 0 or above 1 MiB
//    (kLuChannelExportMax).
//  - CH_BEGIN_ACK: the channel configuration (counts, the transaction region size, and per
//    device the header, capabilities, BDF and completion fields: here each function's config
//    image and captured routing ID, for the USP, every DSP, every EP's internal switch image and
//    the dummy), then per EP its 4 KiB transaction region and its 4 KiB VirtIO register image
//    (the host-visible config image, struct pcie_virtio_dev). The standby checks
//    num_devices <= 65, num_ep <= 32 and an equal region size before applying.
//
// The transaction regions are firmware's per-function TLP state, which the model does not
// keep: they travel as their size (their copy's cost) with zero contents.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vnet/app/app_state.h"

namespace dpusim::vnet {

inline constexpr uint32_t kLuChannelExportMax = 1u << 20;  // 1 MiB
inline constexpr uint32_t kLuChannelMaxDevices = 65;       // 1 USP + 32 DSP + 32 EP
inline constexpr uint32_t kLuTransactionRegionBytes = 4096;
inline constexpr uint32_t kLuRegisterImageBytes = 4096;
inline constexpr const char* kLuChannelShmDir = "/dev/shm/vnet_lu_channel";

// The active channel's export descriptor (CH_EXPORT's payload).
std::vector<uint8_t> lu_channel_export(const AppDevices& devs);

struct LuChannelDevice {
  uint16_t bdf = 0;                 // the captured routing ID (the completer ID)
  std::vector<uint8_t> config;      // the function's config image
};

struct LuChannelState {
  uint32_t num_devices = 0, num_ep = 0, region_size = kLuTransactionRegionBytes;
  std::vector<LuChannelDevice> devices;       // USP, DSP 0.., EP internal images 0.., dummy
  std::vector<std::vector<uint8_t>> regions;  // per EP
  std::vector<LuChannelDevice> images;        // per EP: the VirtIO register image and its BDF
};

// The active's snapshot after its channel stopped, and its wire form (CH_BEGIN_ACK's payload).
LuChannelState lu_channel_snapshot(const AppPorts& ports, const AppDevices& devs);
std::vector<uint8_t> lu_channel_write(const LuChannelState& s);
// Reads and checks a CH_BEGIN_ACK payload against the standby's own `region_size`.
bool lu_channel_read(const std::vector<uint8_t>& bytes, LuChannelState& out, std::string* error);
// The standby applies it to its own images (false, with the reason, when its topology differs).
bool lu_channel_apply(const LuChannelState& s, AppPorts& ports, AppDevices& devs, std::string* error);

}  // namespace dpusim::vnet
