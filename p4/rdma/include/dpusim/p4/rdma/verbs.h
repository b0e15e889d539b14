// The verbs vocabulary of the ionic device's RDMA path, named as the specs name it:
// - work-request opcodes as the ionic send queue carries them (`enum ionic_v1_op`, Linux
//   drivers/infiniband/hw/ionic/ionic_fw.h); a P4 program's rdma_metadata.opcode is this byte;
// - memory-region access flags (`enum ib_access_flags`, the low bits an ionic CREATE_MR's
//   dbid_flags carry);
// - work-completion statuses (`enum ibv_wc_status`, rdma-core libibverbs/verbs.h), the values a
//   guest's ibv_poll_cq reports. The ionic device maps them to its own CQE codes
//   (`enum ionic_status`: LOCAL_LEN_ERR 1, LOCAL_QP_OPER_ERR 2, LOCAL_PROT_ERR 3).
#pragma once

#include <cstdint>

namespace dpusim::p4::rdma {

// enum ionic_v1_op
inline constexpr std::uint8_t IONIC_V1_OP_SEND = 0;
inline constexpr std::uint8_t IONIC_V1_OP_SEND_INV = 1;
inline constexpr std::uint8_t IONIC_V1_OP_SEND_IMM = 2;
inline constexpr std::uint8_t IONIC_V1_OP_RDMA_READ = 3;
inline constexpr std::uint8_t IONIC_V1_OP_RDMA_WRITE = 4;
inline constexpr std::uint8_t IONIC_V1_OP_RDMA_WRITE_IMM = 5;
inline constexpr std::uint8_t IONIC_V1_OP_ATOMIC_CS = 6;
inline constexpr std::uint8_t IONIC_V1_OP_ATOMIC_FA = 7;
inline constexpr std::uint8_t IONIC_V1_OP_REG_MR = 8;
inline constexpr std::uint8_t IONIC_V1_OP_LOCAL_INV = 9;
// "RDMA_WRITE", ... or "unknown".
const char* ionic_op_name(std::uint8_t op);

// enum ib_access_flags
inline constexpr std::uint32_t IB_ACCESS_LOCAL_WRITE = 1u << 0;
inline constexpr std::uint32_t IB_ACCESS_REMOTE_WRITE = 1u << 1;
inline constexpr std::uint32_t IB_ACCESS_REMOTE_READ = 1u << 2;
inline constexpr std::uint32_t IB_ACCESS_REMOTE_ATOMIC = 1u << 3;
inline constexpr std::uint32_t IB_ACCESS_MW_BIND = 1u << 4;

// enum ibv_wc_status (the values the RDMA path's decisions carry).
enum class WcStatus : std::uint8_t {
  IBV_WC_SUCCESS = 0,
  IBV_WC_LOC_LEN_ERR = 1,
  IBV_WC_LOC_QP_OP_ERR = 2,
  IBV_WC_LOC_PROT_ERR = 4,
};
// "IBV_WC_SUCCESS", "IBV_WC_LOC_LEN_ERR", ...
const char* wc_status_name(WcStatus status);

}  // namespace dpusim::p4::rdma
