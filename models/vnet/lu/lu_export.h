// The live update's device export (vnet_pci_dev_lu.h: the SHM segment /vnet_live_update): what
// the active saves when SIGUSR1 arrives and the standby replays.
//
// Header {state, num_devices, blob_data_offset}, then one fixed-size record per device: magic
// 0x564E4554 ("VNET"), the EP's vhca_id, MAC, MTU, the negotiated features (as the application
// holds them: the low word only under Linux's write order), max and active QPs, queue size,
// the MQ flag, every VQ (number, size, msix, desc, driver, device, enabled) and where its
// offload engine's export blob lies in the blob area after the records. The DOCA guide §7.9's
// hot-plug additions follow the header: the number of populated slots, the slot-presence
// bitmap and the base MAC that per-slot MACs are made from.
//
// Not exported (the reference's list): config_msix_vector, the feature and queue selects, speed,
// duplex and link status, the VirtIO BDF table and enumeration state, hot-plug flags, MSI retry
// state, ACG credits. The binary layout is this model's (little-endian, packed as below); the
// validation is the reference's: size, 1 <= num_devices <= 32, blob bounds, magic.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace dpusim::vnet {

inline constexpr uint32_t VNET_LU_MAGIC = 0x564E4554;  // "VNET"
inline constexpr uint32_t VNET_LU_MAX_DEVICES = 32;
inline constexpr uint32_t VNET_LU_MAX_VQS = 2 * 127 + 1;  // 127 queue pairs and the CVQ

struct LuVqRecord {
  uint16_t number = 0, size = 0, msix = 0;
  bool enabled = false;
  uint64_t desc = 0, driver = 0, device = 0;
};

struct LuDeviceRecord {
  uint32_t magic = VNET_LU_MAGIC;
  uint32_t vhca_id = 0;
  std::array<uint8_t, 6> mac{};
  uint16_t mtu = 0;
  uint64_t features = 0;
  uint16_t max_qps = 0, active_qps = 0, queue_size = 0;
  bool mq = false;
  std::vector<LuVqRecord> vqs;
  std::vector<uint8_t> blob;  // the offload engine's export
};

struct LuExport {
  uint32_t state = 0;
  std::vector<LuDeviceRecord> devices;
  // The DOCA guide's hot-plug additions.
  uint32_t populated_slots = 0, presence_bitmap = 0;
  std::array<uint8_t, 6> base_mac{};
};

// Sizes of the layout.
inline constexpr size_t kLuHeaderBytes = 32;
inline constexpr size_t kLuVqBytes = 32;
inline constexpr size_t kLuDeviceBytes = 48 + VNET_LU_MAX_VQS * kLuVqBytes;

// The vhca_id of endpoint i's representor as the model's firmware numbers them.
inline uint32_t lu_vhca_id(unsigned ep) { return 0x100 + ep; }

std::vector<uint8_t> lu_export_write(const LuExport& e);
// Validates and reads a segment; false with the reason in `error`.
bool lu_export_read(const std::vector<uint8_t>& shm, LuExport& out, std::string* error);

// The offload engine's export blob as the model's firmware writes it: vhca_id, MTU, MAC,
// num_queues, the features it runs with.
struct LuEngineBlob {
  uint32_t vhca_id = 0;
  uint16_t mtu = 0, num_queues = 0;
  std::array<uint8_t, 6> mac{};
  uint64_t features = 0;
};
std::vector<uint8_t> lu_engine_blob_write(const LuEngineBlob& b);
bool lu_engine_blob_read(const std::vector<uint8_t>& bytes, LuEngineBlob& out);

}  // namespace dpusim::vnet
