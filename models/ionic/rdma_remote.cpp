// The mesh's IONC header (rdma_wire.h), and the requester's operations whose QP points at
// another node: the request, its answer or its timeout (rdma_requester.h; rocm-ernic's
// remote_post, ionic_datapath_poll).
#include <algorithm>
#include <cstring>

#include "dpusim/p4/rdma/verbs.h"
#include "ionic/dma_io.h"
#include "ionic/ionic_events.h"
#include "ionic/le_bytes.h"
#include "ionic/rdma_work.h"

namespace dpusim::ionic {

using namespace p4::rdma;

const char* ionic_wire_op_name(uint8_t op) {
  switch (op) {
    case IONIC_WIRE_SEND: return "SEND";
    case IONIC_WIRE_SEND_IMM: return "SEND_IMM";
    case IONIC_WIRE_SEND_INV: return "SEND_INV";
    case IONIC_WIRE_WRITE: return "WRITE";
    case IONIC_WIRE_WRITE_IMM: return "WRITE_IMM";
    case IONIC_WIRE_READ_REQ: return "READ_REQ";
    case IONIC_WIRE_READ_RESP: return "READ_RESP";
    case IONIC_WIRE_ATOMIC_REQ: return "ATOMIC_REQ";
    case IONIC_WIRE_ATOMIC_RESP: return "ATOMIC_RESP";
    case IONIC_WIRE_ACK: return "ACK";
    default: return "UNKNOWN";
  }
}

std::vector<uint8_t> encode_wire(const WireHdr& h, const uint8_t* payload, size_t len) {
  std::vector<uint8_t> m(IONIC_WIRE_HDR_BYTES + len, 0);
  put_le32(&m[0], IONIC_WIRE_MAGIC);
  m[4] = h.op;
  m[5] = h.atomic_cs;
  put_le32(&m[8], h.src_qp);
  put_le32(&m[12], h.dst_qp);
  put_le32(&m[16], h.req_id);
  put_le32(&m[20], h.rkey);
  put_le32(&m[24], h.length);
  put_be32(&m[28], h.imm);
  put_le32(&m[32], h.status);
  put_le64(&m[36], h.remote_va);
  put_le64(&m[44], h.swap_add);
  put_le64(&m[52], h.compare);
  if (len) std::memcpy(&m[IONIC_WIRE_HDR_BYTES], payload, len);
  return m;
}

bool decode_wire(const uint8_t* m, size_t len, WireHdr* h, std::string* why) {
  if (len < IONIC_WIRE_HDR_BYTES || len > IONIC_WIRE_HDR_BYTES + IONIC_WIRE_MAX_PAYLOAD) {
    *why = "message of " + std::to_string(len) + " bytes outside the header and the largest payload";
    return false;
  }
  if (get_le32(m) != IONIC_WIRE_MAGIC) {
    *why = "bad magic";
    return false;
  }
  h->op = m[4];
  h->atomic_cs = m[5];
  h->src_qp = get_le32(m + 8);
  h->dst_qp = get_le32(m + 12);
  h->req_id = get_le32(m + 16);
  h->rkey = get_le32(m + 20);
  h->length = get_le32(m + 24);
  h->imm = get_be32(m + 28);
  h->status = get_le32(m + 32);
  h->remote_va = get_le64(m + 36);
  h->swap_add = get_le64(m + 44);
  h->compare = get_le64(m + 52);
  return true;
}

// ---- The requester --------------------------------------------------------------------------

void RdmaRequester::post_remote(WorkPtr w) {
  RdmaQp& qp = *live_qp(w->qid, w->gen);  // decide() checked
  const Wqe& q = w->wqe;
  WireHdr h;
  h.src_qp = w->qid;
  h.dst_qp = qp.dest_qp;
  h.imm = q.imm_key;
  const uint8_t* payload = nullptr;
  size_t payload_len = 0;
  auto p = std::make_shared<Pending>();
  p->qp = w->qid;
  p->gen = w->gen;
  p->wqe = q;
  switch (q.op) {
    case IONIC_V1_OP_SEND: h.op = IONIC_WIRE_SEND; break;
    case IONIC_V1_OP_SEND_IMM: h.op = IONIC_WIRE_SEND_IMM; break;
    case IONIC_V1_OP_SEND_INV: h.op = IONIC_WIRE_SEND_INV; break;
    case IONIC_V1_OP_RDMA_WRITE: h.op = IONIC_WIRE_WRITE; break;
    case IONIC_V1_OP_RDMA_WRITE_IMM: h.op = IONIC_WIRE_WRITE_IMM; break;
    case IONIC_V1_OP_RDMA_READ: h.op = IONIC_WIRE_READ_REQ; break;
    case IONIC_V1_OP_ATOMIC_CS:
    case IONIC_V1_OP_ATOMIC_FA: h.op = IONIC_WIRE_ATOMIC_REQ; break;
    default: return finish(w, IONIC_STS_LOCAL_QP_OPER_ERR);
  }
  if (h.op <= IONIC_WIRE_SEND_INV) {
    h.length = uint32_t(w->payload->size());
    payload = w->payload->data();
    payload_len = w->payload->size();
  } else if (h.op == IONIC_WIRE_WRITE || h.op == IONIC_WIRE_WRITE_IMM) {
    h.rkey = q.rkey;
    h.remote_va = q.remote_va;
    h.length = q.length;
    payload = w->payload->data();
    payload_len = q.length;
  } else if (h.op == IONIC_WIRE_READ_REQ) {
    h.rkey = q.rkey;
    h.remote_va = q.remote_va;
    h.length = q.length;
    p->landing = w->landing;  // where the response lands, resolved before the program ran
    p->length = q.length;
  } else {
    h.atomic_cs = q.op == IONIC_V1_OP_ATOMIC_CS;
    h.rkey = q.rkey;
    h.remote_va = q.remote_va;
    h.swap_add = q.swap_add;
    h.compare = q.compare;
    h.length = 8;
    p->landing = w->landing;
    p->length = 8;
  }
  if (pending_.size() >= IONIC_MAX_PENDING || payload_len > IONIC_WIRE_MAX_PAYLOAD) {
    ports_.ctx.event(ports_.path, "rdma_remote_refused").u64("qp", w->qid)
        .str("reason", payload_len > IONIC_WIRE_MAX_PAYLOAD ? "payload over 16 MiB" : "1024 requests pending");
    return finish(w, IONIC_STS_REMOTE_ACC_ERR);
  }
  h.req_id = p->req_id = ++next_req_;
  p->use_msn = qp.rc_like();
  if (p->use_msn) p->msn = ++qp.msn;  // claimed once the request is on its way
  pending_[p->req_id] = p;
  trace_pending = uint32_t(pending_.size());
  ports_.send(qp.dest_node, ionic_wire_op_name(h.op), encode_wire(h, payload, payload_len));
  const uint32_t id = p->req_id;
  ports_.io.after(sc_core::sc_time::from_value(IONIC_PENDING_PS), [this, id] {
    auto it = pending_.find(id);
    if (it == pending_.end()) return;
    ports_.ctx.event(ports_.path, "rdma_remote_timeout").u64("qp", it->second->qp).u64("req", id);
    auto pend = it->second;
    pending_.erase(it);
    trace_pending = uint32_t(pending_.size());
    complete_pending(*pend, IONIC_STS_RETRY_EXCEEDED);
  });
  w->next();  // the send queue goes on; the completion waits for the answer
}

// ---- Answers --------------------------------------------------------------------------------

void RdmaRequester::answer(const WireHdr& h, const Bytes& payload) {
  auto it = pending_.find(h.req_id);
  if (it == pending_.end()) return;  // answered already (a duplicate), or timed out
  auto p = it->second;
  pending_.erase(it);
  trace_pending = uint32_t(pending_.size());
  uint8_t status = uint8_t(h.status);
  if (status == IONIC_STS_OK && h.op != IONIC_WIRE_ACK) {
    const size_t want = std::min<size_t>(p->length, payload.size());
    std::vector<BusRun> runs;
    uint64_t left = want;
    for (const BusRun& r : p->landing) {
      if (!left) break;
      runs.push_back({r.addr, std::min(r.len, left)});
      left -= runs.back().len;
    }
    ports_.io.scatter(runs, payload.data());
    counters_.bytes_moved += want;
    if (want < p->length) status = IONIC_STS_LOCAL_PROT_ERR;
  }
  complete_pending(*p, status);
}

// The completion of a request that went to a peer, when its QP is still the one it left from:
// by MSN for RC/UC, by WQE id when signalled for UD/GSI.
void RdmaRequester::complete_pending(const Pending& p, uint8_t status) {
  const RdmaQp* q = live_qp(p.qp, p.gen);
  if (!q) return;
  ports_.ctx.event(ports_.path, events::rdma_wc).u64("qp", p.qp).str("op", ionic_op_name(p.wqe.op))
      .u64("wqe_id", p.wqe.id).str("status", ionic_wc_status_name(status));
  if (p.use_msn) ports_.cq.post_msn(q->sq_cq, p.qp, p.msn, status);
  else if (p.wqe.signaled()) ports_.cq.post_npg(q->sq_cq, p.qp, p.wqe.id, status);
}

void RdmaRequester::clear() {
  pending_.clear();
  trace_pending = 0;
}

}  // namespace dpusim::ionic
