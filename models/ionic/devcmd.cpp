#include "ionic/devcmd.h"

#include <cstring>

#include "ionic/le_bytes.h"

namespace dpusim::ionic {

const char* ionic_opcode_name(uint8_t op) {
  switch (op) {
    case IONIC_CMD_NOP: return "NOP";
    case IONIC_CMD_IDENTIFY: return "IDENTIFY";
    case IONIC_CMD_INIT: return "INIT";
    case IONIC_CMD_RESET: return "RESET";
    case IONIC_CMD_GETATTR: return "GETATTR";
    case IONIC_CMD_SETATTR: return "SETATTR";
    case IONIC_CMD_PORT_IDENTIFY: return "PORT_IDENTIFY";
    case IONIC_CMD_PORT_INIT: return "PORT_INIT";
    case IONIC_CMD_PORT_RESET: return "PORT_RESET";
    case IONIC_CMD_PORT_GETATTR: return "PORT_GETATTR";
    case IONIC_CMD_PORT_SETATTR: return "PORT_SETATTR";
    case IONIC_CMD_LIF_IDENTIFY: return "LIF_IDENTIFY";
    case IONIC_CMD_LIF_INIT: return "LIF_INIT";
    case IONIC_CMD_LIF_RESET: return "LIF_RESET";
    case IONIC_CMD_LIF_GETATTR: return "LIF_GETATTR";
    case IONIC_CMD_LIF_SETATTR: return "LIF_SETATTR";
    case IONIC_CMD_LIF_SETPHC: return "LIF_SETPHC";
    case IONIC_CMD_RX_MODE_SET: return "RX_MODE_SET";
    case IONIC_CMD_RX_FILTER_ADD: return "RX_FILTER_ADD";
    case IONIC_CMD_RX_FILTER_DEL: return "RX_FILTER_DEL";
    case IONIC_CMD_Q_IDENTIFY: return "Q_IDENTIFY";
    case IONIC_CMD_Q_INIT: return "Q_INIT";
    case IONIC_CMD_Q_CONTROL: return "Q_CONTROL";
    case IONIC_CMD_RDMA_RESET_LIF: return "RDMA_RESET_LIF";
    case IONIC_CMD_RDMA_CREATE_EQ: return "RDMA_CREATE_EQ";
    case IONIC_CMD_RDMA_CREATE_CQ: return "RDMA_CREATE_CQ";
    case IONIC_CMD_RDMA_CREATE_ADMINQ: return "RDMA_CREATE_ADMINQ";
    case IONIC_CMD_VF_GETATTR: return "VF_GETATTR";
    case IONIC_CMD_VF_SETATTR: return "VF_SETATTR";
    case IONIC_CMD_VF_CTRL: return "VF_CTRL";
    case IONIC_CMD_P4_IDENTIFY: return "P4_IDENTIFY";
    case IONIC_CMD_P4_RPC: return "P4_RPC";
    case IONIC_CMD_P4_QUERY: return "P4_QUERY";
    case IONIC_CMD_DISCOVER_CMB: return "DISCOVER_CMB";
    case IONIC_CMD_FW_DOWNLOAD: return "FW_DOWNLOAD";
    case IONIC_CMD_FW_CONTROL: return "FW_CONTROL";
    default: return "UNKNOWN";
  }
}

const char* ionic_status_name(uint8_t status) {
  switch (status) {
    case IONIC_RC_SUCCESS: return "SUCCESS";
    case IONIC_RC_EVERSION: return "EVERSION";
    case IONIC_RC_EOPCODE: return "EOPCODE";
    case IONIC_RC_EIO: return "EIO";
    case IONIC_RC_EPERM: return "EPERM";
    case IONIC_RC_EQID: return "EQID";
    case IONIC_RC_EQTYPE: return "EQTYPE";
    case IONIC_RC_ENOENT: return "ENOENT";
    case IONIC_RC_EINTR: return "EINTR";
    case IONIC_RC_EAGAIN: return "EAGAIN";
    case IONIC_RC_ENOMEM: return "ENOMEM";
    case IONIC_RC_EFAULT: return "EFAULT";
    case IONIC_RC_EBUSY: return "EBUSY";
    case IONIC_RC_EEXIST: return "EEXIST";
    case IONIC_RC_EINVAL: return "EINVAL";
    case IONIC_RC_ENOSPC: return "ENOSPC";
    case IONIC_RC_ERANGE: return "ERANGE";
    case IONIC_RC_BAD_ADDR: return "BAD_ADDR";
    case IONIC_RC_DEV_CMD: return "DEV_CMD";
    case IONIC_RC_ENOSUPP: return "ENOSUPP";
    case IONIC_RC_ERROR: return "ERROR";
    default: return "UNKNOWN";
  }
}

const char* cmd_kind_name(CmdKind kind) {
  switch (kind) {
    case CmdKind::kSuccess: return "success";
    case CmdKind::kUnknown: return "unknown";
    case CmdKind::kIdentify: return "identify";
    case CmdKind::kLifIdentify: return "lif_identify";
    case CmdKind::kLifInit: return "lif_init";
    case CmdKind::kLifReset: return "lif_reset";
    case CmdKind::kLifGetattr: return "lif_getattr";
    case CmdKind::kLifSetattr: return "lif_setattr";
    case CmdKind::kPortInit: return "port_init";
    case CmdKind::kPortIdentify: return "port_identify";
    case CmdKind::kQIdentify: return "q_identify";
    case CmdKind::kQInit: return "q_init";
    case CmdKind::kRdma: return "rdma";
    case CmdKind::kP4: return "p4";
  }
  return "unknown";
}

QInit decode_q_init(const uint8_t* cmd) {
  QInit q;
  q.type = cmd[Q_INIT_TYPE];
  q.ver = cmd[Q_INIT_VER];
  q.index = get_le32(cmd + Q_INIT_INDEX);
  q.pid = get_le16(cmd + Q_INIT_PID);
  q.intr_index = get_le16(cmd + Q_INIT_INTR_INDEX);
  q.flags = get_le16(cmd + Q_INIT_FLAGS);
  q.ring_size = cmd[Q_INIT_RING_SIZE];
  q.ring_base = get_le64(cmd + Q_INIT_RING_BASE);
  q.cq_ring_base = get_le64(cmd + Q_INIT_CQ_RING_BASE);
  q.sg_ring_base = get_le64(cmd + Q_INIT_SG_RING_BASE);
  return q;
}

bool QInit::storable(std::string* reason) const {
  if (type >= IONIC_QTYPE_ETH_MAX) *reason = "queue type " + std::to_string(type) + " is not an Ethernet type (0..4)";
  else if (index >= IONIC_ETH_QCOUNT) *reason = "queue index " + std::to_string(index) + " outside 0..3";
  else if (ring_size >= 16) *reason = "ring_size " + std::to_string(ring_size) + " is not below 16";
  else return true;
  return false;
}

CmdPlan plan_command(const uint8_t* cmd, CmdPath path, bool p4_registered) {
  CmdPlan p;
  p.opcode = cmd[0];
  const bool dev = path == CmdPath::kDevcmd;
  switch (p.opcode) {
    case IONIC_CMD_P4_IDENTIFY:
    case IONIC_CMD_P4_RPC:
    case IONIC_CMD_P4_QUERY:
      p.kind = p4_registered ? CmdKind::kP4 : (dev ? CmdKind::kUnknown : CmdKind::kSuccess);
      return p;
    case IONIC_CMD_RDMA_RESET_LIF:
    case IONIC_CMD_RDMA_CREATE_EQ:
    case IONIC_CMD_RDMA_CREATE_CQ:
    case IONIC_CMD_RDMA_CREATE_ADMINQ:
      p.kind = CmdKind::kRdma;
      return p;
    case IONIC_CMD_Q_INIT:
      p.kind = CmdKind::kQInit;
      p.q = decode_q_init(cmd);
      return p;
    case IONIC_CMD_LIF_GETATTR:
    case IONIC_CMD_LIF_SETATTR:
      p.kind = p.opcode == IONIC_CMD_LIF_GETATTR ? CmdKind::kLifGetattr : CmdKind::kLifSetattr;
      p.attr = cmd[1];
      return p;
    default:
      break;
  }
  // The admin queue handles nothing else: a zeroed completion reads back as success.
  if (!dev) {
    p.kind = CmdKind::kSuccess;
    return p;
  }
  switch (p.opcode) {
    case IONIC_CMD_NOP:
    case IONIC_CMD_INIT:
    case IONIC_CMD_RESET:
    case IONIC_CMD_GETATTR:
    case IONIC_CMD_SETATTR:
    case IONIC_CMD_PORT_RESET:
    case IONIC_CMD_PORT_GETATTR:
    case IONIC_CMD_PORT_SETATTR:
    case IONIC_CMD_Q_CONTROL:
      p.kind = CmdKind::kSuccess;
      break;
    case IONIC_CMD_IDENTIFY:
      p.kind = CmdKind::kIdentify;
      break;
    case IONIC_CMD_PORT_IDENTIFY:
      p.kind = CmdKind::kPortIdentify;
      break;
    case IONIC_CMD_PORT_INIT:
      p.kind = CmdKind::kPortInit;
      p.info_pa = get_le64(cmd + CMD_INFO_PA);
      break;
    case IONIC_CMD_LIF_IDENTIFY:
      p.kind = CmdKind::kLifIdentify;
      break;
    case IONIC_CMD_LIF_INIT:
      p.kind = CmdKind::kLifInit;
      p.lif_index = get_le16(cmd + CMD_LIF_INDEX);
      p.info_pa = get_le64(cmd + CMD_INFO_PA);
      break;
    case IONIC_CMD_LIF_RESET:
      p.kind = CmdKind::kLifReset;
      p.lif_index = get_le16(cmd + CMD_LIF_INDEX);
      break;
    case IONIC_CMD_Q_IDENTIFY:
      p.kind = CmdKind::kQIdentify;
      p.qtype = cmd[Q_IDENTIFY_QTYPE];
      break;
    default:
      p.kind = CmdKind::kUnknown;
  }
  return p;
}

void build_dev_identity(uint8_t* d) {
  std::memset(d, 0, DEV_ID_BYTES);
  d[DEV_ID_VERSION] = 1;
  d[DEV_ID_TYPE] = 0;  // IONIC_DEV_TYPE_ENET
  d[DEV_ID_NPORTS] = 1;
  put_le32(d + DEV_ID_NLIFS, 1);
  put_le32(d + DEV_ID_NINTRS, IONIC_MSIX_MAX_VECTORS);
  put_le32(d + DEV_ID_NDBPGS_PER_LIF, (1u << 15) + 4);  // QP count + 4
  put_le32(d + DEV_ID_INTR_COAL_MULT, 1);
  put_le32(d + DEV_ID_INTR_COAL_DIV, 1);  // ethtool divides by it
  put_le32(d + DEV_ID_EQ_COUNT, 32);
}

void build_lif_identity(uint8_t* d, const std::array<uint8_t, 6>& mac, uint64_t capabilities) {
  std::memset(d, 0, DEV_CMD_DATA_BYTES);
  put_le64(d + LIF_ID_CAPABILITIES, capabilities);
  d[LIF_ID_ETH_VERSION] = 1;
  put_le32(d + LIF_ID_MAX_UCAST_FILTERS, 4);
  put_le32(d + LIF_ID_MAX_MCAST_FILTERS, 32);
  put_le16(d + LIF_ID_RSS_IND_TBL_SZ, 128);
  put_le32(d + LIF_ID_MIN_FRAME_SIZE, 64);
  put_le32(d + LIF_ID_MAX_FRAME_SIZE, 9216);
  std::memcpy(d + LIF_ID_CONFIG_NAME, "ernic0", 7);
  put_le32(d + LIF_ID_CONFIG_MTU, 1500);
  std::memcpy(d + LIF_ID_CONFIG_MAC, mac.data(), 6);
  // queue_count[] by logical qtype: a zero TXQ or RXQ count makes the driver's netdev fail.
  put_le32(d + LIF_ID_CONFIG_QUEUE_COUNT + 4 * IONIC_QTYPE_ADMINQ, 1);
  put_le32(d + LIF_ID_CONFIG_QUEUE_COUNT + 4 * IONIC_QTYPE_NOTIFYQ, 1);
  put_le32(d + LIF_ID_CONFIG_QUEUE_COUNT + 4 * IONIC_QTYPE_RXQ, IONIC_ETH_QCOUNT);
  put_le32(d + LIF_ID_CONFIG_QUEUE_COUNT + 4 * IONIC_QTYPE_TXQ, IONIC_ETH_QCOUNT);
  // The RDMA section: version 1, 16 QP opcodes, 19 admin opcodes; page-table entries, MRs
  // and AHs per LIF; strides; the page sizes; then the hardware qtypes (AQ 5, SQ 6, RQ 7,
  // CQ 8, EQ 9) with their id counts.
  uint8_t* r = d + LIF_ID_RDMA;
  r[0] = 1;
  r[1] = 16;
  r[2] = 19;
  put_le32(r + 4, 1u << 31);
  put_le32(r + 8, 1u << 17);
  put_le32(r + 12, 1u << 15);
  r[16] = 9;   // max_stride
  r[17] = 6;   // cl_stride
  r[18] = 3;   // pte_stride
  r[19] = 6;   // rrq_stride
  r[20] = 6;   // rsq_stride
  r[21] = 8;   // dcqcn_profiles
  r[22] = 3;   // udma_shift
  r[23] = 2;   // rsvd_dimensions
  put_le64(r + 24, 4096);  // page_size_cap
  const struct {
    uint8_t qtype;
    uint32_t count;
  } qtypes[] = {{5, 4}, {6, 1u << 15}, {7, 1u << 15}, {8, 1u << 16}, {9, 32}};
  for (unsigned i = 0; i < 5; ++i) {
    uint8_t* q = r + 32 + 12 * i;
    q[0] = qtypes[i].qtype;
    put_le32(q + 4, qtypes[i].count);
    put_le32(q + 8, 0);
  }
}

void build_q_identity(uint8_t* d, uint8_t qtype) {
  std::memset(d, 0, Q_ID_BYTES);
  d[Q_ID_VERSION] = 0;
  d[Q_ID_SUPPORTED] = 1;
  put_le16(d + Q_ID_DESC_SZ, ETH_DESC_BYTES);
  put_le16(d + Q_ID_COMP_SZ, ETH_COMP_BYTES);
  if (qtype == IONIC_QTYPE_TXQ || qtype == IONIC_QTYPE_RXQ) {
    put_le16(d + Q_ID_SG_DESC_SZ, TXQ_SG_DESC_BYTES);
    put_le16(d + Q_ID_MAX_SG_ELEMS, IONIC_TX_MAX_SG_ELEMS);
    put_le16(d + Q_ID_SG_DESC_STRIDE, IONIC_TX_MAX_SG_ELEMS);
  }
}

std::array<uint8_t, PORT_INFO_PUBLISHED_BYTES> port_info() {
  std::array<uint8_t, PORT_INFO_PUBLISHED_BYTES> i{};
  put_le32(&i[PORT_INFO_CONFIG_SPEED], IONIC_LINK_SPEED_MBPS);
  put_le32(&i[PORT_INFO_CONFIG_MTU], IONIC_PORT_MTU);
  i[PORT_INFO_CONFIG_STATE] = IONIC_PORT_ADMIN_STATE_UP;
  put_le32(&i[PORT_INFO_STATUS_SPEED], IONIC_LINK_SPEED_MBPS);
  i[PORT_INFO_STATUS_STATUS] = uint8_t(IONIC_PORT_OPER_STATUS_UP);
  i[PORT_INFO_XCVR_STATE] = IONIC_XCVR_STATE_INSERTED;
  i[PORT_INFO_XCVR_PHY] = IONIC_PHY_TYPE_COPPER;
  put_le16(&i[PORT_INFO_XCVR_PID], IONIC_XCVR_PID_QSFP_100G_CR4);
  return i;
}

std::array<uint8_t, LIF_STATUS_BYTES> lif_status() {
  std::array<uint8_t, LIF_STATUS_BYTES> s{};
  put_le16(&s[LIF_STATUS_LINK_STATUS], IONIC_PORT_OPER_STATUS_UP);
  put_le32(&s[LIF_STATUS_LINK_SPEED], IONIC_LINK_SPEED_MBPS);
  return s;
}

Doorbell decode_doorbell(uint64_t off, uint64_t v) {
  Doorbell d;
  d.qtype = uint8_t((off % IONIC_DB_PAGE_SIZE) / 8);
  d.pid = uint32_t(off / IONIC_DB_PAGE_SIZE);
  d.p_index = uint16_t(v);
  d.ring = uint8_t(v >> IONIC_DBELL_RING_SHIFT);
  d.qid = uint32_t((v >> IONIC_DBELL_QID_SHIFT) & 0xff) | uint32_t((v >> 32) & 0xffff) << 8;
  return d;
}

}  // namespace dpusim::ionic
