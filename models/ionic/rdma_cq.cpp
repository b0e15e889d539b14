// Completion queues: CQEs, arming as a level, and the send-side completion rules
// (rdma_engine.h; rocm-ernic's cq_post, cq_fire_event and process_sq_wqe's tail).
#include <cstring>

#include "dpusim/p4/rdma/verbs.h"
#include "ionic/dma_io.h"
#include "ionic/ionic_events.h"
#include "ionic/le_bytes.h"
#include "ionic/rdma_engine.h"

namespace dpusim::ionic {

void RdmaEngine::post_cqe(uint32_t cq_id, const uint8_t* body24, uint32_t status_len, uint32_t type, uint32_t qid,
                          bool error) {
  auto it = cqs_.find(cq_id);
  if (it == cqs_.end() || !it->second.usable) {
    env_.ctx.event(env_.path, "rdma_cqe_lost").u64("cq", cq_id).u64("qid", qid);
    return;
  }
  Cq& cq = it->second;
  uint8_t cqe[IONIC_V1_CQE_BYTES] = {};
  std::memcpy(cqe, body24, 24);
  put_be32(cqe + CQE_STATUS_LENGTH, status_len);
  put_be32(cqe + CQE_QID_TYPE_FLAGS, (qid & 0xffffff) << IONIC_V1_CQE_QID_SHIFT | type << IONIC_V1_CQE_TYPE_SHIFT |
                                         (error ? IONIC_V1_CQE_ERROR : 0) | (cq.color ? IONIC_V1_CQE_COLOR : 0));
  // The driver polls the colour word: the body goes down first, the last four bytes after it.
  std::vector<BusRun> body, word;
  const uint64_t at = uint64_t(cq.prod % cq.depth) << cq.stride_log2;
  if (!buf_runs(cq.buf, at, IONIC_V1_CQE_BYTES - 4, &body) || !buf_runs(cq.buf, at + IONIC_V1_CQE_BYTES - 4, 4, &word)) {
    env_.ctx.event(env_.path, "rdma_cqe_lost").u64("cq", cq_id).u64("qid", qid).str("reason", "outside the CQ's pages");
    return;
  }
  dma_scatter(env_.device.dma(), body, cqe);
  dma_scatter(env_.device.dma(), word, cqe + IONIC_V1_CQE_BYTES - 4);
  ++counters_.cqes;
  if (++cq.prod % cq.depth == 0) cq.color = !cq.color;
  fire(cq_id, cq);
}

void RdmaEngine::fire(uint32_t cq_id, Cq& cq) {
  // Arming is a level: the event fires once for an armed CQ, which it disarms.
  if (!cq.armed) return;
  cq.armed = false;
  post_eqe(cq.eq_id, cq_id);
}

void RdmaEngine::cq_doorbell(uint32_t qid, uint8_t ring, uint16_t p_index) {
  Cq& cq = cqs_.at(qid);
  if (!cq.usable) return;
  if (ring == 0) {
    cq.cons = p_index % cq.depth;  // only ring 0 carries the consumer index
  } else if (ring == 1 || ring == 2) {
    cq.armed = true;
    if (cq.prod % cq.depth != cq.cons) fire(qid, cq);
  }
}

void RdmaEngine::post_msn(uint32_t cq_id, uint32_t qid, uint32_t msn, uint8_t status) {
  uint8_t body[24] = {};
  put_be32(body + CQE_SEND_MSN, msn);
  post_cqe(cq_id, body, status, IONIC_V1_CQE_TYPE_SEND_MSN, qid, status != IONIC_STS_OK);
}

void RdmaEngine::post_npg(uint32_t cq_id, uint32_t qid, uint64_t wqe_id, uint8_t status) {
  uint8_t body[24] = {};
  put_le64(body + CQE_SEND_NPG_WQE_ID, wqe_id);
  post_cqe(cq_id, body, status, IONIC_V1_CQE_TYPE_SEND_NPG, qid, status != IONIC_STS_OK);
}

void RdmaEngine::post_send_completion(Qp& qp, uint32_t qid, const Wqe& wqe, uint8_t status, bool always) {
  env_.ctx.event(env_.path, events::rdma_wc).u64("qp", qid).str("op", p4::rdma::ionic_op_name(wqe.op))
      .u64("wqe_id", wqe.id).str("status", ionic_wc_status_name(status));
  // "REG_MR and LOCAL_INV: always an NPG CQE" (rocm-ernic), on any QP type.
  if (wqe.op == p4::rdma::IONIC_V1_OP_REG_MR || wqe.op == p4::rdma::IONIC_V1_OP_LOCAL_INV)
    return post_npg(qp.sq_cq, qid, wqe.id, status);
  // RC and UC retire every WQE by a running MSN (from 1), signalled or not, errors included;
  // "UD/GSI: a SEND_NPG CQE only if SIG is set" (rocm-ernic), an error included, unless the
  // request was refused by the P4 program (`always`).
  if (qp.rc_like()) return post_msn(qp.sq_cq, qid, ++qp.msn, status);
  if (wqe.signaled() || always) post_npg(qp.sq_cq, qid, wqe.id, status);
}

}  // namespace dpusim::ionic
