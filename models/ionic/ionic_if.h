// The ionic device contract as the guest driver sees it: PCI identity, the BAR0 register
// window, the device-command protocol, opcodes and status codes, queue types and the layouts
// of commands, descriptors and completions. Names are Linux's (drivers/net/ethernet/pensando/
// ionic/ionic_if.h, ionic_regs.h, ionic_dev.h); the values and the BAR layout are those the
// ROCm rocm-ernic emulator presents to a guest running ionic.ko (its ionic_eth_emu.c, which
// cites Linux v7.2.4's ionic_if.h). Offsets are bytes from the start of the named structure.
#pragma once

#include <array>
#include <cstdint>

namespace dpusim::ionic {

// ---- PCI identity (rocm-ernic: the AMD emulated ionic device) ----------------------------
inline constexpr uint16_t PCI_VENDOR_ID_PENSANDO = 0x1dd8;
inline constexpr uint16_t PCI_DEVICE_ID_ERNIC = 0x100a;       // guest driver patched to bind it
inline constexpr uint16_t PCI_SUBSYSTEM_ID_ERNIC = 0x5400;
inline constexpr uint32_t PCI_CLASS_NETWORK_ETHERNET = 0x020000;
inline constexpr unsigned IONIC_MSIX_MAX_VECTORS = 32;

// ---- BARs ----------------------------------------------------------------------------------
inline constexpr uint64_t IONIC_BAR0_SIZE = 0x10000;           // 64 KiB, 64-bit
inline constexpr uint64_t IONIC_BAR0_REGS_SIZE = 0x8000;       // the register window
inline constexpr uint32_t IONIC_BAR0_DEV_INFO_REGS_OFFSET = 0x0000;
inline constexpr uint32_t IONIC_BAR0_DEV_CMD_REGS_OFFSET = 0x0800;
inline constexpr uint32_t IONIC_BAR0_INTR_STATUS_OFFSET = 0x1000;
inline constexpr uint32_t IONIC_BAR0_INTR_CTRL_OFFSET = 0x2000;
inline constexpr uint32_t IONIC_BAR0_MSIX_TABLE_OFFSET = 0x8000;
inline constexpr uint32_t IONIC_BAR0_MSIX_PBA_OFFSET = 0xA000;
inline constexpr unsigned IONIC_BAR_DBELL = 2;                 // PCI BAR2 = the driver's bars[1]
inline constexpr uint64_t IONIC_BAR2_SIZE = 4u << 20;          // 4 MiB of doorbell pages
inline constexpr uint64_t IONIC_DB_PAGE_SIZE = 4096;

// union ionic_dev_info_regs
inline constexpr uint32_t IONIC_DEV_INFO_SIGNATURE = 0x44455649;  // "DEVI"
inline constexpr uint8_t IONIC_DEV_INFO_VERSION = 1;
inline constexpr uint8_t IONIC_FW_STS_F_RUNNING = 0x01;
inline constexpr uint32_t DEV_INFO_SIGNATURE = 0x00;
inline constexpr uint32_t DEV_INFO_VERSION = 0x04;
inline constexpr uint32_t DEV_INFO_ASIC_TYPE = 0x05;
inline constexpr uint32_t DEV_INFO_ASIC_REV = 0x06;
inline constexpr uint32_t DEV_INFO_FW_STATUS = 0x07;
inline constexpr uint32_t DEV_INFO_FW_HEARTBEAT = 0x08;
inline constexpr uint32_t DEV_INFO_FW_VERSION = 0x0c;   // char[32]
inline constexpr uint32_t DEV_INFO_SERIAL_NUM = 0x2c;   // char[32]
inline constexpr uint32_t DEV_INFO_BYTES = 0x800;

// union ionic_dev_cmd_regs (at BAR0 + 0x800)
inline constexpr uint32_t DEV_CMD_DOORBELL = 0x00;
inline constexpr uint32_t DEV_CMD_DONE = 0x04;
inline constexpr uint32_t DEV_CMD_CMD = 0x08;    // union ionic_dev_cmd, 64 B
inline constexpr uint32_t DEV_CMD_COMP = 0x48;   // union ionic_dev_cmd_comp, 16 B
inline constexpr uint32_t DEV_CMD_DATA = 0x88;   // data[478 dwords], ends at 0x800 (BAR0 0x1000)
inline constexpr uint32_t DEV_CMD_DATA_BYTES = 1912;
inline constexpr uint32_t DEV_CMD_REGS_BYTES = 0x800;
inline constexpr uint32_t IONIC_DEV_CMD_DONE = 0x1;

// ---- Commands ------------------------------------------------------------------------------
inline constexpr unsigned IONIC_CMD_BYTES = 64;
inline constexpr unsigned IONIC_COMP_BYTES = 16;

// enum ionic_cmd_opcode
enum : uint8_t {
  IONIC_CMD_NOP = 0,
  IONIC_CMD_IDENTIFY = 1,
  IONIC_CMD_INIT = 2,
  IONIC_CMD_RESET = 3,
  IONIC_CMD_GETATTR = 4,
  IONIC_CMD_SETATTR = 5,
  IONIC_CMD_PORT_IDENTIFY = 10,
  IONIC_CMD_PORT_INIT = 11,
  IONIC_CMD_PORT_RESET = 12,
  IONIC_CMD_PORT_GETATTR = 13,
  IONIC_CMD_PORT_SETATTR = 14,
  IONIC_CMD_LIF_IDENTIFY = 20,
  IONIC_CMD_LIF_INIT = 21,
  IONIC_CMD_LIF_RESET = 22,
  IONIC_CMD_LIF_GETATTR = 23,
  IONIC_CMD_LIF_SETATTR = 24,
  IONIC_CMD_LIF_SETPHC = 25,
  IONIC_CMD_RX_MODE_SET = 30,
  IONIC_CMD_RX_FILTER_ADD = 31,
  IONIC_CMD_RX_FILTER_DEL = 32,
  IONIC_CMD_Q_IDENTIFY = 39,
  IONIC_CMD_Q_INIT = 40,
  IONIC_CMD_Q_CONTROL = 41,
  IONIC_CMD_RDMA_RESET_LIF = 50,
  IONIC_CMD_RDMA_CREATE_EQ = 51,
  IONIC_CMD_RDMA_CREATE_CQ = 52,
  IONIC_CMD_RDMA_CREATE_ADMINQ = 53,
  IONIC_CMD_VF_GETATTR = 60,
  IONIC_CMD_VF_SETATTR = 61,
  IONIC_CMD_VF_CTRL = 62,
  // The P4 control surface (P4 engine guide, "The guest's control surface"): upstream's
  // PDS_FWCTL_CMD_IDENT/_RPC/_QUERY numbers (include/linux/pds/pds_adminq.h).
  IONIC_CMD_P4_IDENTIFY = 70,
  IONIC_CMD_P4_RPC = 71,
  IONIC_CMD_P4_QUERY = 72,
  IONIC_CMD_DISCOVER_CMB = 80,
  IONIC_CMD_FW_DOWNLOAD = 252,
  IONIC_CMD_FW_CONTROL = 253,
};
// "IDENTIFY", "LIF_INIT"... ("UNKNOWN" for an opcode with no name).
const char* ionic_opcode_name(uint8_t opcode);

// enum ionic_status_code
enum : uint8_t {
  IONIC_RC_SUCCESS = 0,
  IONIC_RC_EVERSION = 1,
  IONIC_RC_EOPCODE = 2,
  IONIC_RC_EIO = 3,
  IONIC_RC_EPERM = 4,
  IONIC_RC_EQID = 5,
  IONIC_RC_EQTYPE = 6,
  IONIC_RC_ENOENT = 7,
  IONIC_RC_EINTR = 8,
  IONIC_RC_EAGAIN = 9,
  IONIC_RC_ENOMEM = 10,
  IONIC_RC_EFAULT = 11,
  IONIC_RC_EBUSY = 12,
  IONIC_RC_EEXIST = 13,
  IONIC_RC_EINVAL = 14,
  IONIC_RC_ENOSPC = 15,
  IONIC_RC_ERANGE = 16,
  IONIC_RC_BAD_ADDR = 17,
  IONIC_RC_DEV_CMD = 18,
  IONIC_RC_ENOSUPP = 19,
  IONIC_RC_ERROR = 29,
};
const char* ionic_status_name(uint8_t status);

// Generic completion: u8 status, rsvd, le16 comp_index, data[11], u8 color (bit 7).
inline constexpr uint32_t COMP_STATUS = 0;
inline constexpr uint32_t COMP_INDEX = 2;
inline constexpr uint32_t COMP_COLOR = 15;
inline constexpr uint8_t IONIC_COMP_COLOR_MASK = 0x80;
using Comp = std::array<uint8_t, IONIC_COMP_BYTES>;  // a completion as the device builds it

// struct ionic_lif_init_cmd / ionic_port_init_cmd: info_pa le64 @8.
inline constexpr uint32_t CMD_INFO_PA = 8;
inline constexpr uint32_t CMD_LIF_INDEX = 2;   // le16, most LIF commands
// struct ionic_lif_info: the status block the device writes at info_pa + 256.
inline constexpr uint32_t IONIC_LIF_INFO_STATUS = 256;
inline constexpr uint32_t LIF_STATUS_LINK_STATUS = 10;  // le16
inline constexpr uint32_t LIF_STATUS_LINK_SPEED = 12;   // le32, Mb/s
inline constexpr uint32_t LIF_STATUS_BYTES = 64;
inline constexpr uint16_t IONIC_PORT_OPER_STATUS_UP = 1;
inline constexpr uint32_t IONIC_LINK_SPEED_MBPS = 100000;

// struct ionic_port_info, the part PORT_INIT publishes.
inline constexpr uint32_t PORT_INFO_CONFIG_SPEED = 0;
inline constexpr uint32_t PORT_INFO_CONFIG_MTU = 4;
inline constexpr uint32_t PORT_INFO_CONFIG_STATE = 8;
inline constexpr uint32_t PORT_INFO_STATUS_SPEED = 260;
inline constexpr uint32_t PORT_INFO_STATUS_STATUS = 264;
inline constexpr uint32_t PORT_INFO_XCVR_STATE = 316;
inline constexpr uint32_t PORT_INFO_XCVR_PHY = 317;
inline constexpr uint32_t PORT_INFO_XCVR_PID = 318;
inline constexpr uint32_t PORT_INFO_PUBLISHED_BYTES = 320;
inline constexpr uint8_t IONIC_PORT_ADMIN_STATE_UP = 2;
inline constexpr uint8_t IONIC_XCVR_STATE_INSERTED = 1;
inline constexpr uint8_t IONIC_PHY_TYPE_COPPER = 1;
inline constexpr uint16_t IONIC_XCVR_PID_QSFP_100G_CR4 = 1;
inline constexpr uint32_t IONIC_PORT_MTU = 9000;

// union ionic_dev_identity
inline constexpr uint32_t DEV_ID_VERSION = 0x00;
inline constexpr uint32_t DEV_ID_TYPE = 0x01;
inline constexpr uint32_t DEV_ID_NPORTS = 0x04;
inline constexpr uint32_t DEV_ID_NLIFS = 0x08;
inline constexpr uint32_t DEV_ID_NINTRS = 0x0c;
inline constexpr uint32_t DEV_ID_NDBPGS_PER_LIF = 0x10;
inline constexpr uint32_t DEV_ID_INTR_COAL_MULT = 0x14;
inline constexpr uint32_t DEV_ID_INTR_COAL_DIV = 0x18;
inline constexpr uint32_t DEV_ID_EQ_COUNT = 0x1c;
inline constexpr uint32_t DEV_ID_CAPABILITIES = 0x30;
inline constexpr uint32_t DEV_ID_BYTES = 512;

// union ionic_lif_identity
inline constexpr uint64_t IONIC_LIF_CAP_ETH = 1u << 0;
inline constexpr uint64_t IONIC_LIF_CAP_RDMA = 1u << 1;
// Bit 2 is free in ionic_if.h; the P4 engine guide ("The capability bit") uses it.
inline constexpr uint64_t IONIC_LIF_CAP_P4 = 1u << 2;
inline constexpr uint32_t LIF_ID_CAPABILITIES = 0x000;
inline constexpr uint32_t LIF_ID_ETH_VERSION = 0x008;
inline constexpr uint32_t LIF_ID_MAX_UCAST_FILTERS = 0x00c;
inline constexpr uint32_t LIF_ID_MAX_MCAST_FILTERS = 0x010;
inline constexpr uint32_t LIF_ID_RSS_IND_TBL_SZ = 0x014;
inline constexpr uint32_t LIF_ID_MIN_FRAME_SIZE = 0x016;
inline constexpr uint32_t LIF_ID_MAX_FRAME_SIZE = 0x01a;
inline constexpr uint32_t LIF_ID_CONFIG_NAME = 0x08c;
inline constexpr uint32_t LIF_ID_CONFIG_MTU = 0x09c;
inline constexpr uint32_t LIF_ID_CONFIG_MAC = 0x0a0;
inline constexpr uint32_t LIF_ID_CONFIG_FEATURES = 0x0a8;
inline constexpr uint32_t LIF_ID_CONFIG_QUEUE_COUNT = 0x0b0;  // le32[16] by qtype
inline constexpr uint32_t LIF_ID_RDMA = 392;

// enum ionic_lif_attr
inline constexpr uint8_t IONIC_LIF_ATTR_MAC = 3;
inline constexpr uint32_t LIF_ATTR_VALUE = 4;  // the attribute's value in cmd and comp

// ---- Queues --------------------------------------------------------------------------------
// enum ionic_logical_qtype (the Ethernet queues own doorbell slots 0..4)
enum : uint8_t {
  IONIC_QTYPE_ADMINQ = 0,
  IONIC_QTYPE_NOTIFYQ = 1,
  IONIC_QTYPE_RXQ = 2,
  IONIC_QTYPE_TXQ = 3,
  IONIC_QTYPE_EQ = 4,
  IONIC_QTYPE_ETH_MAX = 5,
};
inline constexpr unsigned IONIC_ETH_QCOUNT = 4;   // queues of each Ethernet type offered

// struct ionic_q_identify_cmd: lif_type le16 @2, type @4, ver @5 in Linux's layout; rocm-ernic
// takes the qtype from byte 3 (the high byte of lif_type), which the device follows
// (docs/fidelity.md). union ionic_q_identity goes into the data area.
inline constexpr uint32_t Q_IDENTIFY_QTYPE = 3;
inline constexpr uint32_t Q_ID_VERSION = 0;
inline constexpr uint32_t Q_ID_SUPPORTED = 1;
inline constexpr uint32_t Q_ID_FEATURES = 8;
inline constexpr uint32_t Q_ID_DESC_SZ = 16;
inline constexpr uint32_t Q_ID_COMP_SZ = 18;
inline constexpr uint32_t Q_ID_SG_DESC_SZ = 20;
inline constexpr uint32_t Q_ID_MAX_SG_ELEMS = 22;
inline constexpr uint32_t Q_ID_SG_DESC_STRIDE = 24;
inline constexpr uint32_t Q_ID_BYTES = 64;

// struct ionic_q_init_cmd
inline constexpr uint32_t Q_INIT_TYPE = 4;
inline constexpr uint32_t Q_INIT_VER = 5;
inline constexpr uint32_t Q_INIT_INDEX = 8;         // le32
inline constexpr uint32_t Q_INIT_PID = 12;          // le16
inline constexpr uint32_t Q_INIT_INTR_INDEX = 14;   // le16
inline constexpr uint32_t Q_INIT_FLAGS = 16;        // le16
inline constexpr uint32_t Q_INIT_COS = 18;
inline constexpr uint32_t Q_INIT_RING_SIZE = 19;    // log2 of the depth
inline constexpr uint32_t Q_INIT_RING_BASE = 20;    // le64
inline constexpr uint32_t Q_INIT_CQ_RING_BASE = 28; // le64
inline constexpr uint32_t Q_INIT_SG_RING_BASE = 36; // le64
inline constexpr uint16_t IONIC_QINIT_F_IRQ = 0x01;
inline constexpr uint16_t IONIC_QINIT_F_ENA = 0x02;
inline constexpr uint16_t IONIC_QINIT_F_SG = 0x04;
// struct ionic_q_init_comp: hw_index le32 @4, hw_type @8.
inline constexpr uint32_t Q_INIT_COMP_HW_INDEX = 4;
inline constexpr uint32_t Q_INIT_COMP_HW_TYPE = 8;

// Descriptor and completion sizes (static_asserts of ionic_dev.h).
inline constexpr uint32_t ADMIN_CMD_BYTES = 64;
inline constexpr uint32_t ADMIN_COMP_BYTES = 16;
inline constexpr uint32_t ETH_DESC_BYTES = 16;
inline constexpr uint32_t ETH_COMP_BYTES = 16;

// struct ionic_txq_desc: le64 cmd = flags[3:0] | opcode[7:4] | nsge[11:8] | addr[63:12];
// le16 len @8 (the whole frame).
inline constexpr unsigned IONIC_TXQ_DESC_NSGE_SHIFT = 8;
inline constexpr unsigned IONIC_TXQ_DESC_ADDR_SHIFT = 12;
inline constexpr uint32_t TXQ_DESC_LEN = 8;
// struct ionic_txq_sg_elem: le64 addr, le16 len, rsvd; 8 per descriptor at sg_ring_base + i × 128.
inline constexpr uint32_t TXQ_SG_ELEM_BYTES = 16;
inline constexpr uint32_t TXQ_SG_ELEM_LEN = 8;
inline constexpr unsigned IONIC_TX_MAX_SG_ELEMS = 8;
inline constexpr uint32_t TXQ_SG_DESC_BYTES = IONIC_TX_MAX_SG_ELEMS * TXQ_SG_ELEM_BYTES;
// The largest frame the device carries (rocm-ernic's IONIC_ETH_NET_MTU_MAX).
inline constexpr uint32_t IONIC_ETH_FRAME_MAX = 9600;

// struct ionic_rxq_desc: opcode @0, len le16 @6 (the buffer's capacity), addr le64 @8.
inline constexpr uint32_t RXQ_DESC_LEN = 6;
inline constexpr uint32_t RXQ_DESC_ADDR = 8;
// struct ionic_rxq_comp: len le16 @12.
inline constexpr uint32_t RXQ_COMP_LEN = 12;

// ---- Doorbells (BAR2): value = qid << 24 | ring << 16 | p_index, at page + 8 × qtype -------
inline constexpr unsigned IONIC_DBELL_QID_SHIFT = 24;
inline constexpr unsigned IONIC_DBELL_RING_SHIFT = 16;

// ---- Interrupt control (BAR0 + 0x2000 + 32 × n): struct ionic_intr ------------------------
inline constexpr uint32_t IONIC_INTR_CTRL_BYTES = 32;
inline constexpr uint32_t INTR_CTRL_COAL_INIT = 0;
inline constexpr uint32_t INTR_CTRL_MASK = 4;
inline constexpr uint32_t INTR_CTRL_CREDITS = 8;
inline constexpr uint32_t INTR_CTRL_MASK_ASSERT = 12;
inline constexpr uint32_t INTR_CTRL_COAL = 16;
inline constexpr uint32_t IONIC_INTR_CRED_COUNT = 0x7fff;
inline constexpr uint32_t IONIC_INTR_CRED_COUNT_SIGNED = 0xffff;
inline constexpr uint32_t IONIC_INTR_CRED_UNMASK = 0x10000;
inline constexpr uint32_t IONIC_INTR_CRED_RESET_COALESCE = 0x20000;

}  // namespace dpusim::ionic
