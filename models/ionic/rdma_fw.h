// The ionic RDMA device contract: the RDMA device commands 50-53 (struct ionic_rdma_queue_cmd,
// Linux drivers/net/ethernet/pensando/ionic/ionic_if.h), and the RDMA admin queue, work
// requests, completions and events of drivers/infiniband/hw/ionic/ionic_fw.h (struct
// ionic_v1_admin_wqe, ionic_v1_wqe, ionic_v1_cqe, ionic_v1_eqe), with the values and layouts
// the rocm-ernic emulator decodes (src/ionic_rdma_devcmd.c, ionic_adminq.c, ionic_datapath.c).
// Multi-byte fields of the RDMA admin commands are little-endian; those of work requests,
// completions and events are big-endian, as ionic_fw.h declares them.
#pragma once

#include <cstdint>

namespace dpusim::ionic {

// ---- Hardware queue types of the RDMA LIF (doorbell slots 5..9) ----------------------------
inline constexpr uint8_t IONIC_RDMA_QTYPE_AQ = 5;
inline constexpr uint8_t IONIC_RDMA_QTYPE_SQ = 6;
inline constexpr uint8_t IONIC_RDMA_QTYPE_RQ = 7;
inline constexpr uint8_t IONIC_RDMA_QTYPE_CQ = 8;
inline constexpr uint8_t IONIC_RDMA_QTYPE_EQ = 9;

// ---- struct ionic_rdma_queue_cmd (devcmds 51-53) -------------------------------------------
inline constexpr uint32_t RDMA_QUEUE_QID_VER = 4;    // le32: qid [23:0], version [31:24]
inline constexpr uint32_t RDMA_QUEUE_CID = 8;        // le32: EQ: the interrupt; CQ: the EQ id
inline constexpr uint32_t RDMA_QUEUE_DBID = 12;      // le16
inline constexpr uint32_t RDMA_QUEUE_DEPTH_LOG2 = 14;
inline constexpr uint32_t RDMA_QUEUE_STRIDE_LOG2 = 15;
inline constexpr uint32_t RDMA_QUEUE_DMA_ADDR = 16;  // le64
inline constexpr unsigned IONIC_RDMA_MAX_EQ = 32;
inline constexpr unsigned IONIC_RDMA_MAX_AQ = 4;
inline constexpr uint8_t IONIC_RDMA_RC_ERROR = 1;    // rocm-ernic's failure status for 51-53

// ---- The RDMA admin queue (struct ionic_v1_admin_wqe) --------------------------------------
inline constexpr uint32_t ADMIN_WQE_STRIDE = 64;
inline constexpr uint32_t ADMIN_WQE_OP = 0;
inline constexpr uint32_t ADMIN_WQE_LEN = 2;          // le16: the body's length
inline constexpr uint32_t ADMIN_WQE_BODY = 4;
inline constexpr unsigned ADMIN_WQE_MAX_STRIDES = 4;

// enum ionic_v1_admin_op
enum : uint8_t {
  IONIC_V1_ADMIN_NOOP = 0,
  IONIC_V1_ADMIN_CREATE_CQ = 1,
  IONIC_V1_ADMIN_CREATE_QP = 2,
  IONIC_V1_ADMIN_CREATE_MR = 3,
  IONIC_V1_ADMIN_STATS_HDRS = 4,
  IONIC_V1_ADMIN_STATS_VALS = 5,
  IONIC_V1_ADMIN_DESTROY_MR = 6,
  IONIC_V1_ADMIN_RSVD_7 = 7,
  IONIC_V1_ADMIN_DESTROY_CQ = 8,
  IONIC_V1_ADMIN_MODIFY_QP = 9,
  IONIC_V1_ADMIN_QUERY_QP = 10,
  IONIC_V1_ADMIN_DESTROY_QP = 11,
  IONIC_V1_ADMIN_DEBUG = 12,
  IONIC_V1_ADMIN_CREATE_AH = 13,
  IONIC_V1_ADMIN_QUERY_AH = 14,
  IONIC_V1_ADMIN_MODIFY_DCQCN = 15,
  IONIC_V1_ADMIN_DESTROY_AH = 16,
  IONIC_V1_ADMIN_QP_STATS_HDRS = 17,
  IONIC_V1_ADMIN_QP_STATS_VALS = 18,
};
const char* ionic_admin_op_name(uint8_t op);

// Body lengths the handlers require (shorter bodies: status 1, or for CREATE_MR success with
// nothing done, as rocm-ernic answers them).
inline constexpr uint16_t ADMIN_CREATE_CQ_LEN = 34;
inline constexpr uint16_t ADMIN_CREATE_QP_LEN = 60;
inline constexpr uint16_t ADMIN_CREATE_MR_LEN = 45;
inline constexpr uint16_t ADMIN_MODIFY_QP_LEN = 60;
inline constexpr uint16_t ADMIN_QUERY_QP_LEN = 34;
inline constexpr uint16_t ADMIN_CREATE_AH_LEN = 24;
inline constexpr uint16_t ADMIN_DESTROY_LEN = 4;

// ---- Completion queue entries (struct ionic_v1_cqe, 32 bytes) ------------------------------
inline constexpr uint32_t IONIC_V1_CQE_BYTES = 32;
inline constexpr uint32_t CQE_ADMIN_CMD_IDX = 0;      // be16
inline constexpr uint32_t CQE_ADMIN_CMD_OP = 2;
inline constexpr uint32_t CQE_RECV_WQE_ID = 0;        // u64, native (little-endian)
inline constexpr uint32_t CQE_RECV_SRC_QPN_OP = 8;    // be32: op << 24 | src_qpn
inline constexpr uint32_t CQE_RECV_SRC_MAC = 12;      // 6 bytes
inline constexpr uint32_t CQE_RECV_IMM = 20;          // be32, as the WQE carried it
inline constexpr uint32_t CQE_SEND_MSN = 4;           // be32
inline constexpr uint32_t CQE_SEND_NPG_WQE_ID = 16;   // u64, native
inline constexpr uint32_t CQE_STATUS_LENGTH = 24;     // be32
inline constexpr uint32_t CQE_QID_TYPE_FLAGS = 28;    // be32
inline constexpr uint32_t IONIC_V1_CQE_COLOR = 1u << 0;
inline constexpr uint32_t IONIC_V1_CQE_ERROR = 1u << 1;
inline constexpr unsigned IONIC_V1_CQE_TYPE_SHIFT = 5;
inline constexpr uint32_t IONIC_V1_CQE_TYPE_ADMIN = 0;
inline constexpr uint32_t IONIC_V1_CQE_TYPE_RECV = 1;
inline constexpr uint32_t IONIC_V1_CQE_TYPE_SEND_MSN = 2;
inline constexpr uint32_t IONIC_V1_CQE_TYPE_SEND_NPG = 3;
inline constexpr unsigned IONIC_V1_CQE_QID_SHIFT = 8;
inline constexpr unsigned IONIC_V1_CQE_RECV_OP_SHIFT = 24;
inline constexpr uint32_t IONIC_V1_CQE_RECV_IS_IPV4 = 1u << 31;
inline constexpr uint8_t IONIC_V1_CQE_RECV_OP_SEND = 0;
inline constexpr uint8_t IONIC_V1_CQE_RECV_OP_SEND_INV = 1;
inline constexpr uint8_t IONIC_V1_CQE_RECV_OP_SEND_IMM = 2;
inline constexpr uint8_t IONIC_V1_CQE_RECV_OP_RDMA_IMM = 3;

// enum ionic_status: the completion statuses.
enum : uint8_t {
  IONIC_STS_OK = 0,
  IONIC_STS_LOCAL_LEN_ERR = 1,
  IONIC_STS_LOCAL_QP_OPER_ERR = 2,
  IONIC_STS_LOCAL_PROT_ERR = 3,
  IONIC_STS_WQE_FLUSHED_ERR = 4,
  IONIC_STS_LOCAL_ACC_ERR = 7,
  IONIC_STS_REMOTE_ACC_ERR = 9,
  IONIC_STS_RETRY_EXCEEDED = 11,
  IONIC_STS_RNR_RETRY_EXCEEDED = 12,
};
// "OK", "LOCAL_LEN_ERR", ... ("UNKNOWN" for another value).
const char* ionic_wc_status_name(uint8_t status);

// ---- Event queue entries (struct ionic_v1_eqe: be32) ---------------------------------------
inline constexpr uint32_t IONIC_V1_EQE_COLOR = 1u << 0;
inline constexpr unsigned IONIC_V1_EQE_TYPE_SHIFT = 1;
inline constexpr unsigned IONIC_V1_EQE_CODE_SHIFT = 4;
inline constexpr unsigned IONIC_V1_EQE_QID_SHIFT = 8;
inline constexpr uint32_t IONIC_V1_EQE_TYPE_CQ = 0;
inline constexpr uint32_t IONIC_V1_EQE_CQ_NOTIFY = 0;

// ---- Work requests (struct ionic_v1_wqe) ---------------------------------------------------
inline constexpr uint32_t WQE_ID = 0;            // u64, native
inline constexpr uint32_t WQE_OP = 8;
inline constexpr uint32_t WQE_NUM_SGE_KEY = 9;
inline constexpr uint32_t WQE_FLAGS = 10;        // be16
inline constexpr uint32_t WQE_IMM_DATA_KEY = 12; // be32
inline constexpr uint32_t WQE_SEND_AH_ID = 16;   // be32
inline constexpr uint32_t WQE_SEND_DEST_QPN = 20;
inline constexpr uint32_t WQE_SEND_DEST_QKEY = 24;
inline constexpr uint32_t WQE_LENGTH = 28;       // be32 (send and RDMA bodies)
inline constexpr uint32_t WQE_RDMA_VA_HI = 16;
inline constexpr uint32_t WQE_RDMA_VA_LO = 20;
inline constexpr uint32_t WQE_RDMA_RKEY = 24;
inline constexpr uint32_t WQE_ATOMIC_SWAP_ADD = 28;  // be32 pair
inline constexpr uint32_t WQE_ATOMIC_COMPARE = 36;   // be32 pair
inline constexpr uint32_t WQE_ATOMIC_SGE = 48;       // one 16-byte SGE
inline constexpr uint32_t WQE_REG_MR_VA = 16;        // be64
inline constexpr uint32_t WQE_REG_MR_LENGTH = 24;    // be64
inline constexpr uint32_t WQE_REG_MR_DMA_ADDR = 40;  // be64
inline constexpr uint32_t WQE_REG_MR_MAP_COUNT = 48; // be32
inline constexpr uint32_t WQE_REG_MR_PAGE_SIZE_LOG2 = 55;
inline constexpr uint32_t WQE_REG_MR_MIN_BYTES = 56;
inline constexpr uint32_t WQE_PAYLOAD = 32;          // SGEs, or inline data
inline constexpr uint32_t IONIC_V1_SGE_BYTES = 16;   // be64 va, be32 len, be32 lkey
inline constexpr unsigned IONIC_V1_MAX_SGE = 32;
// The most of a WQE the device reads: the header and body, then 32 SGEs (a stride of 2^9 holds
// (512 - 32) / 16 = 30 of them, 2^10 and above all 32). The rest of a wider stride is unused.
inline constexpr uint32_t IONIC_V1_WQE_MAX_READ = WQE_PAYLOAD + IONIC_V1_MAX_SGE * IONIC_V1_SGE_BYTES;  // 544
inline constexpr uint16_t IONIC_V1_FLAG_INL = 0x0004;
inline constexpr uint16_t IONIC_V1_FLAG_SIG = 0x0008;
inline constexpr uint32_t IONIC_DMA_LKEY = 0;        // the va is a bus address (local only)

// enum ionic_qp_type, and IB's for the same queues (qpid 1 is always GSI).
inline constexpr uint8_t IONIC_QPT_RC = 0;
inline constexpr uint8_t IONIC_QPT_UC = 1;
inline constexpr uint8_t IONIC_QPT_RD = 2;
inline constexpr uint8_t IONIC_QPT_UD = 3;
inline constexpr uint32_t IONIC_GSI_QPID = 1;

// Limits of rocm-ernic's datapath.
inline constexpr unsigned IONIC_RDMA_MAX_MR = 1024;
inline constexpr uint32_t IONIC_RDMA_MAX_QP = 1u << 15;
inline constexpr uint32_t IONIC_RDMA_MAX_CQ = 1u << 16;
inline constexpr unsigned IONIC_RDMA_MAX_PAGE_SIZE_LOG2 = 30;

// The IB attribute mask bit MODIFY_QP carries for a destination QP.
inline constexpr uint32_t IB_QP_DEST_QPN = 1u << 20;

}  // namespace dpusim::ionic
