#include "ionic/rdma_decode.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "dpusim/p4/rdma/verbs.h"
#include "ionic/le_bytes.h"

namespace dpusim::ionic {

const char* ionic_admin_op_name(uint8_t op) {
  switch (op) {
    case IONIC_V1_ADMIN_NOOP: return "NOOP";
    case IONIC_V1_ADMIN_CREATE_CQ: return "CREATE_CQ";
    case IONIC_V1_ADMIN_CREATE_QP: return "CREATE_QP";
    case IONIC_V1_ADMIN_CREATE_MR: return "CREATE_MR";
    case IONIC_V1_ADMIN_STATS_HDRS: return "STATS_HDRS";
    case IONIC_V1_ADMIN_STATS_VALS: return "STATS_VALS";
    case IONIC_V1_ADMIN_DESTROY_MR: return "DESTROY_MR";
    case IONIC_V1_ADMIN_RSVD_7: return "RSVD_7";
    case IONIC_V1_ADMIN_DESTROY_CQ: return "DESTROY_CQ";
    case IONIC_V1_ADMIN_MODIFY_QP: return "MODIFY_QP";
    case IONIC_V1_ADMIN_QUERY_QP: return "QUERY_QP";
    case IONIC_V1_ADMIN_DESTROY_QP: return "DESTROY_QP";
    case IONIC_V1_ADMIN_DEBUG: return "DEBUG";
    case IONIC_V1_ADMIN_CREATE_AH: return "CREATE_AH";
    case IONIC_V1_ADMIN_QUERY_AH: return "QUERY_AH";
    case IONIC_V1_ADMIN_MODIFY_DCQCN: return "MODIFY_DCQCN";
    case IONIC_V1_ADMIN_DESTROY_AH: return "DESTROY_AH";
    case IONIC_V1_ADMIN_QP_STATS_HDRS: return "QP_STATS_HDRS";
    case IONIC_V1_ADMIN_QP_STATS_VALS: return "QP_STATS_VALS";
    default: return "UNKNOWN";
  }
}

const char* ionic_wc_status_name(uint8_t status) {
  switch (status) {
    case IONIC_STS_OK: return "OK";
    case IONIC_STS_LOCAL_LEN_ERR: return "LOCAL_LEN_ERR";
    case IONIC_STS_LOCAL_QP_OPER_ERR: return "LOCAL_QP_OPER_ERR";
    case IONIC_STS_LOCAL_PROT_ERR: return "LOCAL_PROT_ERR";
    case IONIC_STS_WQE_FLUSHED_ERR: return "WQE_FLUSHED_ERR";
    case IONIC_STS_LOCAL_ACC_ERR: return "LOCAL_ACC_ERR";
    case IONIC_STS_REMOTE_ACC_ERR: return "REMOTE_ACC_ERR";
    case IONIC_STS_RETRY_EXCEEDED: return "RETRY_EXCEEDED";
    case IONIC_STS_RNR_RETRY_EXCEEDED: return "RNR_RETRY_EXCEEDED";
    default: return "UNKNOWN";
  }
}

RdmaQueueCmd decode_rdma_queue_cmd(const uint8_t* cmd) {
  RdmaQueueCmd c;
  c.opcode = cmd[0];
  const uint32_t qid_ver = get_le32(cmd + RDMA_QUEUE_QID_VER);
  c.qid = qid_ver & 0xffffff;
  c.version = uint8_t(qid_ver >> 24);
  c.cid = get_le32(cmd + RDMA_QUEUE_CID);
  c.dbid = get_le16(cmd + RDMA_QUEUE_DBID);
  c.depth_log2 = cmd[RDMA_QUEUE_DEPTH_LOG2];
  c.stride_log2 = cmd[RDMA_QUEUE_STRIDE_LOG2];
  c.dma_addr = get_le64(cmd + RDMA_QUEUE_DMA_ADDR);
  return c;
}

unsigned admin_wqe_strides(uint16_t len, unsigned pending) {
  const unsigned strides = (ADMIN_WQE_BODY + len + ADMIN_WQE_STRIDE - 1) / ADMIN_WQE_STRIDE;
  return std::min({strides, ADMIN_WQE_MAX_STRIDES, pending});
}

namespace {

uint32_t id24(const uint8_t* p) { return get_le32(p) & 0xffffff; }

}  // namespace

bool decode_admin_create_cq(const uint8_t* b, uint16_t len, AdminCreateCq* o) {
  if (len < ADMIN_CREATE_CQ_LEN) return false;
  o->eq_id = get_le32(b + 0);
  o->ring.depth_log2 = b[4];
  o->ring.stride_log2 = b[5];
  o->ring.buf.page_size_log2 = b[7];
  o->flags = get_le32(b + 8);
  o->cq_id = id24(b + 12);
  o->ring.buf.map_count = get_le32(b + 20);
  o->ring.buf.dma_addr = get_le64(b + 24);
  return true;
}

bool decode_admin_create_qp(const uint8_t* b, uint16_t len, AdminCreateQp* o) {
  if (len < ADMIN_CREATE_QP_LEN) return false;
  o->pd = get_le32(b + 0);
  o->priv_flags = get_be32(b + 4);
  o->sq_cq_id = get_le32(b + 8);
  o->sq.depth_log2 = b[12];
  o->sq.stride_log2 = b[13];
  o->sq.buf.page_size_log2 = b[15];
  o->sq.buf.map_count = get_le32(b + 20);
  o->sq.buf.dma_addr = get_le64(b + 24);
  o->rq_cq_id = get_le32(b + 32);
  o->rq.depth_log2 = b[36];
  o->rq.stride_log2 = b[37];
  o->rq.buf.page_size_log2 = b[39];
  o->rq_tbl_index_srq_id = get_le32(b + 40);
  o->rq.buf.map_count = get_le32(b + 44);
  o->rq.buf.dma_addr = get_le64(b + 48);
  o->qp_id = id24(b + 56);
  // type_state sits at byte 62, past the 60 bytes the command must have: read it when there.
  o->type = len > 62 ? (b[62] & 0x0f) : 0;
  return true;
}

bool decode_admin_create_mr(const uint8_t* b, uint16_t len, AdminCreateMr* o) {
  if (len < ADMIN_CREATE_MR_LEN) return false;
  o->va = get_le64(b + 0);
  o->length = get_le64(b + 8);
  o->pd = get_le32(b + 16);
  o->key = get_le32(b + 20);
  o->buf.map_count = get_le32(b + 28);
  o->buf.dma_addr = get_le64(b + 32);
  o->access = get_le16(b + 40) & 0x0fff;
  o->buf.page_size_log2 = b[44];
  return true;
}

bool decode_admin_modify_qp(const uint8_t* b, uint16_t len, AdminModifyQp* o) {
  if (len < ADMIN_MODIFY_QP_LEN) return false;
  o->attr_mask = get_be32(b + 0);
  o->access = get_be16(b + 6);
  o->rq_psn = get_le32(b + 8);
  o->sq_psn = get_le32(b + 12);
  o->qkey_dest_qpn = get_le32(b + 16);
  o->pmtu = b[24];
  o->retry = b[25];
  o->rnr = b[26];
  o->timeout = b[27];
  o->rsq_depth = b[28];
  o->rrq_depth = b[29];
  o->ah_id_len = get_le32(b + 32);
  o->to_state = b[39] & 0x0f;
  o->from_state = b[39] >> 4;
  o->template_dma = get_le64(b + 48);
  o->qp_id = id24(b + 56);
  return true;
}

bool decode_admin_query_qp(const uint8_t* b, uint16_t len, AdminQueryQp* o) {
  if (len < ADMIN_QUERY_QP_LEN) return false;
  o->hdr_dma = get_le64(b + 0);
  o->sq_dma = get_le64(b + 8);
  o->rq_dma = get_le64(b + 16);
  o->ah_id = get_le32(b + 24);
  o->qp_id = id24(b + 28);
  return true;
}

bool decode_admin_create_ah(const uint8_t* b, uint16_t len, AdminCreateAh* o) {
  if (len < ADMIN_CREATE_AH_LEN) return false;
  o->hdr_dma = get_le64(b + 0);
  o->hdr_len = get_le32(b + 8);
  o->pd = get_le32(b + 12);
  o->ah_id = id24(b + 16);
  return true;
}

std::array<uint8_t, 16> ipv4_gid(uint32_t addr) {
  std::array<uint8_t, 16> g{};
  g[10] = g[11] = 0xff;
  put_be32(&g[12], addr);
  return g;
}

bool parse_roce_template(const uint8_t* hdr, size_t len, RoceDest* out, std::string* why) {
  if (len < 14 || len > 128) {
    *why = "template of " + std::to_string(len) + " bytes outside 14..128";
    return false;
  }
  std::memcpy(out->dmac.data(), hdr, 6);
  size_t off = 12;
  uint16_t type = uint16_t(hdr[off] << 8 | hdr[off + 1]);
  if (type == 0x8100) {  // an 802.1Q tag; the EtherType follows it
    off += 4;
    if (off + 2 > len) {
      *why = "template ends inside its VLAN tag";
      return false;
    }
    type = uint16_t(hdr[off] << 8 | hdr[off + 1]);
  }
  off += 2;
  if (type == 0x0800) {
    if (off + 20 > len) {
      *why = "template ends inside its IPv4 header";
      return false;
    }
    out->dgid = ipv4_gid(get_be32(hdr + off + 16));
    return true;
  }
  if (type == 0x86dd) {
    if (off + 40 > len) {
      *why = "template ends inside its IPv6 header";
      return false;
    }
    std::memcpy(out->dgid.data(), hdr + off + 24, 16);
    return true;
  }
  char b[40];
  std::snprintf(b, sizeof b, "EtherType 0x%04x is not IPv4 or IPv6", type);
  *why = b;
  return false;
}

Wqe decode_wqe(const uint8_t* w, uint32_t stride) {
  Wqe q;
  uint8_t buf[IONIC_V1_WQE_MAX_READ] = {};
  std::memcpy(buf, w, std::min<uint32_t>(stride, sizeof buf));
  q.id = get_le64(buf + WQE_ID);
  q.op = buf[WQE_OP];
  q.num_sge_key = buf[WQE_NUM_SGE_KEY];
  q.flags = get_be16(buf + WQE_FLAGS);
  q.imm_key = get_be32(buf + WQE_IMM_DATA_KEY);
  q.ah_id = get_be32(buf + WQE_SEND_AH_ID);
  q.dest_qpn = get_be32(buf + WQE_SEND_DEST_QPN);
  q.dest_qkey = get_be32(buf + WQE_SEND_DEST_QKEY);
  q.length = get_be32(buf + WQE_LENGTH);
  q.remote_va = uint64_t(get_be32(buf + WQE_RDMA_VA_HI)) << 32 | get_be32(buf + WQE_RDMA_VA_LO);
  q.rkey = get_be32(buf + WQE_RDMA_RKEY);
  q.swap_add = uint64_t(get_be32(buf + WQE_ATOMIC_SWAP_ADD)) << 32 | get_be32(buf + WQE_ATOMIC_SWAP_ADD + 4);
  q.compare = uint64_t(get_be32(buf + WQE_ATOMIC_COMPARE)) << 32 | get_be32(buf + WQE_ATOMIC_COMPARE + 4);
  q.atomic_sge = {get_be64(buf + WQE_ATOMIC_SGE), get_be32(buf + WQE_ATOMIC_SGE + 8),
                  get_be32(buf + WQE_ATOMIC_SGE + 12)};
  q.mr_va = get_be64(buf + WQE_REG_MR_VA);
  q.mr_length = get_be64(buf + WQE_REG_MR_LENGTH);
  q.mr_buf = {get_be64(buf + WQE_REG_MR_DMA_ADDR), get_be32(buf + WQE_REG_MR_MAP_COUNT),
              buf[WQE_REG_MR_PAGE_SIZE_LOG2]};
  if (!q.inline_data() && q.op != p4::rdma::IONIC_V1_OP_REG_MR && q.op != p4::rdma::IONIC_V1_OP_LOCAL_INV) {
    const uint32_t room = std::min<uint32_t>(stride, sizeof buf);
    const unsigned fit = room > WQE_PAYLOAD ? (room - WQE_PAYLOAD) / IONIC_V1_SGE_BYTES : 0;
    const unsigned n = std::min<unsigned>({q.num_sge_key, fit, IONIC_V1_MAX_SGE});
    for (unsigned i = 0; i < n; ++i) {
      const uint8_t* s = buf + WQE_PAYLOAD + i * IONIC_V1_SGE_BYTES;
      q.sgl.push_back({get_be64(s), get_be32(s + 8), get_be32(s + 12)});
    }
  }
  return q;
}

uint64_t sgl_total(const std::vector<Sge>& sgl) {
  uint64_t t = 0;
  for (const Sge& s : sgl) t += s.len;
  return t;
}

}  // namespace dpusim::ionic
