// Decoders of the guest-written RDMA structures (rdma_fw.h): the RDMA device commands, the
// admin queue's work entries and their bodies, the RoCE header template, and send/receive
// work requests with their scatter-gather lists. Pure functions of the bytes: the device
// (rdma_engine.h) acts on what they return, and the fuzz harnesses (fuzz_ionic_rdma_admin,
// fuzz_ionic_rdma_wqe) hold them to their rules. Every length is bounded by the bytes given;
// a field that lies past them reads as zero, as rocm-ernic's zero-filled buffers do.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "ionic/rdma_fw.h"

namespace dpusim::ionic {

// struct ionic_rdma_queue_cmd
struct RdmaQueueCmd {
  uint8_t opcode = 0;
  uint32_t qid = 0;      // qid_ver [23:0]
  uint8_t version = 0;   // qid_ver [31:24]
  uint32_t cid = 0;      // EQ: its interrupt; CQ: its EQ
  uint16_t dbid = 0;
  uint8_t depth_log2 = 0, stride_log2 = 0;
  uint64_t dma_addr = 0;
};
RdmaQueueCmd decode_rdma_queue_cmd(const uint8_t* cmd);

// A guest buffer: direct (map_count <= 1: dma_addr is the bus address of its first byte) or a
// page table of map_count le64 page addresses at dma_addr.
struct BufDesc {
  uint64_t dma_addr = 0;
  uint32_t map_count = 0;
  uint8_t page_size_log2 = 0;  // 0: 4 KiB
};
struct RingDesc {
  BufDesc buf;
  uint8_t depth_log2 = 0, stride_log2 = 0;
};

// The number of 64-byte strides an admin WQE of body length `len` occupies: ceil((4 + len) /
// 64), at most 4 and never more than the `pending` strides the doorbell announced.
unsigned admin_wqe_strides(uint16_t len, unsigned pending);

struct AdminCreateCq {
  uint32_t eq_id = 0;
  RingDesc ring;
  uint32_t flags = 0;
  uint32_t cq_id = 0;  // id_ver [23:0]
};
struct AdminCreateQp {
  uint32_t pd = 0, priv_flags = 0;
  uint32_t sq_cq_id = 0, rq_cq_id = 0;
  RingDesc sq, rq;
  uint32_t rq_tbl_index_srq_id = 0;
  uint32_t qp_id = 0;  // id_ver [23:0]
  uint8_t type = 0;    // enum ionic_qp_type, type_state [3:0]
};
struct AdminCreateMr {
  uint64_t va = 0, length = 0;
  uint32_t pd = 0;
  uint32_t key = 0;          // the full id_ver: lkey = rkey
  BufDesc buf;
  uint16_t access = 0;       // dbid_flags [11:0]: IB access flags
};
struct AdminModifyQp {
  uint32_t attr_mask = 0;    // be32
  uint16_t access = 0;       // be16
  uint32_t rq_psn = 0, sq_psn = 0, qkey_dest_qpn = 0;
  uint8_t pmtu = 0, retry = 0, rnr = 0, timeout = 0, rsq_depth = 0, rrq_depth = 0;
  uint32_t ah_id_len = 0;    // template length in the top byte
  uint8_t from_state = 0, to_state = 0;
  uint64_t template_dma = 0;
  uint32_t qp_id = 0;
};
struct AdminQueryQp {
  uint64_t hdr_dma = 0, sq_dma = 0, rq_dma = 0;
  uint32_t ah_id = 0, qp_id = 0;
};
struct AdminCreateAh {
  uint64_t hdr_dma = 0;
  uint32_t hdr_len = 0, pd = 0, ah_id = 0;
};
// Each fills *out from a body of `len` bytes; false when the body is shorter than its
// command's minimum (ADMIN_*_LEN).
bool decode_admin_create_cq(const uint8_t* body, uint16_t len, AdminCreateCq* out);
bool decode_admin_create_qp(const uint8_t* body, uint16_t len, AdminCreateQp* out);
bool decode_admin_create_mr(const uint8_t* body, uint16_t len, AdminCreateMr* out);
bool decode_admin_modify_qp(const uint8_t* body, uint16_t len, AdminModifyQp* out);
bool decode_admin_query_qp(const uint8_t* body, uint16_t len, AdminQueryQp* out);
bool decode_admin_create_ah(const uint8_t* body, uint16_t len, AdminCreateAh* out);

// The destination a RoCE header template names (ib_ud_header_pack's output without BTH and
// DETH): Ethernet, an optional 802.1Q tag, then IPv4 (the GID ::ffff:a.b.c.d) or IPv6.
struct RoceDest {
  std::array<uint8_t, 16> dgid{};
  std::array<uint8_t, 6> dmac{};
};
bool parse_roce_template(const uint8_t* hdr, size_t len, RoceDest* out, std::string* why);
// The GID of an IPv4 address (::ffff:a.b.c.d).
std::array<uint8_t, 16> ipv4_gid(uint32_t addr);

struct Sge {
  uint64_t va = 0;
  uint32_t len = 0;
  uint32_t lkey = 0;
};

// A send or receive work request.
struct Wqe {
  uint64_t id = 0;
  uint8_t op = 0;
  uint8_t num_sge_key = 0;
  uint16_t flags = 0;
  uint32_t imm_key = 0;           // imm_data_key, host order (the CQE carries it back as be32)
  uint32_t ah_id = 0, dest_qpn = 0, dest_qkey = 0;
  uint32_t length = 0;            // send and RDMA bodies
  uint64_t remote_va = 0;
  uint32_t rkey = 0;
  uint64_t swap_add = 0, compare = 0;
  Sge atomic_sge;
  uint64_t mr_va = 0, mr_length = 0;
  BufDesc mr_buf;
  std::vector<Sge> sgl;           // at most min(num_sge, (stride - 32) / 16, 32) entries: "at
                                  // most 32, and no more than the stride allows" (rocm-ernic)
  bool signaled() const { return flags & IONIC_V1_FLAG_SIG; }
  bool inline_data() const { return flags & IONIC_V1_FLAG_INL; }
};
// Decodes a work request of `stride` bytes (the bytes read: at most IONIC_V1_WQE_MAX_READ are
// looked at). For an inline send the data is the payload area itself and sgl is left empty.
Wqe decode_wqe(const uint8_t* wqe, uint32_t stride);
uint64_t sgl_total(const std::vector<Sge>& sgl);

}  // namespace dpusim::ionic
