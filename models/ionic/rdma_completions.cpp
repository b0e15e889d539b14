#include "ionic/rdma_completions.h"

#include <cstring>

#include "dpusim/p4/rdma/verbs.h"
#include "ionic/ionic_events.h"
#include "ionic/le_bytes.h"
#include "ionic/rdma_fw.h"

namespace dpusim::ionic {

const char* RdmaCompletions::create_eq(const RdmaQueueCmd& c) {
  if (eqs_.size() >= IONIC_RDMA_MAX_EQ) return "more than 32 EQs";
  eqs_.push_back(Eq{c.qid, c.cid, c.dma_addr, c.depth_log2, c.stride_log2, 0, true});
  return nullptr;
}

void RdmaCompletions::clear() {
  eqs_.clear();
  cqs_.clear();
}

RdmaCompletions::Cq& RdmaCompletions::fresh_cq(uint32_t id) {
  Cq& cq = cqs_[id];
  cq = Cq{};
  return cq;
}

RdmaCompletions::Cq* RdmaCompletions::find_cq(uint32_t id) {
  auto it = cqs_.find(id);
  return it == cqs_.end() ? nullptr : &it->second;
}

RdmaCompletions::Eq* RdmaCompletions::find_eq(uint32_t qid) {
  for (Eq& e : eqs_)
    if (e.qid == qid) return &e;
  return nullptr;
}

void RdmaCompletions::post_cqe(uint32_t cq_id, const uint8_t* body24, uint32_t status_len, uint32_t type, uint32_t qid,
                               bool error) {
  Cq* found = find_cq(cq_id);
  if (!found || !found->usable) {
    ports_.ctx.event(ports_.path, "rdma_cqe_lost").u64("cq", cq_id).u64("qid", qid);
    return;
  }
  Cq& cq = *found;
  uint8_t cqe[IONIC_V1_CQE_BYTES] = {};
  std::memcpy(cqe, body24, 24);
  put_be32(cqe + CQE_STATUS_LENGTH, status_len);
  put_be32(cqe + CQE_QID_TYPE_FLAGS, (qid & 0xffffff) << IONIC_V1_CQE_QID_SHIFT | type << IONIC_V1_CQE_TYPE_SHIFT |
                                         (error ? IONIC_V1_CQE_ERROR : 0) | (cq.color ? IONIC_V1_CQE_COLOR : 0));
  // The driver polls the colour word: the body goes down first, the last four bytes after it.
  std::vector<BusRun> body, word;
  const uint64_t at = uint64_t(cq.prod % cq.depth) << cq.stride_log2;
  if (!buf_runs(cq.buf, at, IONIC_V1_CQE_BYTES - 4, &body) || !buf_runs(cq.buf, at + IONIC_V1_CQE_BYTES - 4, 4, &word)) {
    ports_.ctx.event(ports_.path, "rdma_cqe_lost").u64("cq", cq_id).u64("qid", qid).str("reason", "outside the CQ's pages");
    return;
  }
  ports_.scatter(body, cqe);
  ports_.scatter(word, cqe + IONIC_V1_CQE_BYTES - 4);
  ++cqes_;
  if (++cq.prod % cq.depth == 0) cq.color = !cq.color;
  fire(cq_id, cq);
}

void RdmaCompletions::fire(uint32_t cq_id, Cq& cq) {
  // Arming is a level: the event fires once for an armed CQ, which it disarms.
  if (!cq.armed) return;
  cq.armed = false;
  post_eqe(cq.eq_id, cq_id);
}

bool RdmaCompletions::doorbell(uint32_t qid, uint8_t ring, uint16_t p_index) {
  Cq* cq = find_cq(qid);
  if (!cq) return false;
  if (!cq->usable) return true;
  if (ring == 0) {
    cq->cons = p_index % cq->depth;  // only ring 0 carries the consumer index
  } else if (ring == 1 || ring == 2) {
    cq->armed = true;
    if (cq->prod % cq->depth != cq->cons) fire(qid, *cq);
  }
  return true;
}

void RdmaCompletions::post_msn(uint32_t cq_id, uint32_t qid, uint32_t msn, uint8_t status) {
  uint8_t body[24] = {};
  put_be32(body + CQE_SEND_MSN, msn);
  post_cqe(cq_id, body, status, IONIC_V1_CQE_TYPE_SEND_MSN, qid, status != IONIC_STS_OK);
}

void RdmaCompletions::post_npg(uint32_t cq_id, uint32_t qid, uint64_t wqe_id, uint8_t status) {
  uint8_t body[24] = {};
  put_le64(body + CQE_SEND_NPG_WQE_ID, wqe_id);
  post_cqe(cq_id, body, status, IONIC_V1_CQE_TYPE_SEND_NPG, qid, status != IONIC_STS_OK);
}

void RdmaCompletions::post_send_completion(uint32_t sq_cq, bool rc_like, uint32_t* msn, uint32_t qid, const Wqe& wqe,
                                           uint8_t status, bool always) {
  ports_.ctx.event(ports_.path, events::rdma_wc).u64("qp", qid).str("op", p4::rdma::ionic_op_name(wqe.op))
      .u64("wqe_id", wqe.id).str("status", ionic_wc_status_name(status));
  // "REG_MR and LOCAL_INV: always an NPG CQE" (rocm-ernic), on any QP type.
  if (wqe.op == p4::rdma::IONIC_V1_OP_REG_MR || wqe.op == p4::rdma::IONIC_V1_OP_LOCAL_INV)
    return post_npg(sq_cq, qid, wqe.id, status);
  // RC and UC retire every WQE by a running MSN (from 1), signalled or not, errors included;
  // "UD/GSI: a SEND_NPG CQE only if SIG is set" (rocm-ernic), an error included, unless the
  // request was refused by the P4 program (`always`).
  if (rc_like) return post_msn(sq_cq, qid, ++*msn, status);
  if (wqe.signaled() || always) post_npg(sq_cq, qid, wqe.id, status);
}

void RdmaCompletions::post_eqe(uint32_t eq_id, uint32_t cq_id) {
  Eq* eq = find_eq(eq_id);
  if (!eq) {
    ports_.ctx.event(ports_.path, "rdma_eqe_lost").u64("eq", eq_id).u64("cq", cq_id);
    return;
  }
  const uint32_t depth = 1u << (eq->depth_log2 & 31);
  const uint32_t evt = cq_id << IONIC_V1_EQE_QID_SHIFT | IONIC_V1_EQE_CQ_NOTIFY << IONIC_V1_EQE_CODE_SHIFT |
                       IONIC_V1_EQE_TYPE_CQ << IONIC_V1_EQE_TYPE_SHIFT | (eq->color ? IONIC_V1_EQE_COLOR : 0);
  uint8_t bytes[4];
  put_be32(bytes, evt);
  // The EQE goes down before the interrupt: posted writes stay in order on the link.
  ports_.write(eq->dma + (uint64_t(eq->prod % depth) << (eq->stride_log2 & 31)), bytes, 4);
  ++eqes_;
  if (++eq->prod % depth == 0) eq->color = !eq->color;
  ports_.interrupt(eq->intr);
}

}  // namespace dpusim::ionic
