// Names of the verbs vocabulary (verbs.h), as the specs spell them.
#include "dpusim/p4/rdma/verbs.h"

namespace dpusim::p4::rdma {

const char* ionic_op_name(std::uint8_t op) {
  static const char* const names[] = {"SEND",       "SEND_INV",  "SEND_IMM",  "RDMA_READ", "RDMA_WRITE",
                                      "RDMA_WRITE_IMM", "ATOMIC_CS", "ATOMIC_FA", "REG_MR",    "LOCAL_INV"};
  return op < sizeof names / sizeof names[0] ? names[op] : "unknown";
}

const char* wc_status_name(WcStatus status) {
  switch (status) {
    case WcStatus::IBV_WC_SUCCESS: return "IBV_WC_SUCCESS";
    case WcStatus::IBV_WC_LOC_LEN_ERR: return "IBV_WC_LOC_LEN_ERR";
    case WcStatus::IBV_WC_LOC_QP_OP_ERR: return "IBV_WC_LOC_QP_OP_ERR";
    case WcStatus::IBV_WC_LOC_PROT_ERR: return "IBV_WC_LOC_PROT_ERR";
  }
  return "unknown";
}

}  // namespace dpusim::p4::rdma
