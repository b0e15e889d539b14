// VirtIO 1.2 register layouts and constants, named as Linux include/uapi/linux/virtio_config.h,
// virtio_pci.h, virtio_net.h and virtio_ring.h name them, so a reader holding the spec finds
// each field. Offsets are byte offsets in their structure; every multi-byte field is
// little-endian and is read and written through these offsets, never through a struct.
#pragma once

#include <cstdint>

#include "tlm/bytes.h"

namespace dpusim::virtio {

// Device status (virtio 1.2 §2.1; virtio_config.h).
inline constexpr uint8_t VIRTIO_CONFIG_S_ACKNOWLEDGE = 0x01;
inline constexpr uint8_t VIRTIO_CONFIG_S_DRIVER = 0x02;
inline constexpr uint8_t VIRTIO_CONFIG_S_DRIVER_OK = 0x04;
inline constexpr uint8_t VIRTIO_CONFIG_S_FEATURES_OK = 0x08;
inline constexpr uint8_t VIRTIO_CONFIG_S_NEEDS_RESET = 0x40;
inline constexpr uint8_t VIRTIO_CONFIG_S_FAILED = 0x80;

// Transport feature bits (virtio_config.h).
inline constexpr unsigned VIRTIO_F_VERSION_1 = 32;
inline constexpr unsigned VIRTIO_F_ACCESS_PLATFORM = 33;

// virtio-net feature bits (virtio 1.2 §5.1.3; virtio_net.h).
inline constexpr unsigned VIRTIO_NET_F_CSUM = 0;
inline constexpr unsigned VIRTIO_NET_F_GUEST_CSUM = 1;
inline constexpr unsigned VIRTIO_NET_F_CTRL_GUEST_OFFLOADS = 2;
inline constexpr unsigned VIRTIO_NET_F_MTU = 3;
inline constexpr unsigned VIRTIO_NET_F_MAC = 5;
inline constexpr unsigned VIRTIO_NET_F_GUEST_TSO4 = 7;
inline constexpr unsigned VIRTIO_NET_F_GUEST_TSO6 = 8;
inline constexpr unsigned VIRTIO_NET_F_GUEST_ECN = 9;
inline constexpr unsigned VIRTIO_NET_F_GUEST_UFO = 10;
inline constexpr unsigned VIRTIO_NET_F_HOST_TSO4 = 11;
inline constexpr unsigned VIRTIO_NET_F_HOST_TSO6 = 12;
inline constexpr unsigned VIRTIO_NET_F_HOST_ECN = 13;
inline constexpr unsigned VIRTIO_NET_F_HOST_UFO = 14;
inline constexpr unsigned VIRTIO_NET_F_MRG_RXBUF = 15;
inline constexpr unsigned VIRTIO_NET_F_STATUS = 16;
inline constexpr unsigned VIRTIO_NET_F_CTRL_VQ = 17;
inline constexpr unsigned VIRTIO_NET_F_CTRL_RX = 18;
inline constexpr unsigned VIRTIO_NET_F_CTRL_VLAN = 19;
inline constexpr unsigned VIRTIO_NET_F_MQ = 22;
inline constexpr unsigned VIRTIO_NET_F_HOST_USO = 56;
inline constexpr unsigned VIRTIO_NET_F_SPEED_DUPLEX = 63;

constexpr uint64_t bit(unsigned b) { return uint64_t(1) << b; }

// struct virtio_pci_common_cfg (virtio 1.2 §4.1.4.3), packed.
inline constexpr uint16_t VIRTIO_PCI_COMMON_DFSELECT = 0x00;   // le32 device_feature_select
inline constexpr uint16_t VIRTIO_PCI_COMMON_DF = 0x04;         // le32 device_feature
inline constexpr uint16_t VIRTIO_PCI_COMMON_GFSELECT = 0x08;   // le32 driver_feature_select
inline constexpr uint16_t VIRTIO_PCI_COMMON_GF = 0x0c;         // le32 driver_feature
inline constexpr uint16_t VIRTIO_PCI_COMMON_MSIX = 0x10;       // le16 config_msix_vector
inline constexpr uint16_t VIRTIO_PCI_COMMON_NUMQ = 0x12;       // le16 num_queues
inline constexpr uint16_t VIRTIO_PCI_COMMON_STATUS = 0x14;     // u8 device_status
inline constexpr uint16_t VIRTIO_PCI_COMMON_CFGGENERATION = 0x15;  // u8 config_generation
inline constexpr uint16_t VIRTIO_PCI_COMMON_Q_SELECT = 0x16;   // le16 queue_select
inline constexpr uint16_t VIRTIO_PCI_COMMON_Q_SIZE = 0x18;     // le16 queue_size
inline constexpr uint16_t VIRTIO_PCI_COMMON_Q_MSIX = 0x1a;     // le16 queue_msix_vector
inline constexpr uint16_t VIRTIO_PCI_COMMON_Q_ENABLE = 0x1c;   // le16 queue_enable
inline constexpr uint16_t VIRTIO_PCI_COMMON_Q_NOFF = 0x1e;     // le16 queue_notify_off
inline constexpr uint16_t VIRTIO_PCI_COMMON_Q_DESCLO = 0x20;   // le64 queue_desc
inline constexpr uint16_t VIRTIO_PCI_COMMON_Q_AVAILLO = 0x28;  // le64 queue_driver
inline constexpr uint16_t VIRTIO_PCI_COMMON_Q_USEDLO = 0x30;   // le64 queue_device
inline constexpr uint16_t VIRTIO_PCI_COMMON_Q_NDATA = 0x38;    // le16 queue_notif_config_data
inline constexpr uint16_t VIRTIO_PCI_COMMON_Q_RESET = 0x3a;    // le16 queue_reset
inline constexpr uint16_t VIRTIO_PCI_COMMON_ADM_Q_IDX = 0x3c;  // le16 admin_queue_index
inline constexpr uint16_t VIRTIO_PCI_COMMON_ADM_Q_NUM = 0x3e;  // le16 admin_queue_num
inline constexpr uint16_t VIRTIO_PCI_COMMON_CFG_SIZE = 0x40;
// The per-queue window [Q_SIZE, Q_NDATA) that queue_select switches.
inline constexpr uint16_t VIRTIO_PCI_COMMON_QUEUE_START = VIRTIO_PCI_COMMON_Q_SIZE;
inline constexpr uint16_t VIRTIO_PCI_COMMON_QUEUE_END = VIRTIO_PCI_COMMON_Q_NDATA;
static_assert(VIRTIO_PCI_COMMON_Q_USEDLO + 8 == VIRTIO_PCI_COMMON_Q_NDATA, "queue window abuts notif data");

inline constexpr uint16_t VIRTIO_MSI_NO_VECTOR = 0xffff;

// Vendor capability cfg_type (virtio 1.2 §4.1.4).
inline constexpr uint8_t VIRTIO_PCI_CAP_COMMON_CFG = 1;
inline constexpr uint8_t VIRTIO_PCI_CAP_NOTIFY_CFG = 2;
inline constexpr uint8_t VIRTIO_PCI_CAP_ISR_CFG = 3;
inline constexpr uint8_t VIRTIO_PCI_CAP_DEVICE_CFG = 4;
inline constexpr uint8_t VIRTIO_PCI_CAP_PCI_CFG = 5;

// struct virtio_net_config (virtio 1.2 §5.1.4), packed.
inline constexpr uint16_t VIRTIO_NET_CFG_MAC = 0x00;  // u8[6]
inline constexpr uint16_t VIRTIO_NET_CFG_STATUS = 0x06;  // le16
inline constexpr uint16_t VIRTIO_NET_CFG_MAX_VQ_PAIRS = 0x08;  // le16
inline constexpr uint16_t VIRTIO_NET_CFG_MTU = 0x0a;  // le16
inline constexpr uint16_t VIRTIO_NET_CFG_SPEED = 0x0c;  // le32
inline constexpr uint16_t VIRTIO_NET_CFG_DUPLEX = 0x10;  // u8
inline constexpr uint16_t VIRTIO_NET_CFG_RSS_MAX_KEY_SIZE = 0x11;  // u8
inline constexpr uint16_t VIRTIO_NET_CFG_RSS_MAX_INDIRECTION_TABLE_LENGTH = 0x12;  // le16
inline constexpr uint16_t VIRTIO_NET_CFG_SUPPORTED_HASH_TYPES = 0x14;  // le32
inline constexpr uint16_t VIRTIO_NET_CFG_SIZE = 0x18;
inline constexpr uint16_t VIRTIO_NET_S_LINK_UP = 1;

// struct virtio_net_hdr_v1 (virtio 1.2 §5.1.6), 12 bytes.
inline constexpr uint16_t VIRTIO_NET_HDR_FLAGS = 0;
inline constexpr uint16_t VIRTIO_NET_HDR_GSO_TYPE = 1;
inline constexpr uint16_t VIRTIO_NET_HDR_HDR_LEN = 2;
inline constexpr uint16_t VIRTIO_NET_HDR_GSO_SIZE = 4;
inline constexpr uint16_t VIRTIO_NET_HDR_CSUM_START = 6;
inline constexpr uint16_t VIRTIO_NET_HDR_CSUM_OFFSET = 8;
inline constexpr uint16_t VIRTIO_NET_HDR_NUM_BUFFERS = 10;
inline constexpr uint16_t VIRTIO_NET_HDR_V1_SIZE = 12;
// Its flags and gso_type values (include/uapi/linux/virtio_net.h).
inline constexpr uint8_t VIRTIO_NET_HDR_F_NEEDS_CSUM = 1;
inline constexpr uint8_t VIRTIO_NET_HDR_GSO_NONE = 0;
inline constexpr uint8_t VIRTIO_NET_HDR_GSO_TCPV4 = 1;
inline constexpr uint8_t VIRTIO_NET_HDR_GSO_UDP = 3;
inline constexpr uint8_t VIRTIO_NET_HDR_GSO_TCPV6 = 4;
inline constexpr uint8_t VIRTIO_NET_HDR_GSO_UDP_L4 = 5;
inline constexpr uint8_t VIRTIO_NET_HDR_GSO_ECN = 0x80;

// Control virtqueue (virtio 1.2 §5.1.6.5).
inline constexpr uint8_t VIRTIO_NET_OK = 0;
inline constexpr uint8_t VIRTIO_NET_ERR = 1;
inline constexpr uint8_t VIRTIO_NET_CTRL_RX = 0;
inline constexpr uint8_t VIRTIO_NET_CTRL_MAC = 1;
inline constexpr uint8_t VIRTIO_NET_CTRL_VLAN = 2;
inline constexpr uint8_t VIRTIO_NET_CTRL_ANNOUNCE = 3;
inline constexpr uint8_t VIRTIO_NET_CTRL_MQ = 4;
inline constexpr uint8_t VIRTIO_NET_CTRL_GUEST_OFFLOADS = 5;
inline constexpr uint8_t VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET = 0;
inline constexpr uint8_t VIRTIO_NET_CTRL_MQ_RSS_CONFIG = 1;
inline constexpr uint8_t VIRTIO_NET_CTRL_MQ_HASH_CONFIG = 2;

// Split virtqueue (virtio 1.2 §2.7; virtio_ring.h).
inline constexpr uint16_t VRING_DESC_F_NEXT = 1;
inline constexpr uint16_t VRING_DESC_F_WRITE = 2;
inline constexpr uint16_t VRING_DESC_F_INDIRECT = 4;
inline constexpr uint16_t VRING_AVAIL_F_NO_INTERRUPT = 1;
inline constexpr uint16_t VRING_USED_F_NO_NOTIFY = 1;
// struct vring_desc: le64 addr, le32 len, le16 flags, le16 next.
inline constexpr uint16_t VRING_DESC_ADDR = 0, VRING_DESC_LEN = 8, VRING_DESC_FLAGS = 12, VRING_DESC_NEXT = 14;
inline constexpr uint16_t VRING_DESC_SIZE = 16;
// struct vring_avail: le16 flags, le16 idx, le16 ring[].
inline constexpr uint16_t VRING_AVAIL_FLAGS = 0, VRING_AVAIL_IDX = 2, VRING_AVAIL_RING = 4;
// struct vring_used: le16 flags, le16 idx, {le32 id, le32 len} ring[].
inline constexpr uint16_t VRING_USED_FLAGS = 0, VRING_USED_IDX = 2, VRING_USED_RING = 4;
inline constexpr uint16_t VRING_USED_ELEM_ID = 0, VRING_USED_ELEM_LEN = 4, VRING_USED_ELEM_SIZE = 8;

// Little-endian field access (tlm/bytes.h).
using bytes::get_le16;
using bytes::get_le32;
using bytes::get_le64;
using bytes::put_le16;
using bytes::put_le32;
using bytes::put_le64;

}  // namespace dpusim::virtio
