// The wire formats between dpusim and a user-mode Linux kernel (docs/linux.md): the vhost-user
// messages the kernel's virtio_uml driver sends (arch/um/drivers/vhost_user.h and the QEMU
// "Vhost-user Protocol" document), the virt-pci messages it carries on its command and
// interrupt virtqueues (include/uapi/linux/virtio_pcidev.h), and the time-travel messages of
// its external scheduler (include/uapi/linux/um_timetravel.h).
//
// Pure functions over bytes, no SystemC: each parser takes what came off a socket or out of a
// ring and either fills a message or refuses it with a sentence naming the field, the value
// and the limit. The bridge (linux_bridge.h) never looks at raw bytes itself, and the fuzz
// harness (fuzz/fuzz_linux_wire.cpp) drives these functions directly. Every field is read by
// offset, little-endian (UML runs on x86-64: the kernel's "native endian" is little).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace dpusim::host::uml {

// ---- vhost-user ---------------------------------------------------------------------------
inline constexpr uint32_t VHOST_USER_VERSION = 1;
inline constexpr uint32_t VHOST_USER_VERSION_MASK = 0x3;
inline constexpr uint32_t VHOST_USER_FLAG_REPLY = 1u << 2;
inline constexpr uint32_t VHOST_USER_FLAG_NEED_REPLY = 1u << 3;
inline constexpr unsigned VHOST_USER_F_PROTOCOL_FEATURES = 30;
inline constexpr unsigned VIRTIO_F_VERSION_1 = 32;
inline constexpr unsigned VHOST_USER_PROTOCOL_F_REPLY_ACK = 3;
inline constexpr unsigned VHOST_USER_PROTOCOL_F_SLAVE_REQ = 5;
inline constexpr unsigned VHOST_USER_PROTOCOL_F_CONFIG = 9;
inline constexpr unsigned VHOST_USER_PROTOCOL_F_INBAND_NOTIFICATIONS = 14;
inline constexpr uint64_t VHOST_USER_VRING_INDEX_MASK = 0xff;
inline constexpr uint64_t VHOST_USER_VRING_NOFD_MASK = 1u << 8;

enum VhostUserRequest : uint32_t {
  VHOST_USER_GET_FEATURES = 1,
  VHOST_USER_SET_FEATURES = 2,
  VHOST_USER_SET_OWNER = 3,
  VHOST_USER_RESET_OWNER = 4,
  VHOST_USER_SET_MEM_TABLE = 5,
  VHOST_USER_SET_VRING_NUM = 8,
  VHOST_USER_SET_VRING_ADDR = 9,
  VHOST_USER_SET_VRING_BASE = 10,
  VHOST_USER_GET_VRING_BASE = 11,
  VHOST_USER_SET_VRING_KICK = 12,
  VHOST_USER_SET_VRING_CALL = 13,
  VHOST_USER_SET_VRING_ERR = 14,
  VHOST_USER_GET_PROTOCOL_FEATURES = 15,
  VHOST_USER_SET_PROTOCOL_FEATURES = 16,
  VHOST_USER_GET_QUEUE_NUM = 17,
  VHOST_USER_SET_VRING_ENABLE = 18,
  VHOST_USER_SET_SLAVE_REQ_FD = 21,
  VHOST_USER_GET_CONFIG = 24,
  VHOST_USER_SET_CONFIG = 25,
  VHOST_USER_VRING_KICK = 35,
};
// Device-to-driver requests on the channel SET_SLAVE_REQ_FD hands over.
inline constexpr uint32_t VHOST_USER_SLAVE_VRING_CALL = 4;

inline constexpr size_t kVhostUserHeaderBytes = 12;  // request, flags, size: three u32
// The largest payload the bridge accepts: a config space read of 256 bytes plus its header is
// the biggest the kernel sends (vhost_user_get_config); a memory table is 8 + 2 * 32.
inline constexpr size_t kVhostUserMaxPayload = 4096;
inline constexpr unsigned kMaxMemRegions = 8;

struct VhostUserHeader {
  uint32_t request = 0, flags = 0, size = 0;
};

struct MemRegion {
  uint64_t guest_addr = 0, size = 0, user_addr = 0, mmap_offset = 0;
};

// A whole vhost-user message as the bridge acts on it.
struct VhostUserMsg {
  VhostUserHeader hdr;
  uint64_t u64 = 0;                   // GET/SET_FEATURES, SET_VRING_KICK/CALL index word...
  uint32_t index = 0, num = 0;        // vring state (SET_VRING_NUM/BASE/ENABLE, VRING_KICK)
  uint64_t desc = 0, used = 0, avail = 0;  // SET_VRING_ADDR (driver addresses)
  std::vector<MemRegion> regions;     // SET_MEM_TABLE
  uint32_t cfg_offset = 0, cfg_size = 0;  // GET/SET_CONFIG
};

// The header of a message: false, with `error`, for a version other than 1, a REPLY flag on a
// request, or a payload larger than kVhostUserMaxPayload.
bool parse_vhost_user_header(const uint8_t* p, size_t n, VhostUserHeader* out, std::string* error);
// The payload of a request whose header parsed: false, with `error`, when its size does not
// fit its request (a vring state is 8 bytes, an address 40, a memory table 8 + 32 per region
// with 1..kMaxMemRegions regions, a config header 12 + size...). Unknown requests parse (the
// bridge answers them as unsupported).
bool parse_vhost_user_payload(VhostUserMsg* msg, const uint8_t* p, size_t n, std::string* error);
// A reply carrying a u64 (GET_FEATURES, or the REPLY_ACK status): 20 bytes.
std::vector<uint8_t> vhost_user_reply_u64(uint32_t request, uint64_t value);
// A device-to-driver VRING_CALL for queue `index`, asking for a reply.
std::vector<uint8_t> vhost_user_vring_call(uint32_t index);

// ---- virt-pci -------------------------------------------------------------------------------
enum VirtioPcidevOp : uint8_t {
  VIRTIO_PCIDEV_OP_RESERVED = 0,
  VIRTIO_PCIDEV_OP_CFG_READ,
  VIRTIO_PCIDEV_OP_CFG_WRITE,
  VIRTIO_PCIDEV_OP_MMIO_READ,
  VIRTIO_PCIDEV_OP_MMIO_WRITE,
  VIRTIO_PCIDEV_OP_MMIO_MEMSET,
  VIRTIO_PCIDEV_OP_INT,
  VIRTIO_PCIDEV_OP_MSI,
  VIRTIO_PCIDEV_OP_PME,
};
inline constexpr size_t kPcidevHeaderBytes = 16;  // op, bar, reserved u16, size u32, addr u64
// The largest MMIO access the bridge serves in one message (memcpy_toio/fromio of a buffer
// splits nothing, so a driver may ask for a whole descriptor's worth).
inline constexpr uint32_t kPcidevMaxSize = 4096;

struct PcidevMsg {
  uint8_t op = 0, bar = 0;
  uint32_t size = 0;
  uint64_t addr = 0;
  std::vector<uint8_t> data;  // writes: `size` bytes; MEMSET: one byte
};
// A command from the kernel (the device-readable part of a command-queue chain): false, with
// `error`, for a short header, an unknown op, a size of 0 or above kPcidevMaxSize, a config
// access of other than 1, 2, 4 or 8 bytes, a BAR index above 5, or write data shorter than
// `size` (MEMSET: than 1 byte).
bool parse_pcidev_msg(const uint8_t* p, size_t n, PcidevMsg* out, std::string* error);
// An MSI message for the interrupt queue: op MSI, size 4, the 32-bit message data.
std::vector<uint8_t> pcidev_msi(uint32_t data);

// ---- time travel ----------------------------------------------------------------------------
enum UmTimetravelOp : uint32_t {
  UM_TIMETRAVEL_ACK = 0,
  UM_TIMETRAVEL_START = 1,
  UM_TIMETRAVEL_REQUEST = 2,
  UM_TIMETRAVEL_WAIT = 3,
  UM_TIMETRAVEL_GET = 4,
  UM_TIMETRAVEL_UPDATE = 5,
  UM_TIMETRAVEL_RUN = 6,
  UM_TIMETRAVEL_FREE_UNTIL = 7,
  UM_TIMETRAVEL_GET_TOD = 8,
  UM_TIMETRAVEL_BROADCAST = 9,
};
inline constexpr size_t kTimetravelMsgBytes = 16;  // op u32, seq u32, time u64

struct TimetravelMsg {
  uint32_t op = 0, seq = 0;
  uint64_t time = 0;
};
bool parse_timetravel(const uint8_t* p, size_t n, TimetravelMsg* out, std::string* error);
std::vector<uint8_t> timetravel_bytes(const TimetravelMsg& m);

// Little-endian accessors shared by the bridge's ring code.
uint16_t le16(const uint8_t* p);
uint32_t le32(const uint8_t* p);
uint64_t le64(const uint8_t* p);
void put_le16(uint8_t* p, uint16_t v);
void put_le32(uint8_t* p, uint32_t v);
void put_le64(uint8_t* p, uint64_t v);

}  // namespace dpusim::host::uml
