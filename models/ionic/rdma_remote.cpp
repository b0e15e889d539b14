// Operations whose QP points at another node: requests and answers on the mesh (rdma_wire.h;
// rocm-ernic's remote_post, dp_handle_wire, ionic_datapath_poll).
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

bool RdmaEngine::remote(const Qp& qp) const {
  return mesh && qp.dest_valid && qp.dest_node != UINT32_MAX && qp.dest_node != node;
}

// ---- The requester --------------------------------------------------------------------------

void RdmaEngine::post_remote(WorkPtr w) {
  Qp& qp = *live_qp(w->qid, w->gen);  // decide() checked
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
    env_.ctx.event(env_.path, "rdma_remote_refused").u64("qp", w->qid)
        .str("reason", payload_len > IONIC_WIRE_MAX_PAYLOAD ? "payload over 16 MiB" : "1024 requests pending");
    return finish(w, IONIC_STS_REMOTE_ACC_ERR);
  }
  h.req_id = p->req_id = ++next_req_;
  p->use_msn = qp.rc_like();
  if (p->use_msn) p->msn = ++qp.msn;  // claimed once the request is on its way
  pending_[p->req_id] = p;
  trace_pending = uint32_t(pending_.size());
  mesh->send(node, qp.dest_node, ionic_wire_op_name(h.op), encode_wire(h, payload, payload_len),
             env_.device.dma().local_offset());
  const uint32_t id = p->req_id;
  env_.device.after(sc_core::sc_time::from_value(IONIC_PENDING_PS), [this, id] {
    auto it = pending_.find(id);
    if (it == pending_.end()) return;
    env_.ctx.event(env_.path, "rdma_remote_timeout").u64("qp", it->second->qp).u64("req", id);
    auto pend = it->second;
    pending_.erase(it);
    trace_pending = uint32_t(pending_.size());
    const Qp* q = live_qp(pend->qp, pend->gen);
    if (!q) return;
    env_.ctx.event(env_.path, events::rdma_wc).u64("qp", pend->qp).str("op", ionic_op_name(pend->wqe.op))
        .u64("wqe_id", pend->wqe.id).str("status", ionic_wc_status_name(IONIC_STS_RETRY_EXCEEDED));
    if (pend->use_msn) cq_.post_msn(q->sq_cq, pend->qp, pend->msn, IONIC_STS_RETRY_EXCEEDED);
    else if (pend->wqe.signaled()) cq_.post_npg(q->sq_cq, pend->qp, pend->wqe.id, IONIC_STS_RETRY_EXCEEDED);
  });
  w->next();  // the send queue goes on; the completion waits for the answer
}

// ---- Messages in ----------------------------------------------------------------------------

void RdmaEngine::mesh_arrived(unsigned src, std::vector<uint8_t> bytes) { handle_message(src, bytes); }

void RdmaEngine::handle_message(unsigned src, const Bytes& msg) {
  WireHdr h;
  std::string why;
  if (!decode_wire(msg.data(), msg.size(), &h, &why)) {
    env_.ctx.event(env_.path, "rdma_mesh_dropped").str("reason", why);
    return;
  }
  auto payload = std::make_shared<Bytes>(msg.begin() + IONIC_WIRE_HDR_BYTES, msg.end());
  if (h.op == IONIC_WIRE_ACK || h.op == IONIC_WIRE_READ_RESP || h.op == IONIC_WIRE_ATOMIC_RESP) {
    auto it = pending_.find(h.req_id);
    if (it == pending_.end()) return;  // answered already (a duplicate), or timed out
    auto p = it->second;
    pending_.erase(it);
    trace_pending = uint32_t(pending_.size());
    uint8_t status = uint8_t(h.status);
    if (status == IONIC_STS_OK && h.op != IONIC_WIRE_ACK) {
      const size_t want = std::min<size_t>(p->length, payload->size());
      std::vector<BusRun> runs;
      uint64_t left = want;
      for (const BusRun& r : p->landing) {
        if (!left) break;
        runs.push_back({r.addr, std::min(r.len, left)});
        left -= runs.back().len;
      }
      dma_scatter(env_.device.dma(), runs, payload->data());
      counters_.bytes_moved += want;
      if (want < p->length) status = IONIC_STS_LOCAL_PROT_ERR;
    }
    const Qp* q = live_qp(p->qp, p->gen);
    if (!q) return;
    env_.ctx.event(env_.path, events::rdma_wc).u64("qp", p->qp).str("op", ionic_op_name(p->wqe.op)).u64("wqe_id", p->wqe.id)
        .str("status", ionic_wc_status_name(status));
    if (p->use_msn) cq_.post_msn(q->sq_cq, p->qp, p->msn, status);
    else if (p->wqe.signaled()) cq_.post_npg(q->sq_cq, p->qp, p->wqe.id, status);  // UD/GSI: only if SIG
    return;
  }
  auto in = std::make_shared<Inbound>();
  in->src = src;
  in->hdr = h;
  in->payload = payload;
  in->first_try_ps = env_.ctx.local_ps();
  auto q = res_.qps.find(h.dst_qp);
  if (q == res_.qps.end()) return handle_request(src, in, false);  // names only an rkey: no QP order to keep
  // Requests for one QP are served in arrival order; a held SEND holds the ones behind it.
  q->second.inbound.push_back(in);
  if (!q->second.inbound_busy) retry_waiting(h.dst_qp);
}

void RdmaEngine::retry_waiting(uint32_t qid) {
  auto q = res_.qps.find(qid);
  if (q == res_.qps.end() || q->second.inbound.empty() || q->second.inbound_busy) return;
  q->second.inbound_busy = true;
  auto in = q->second.inbound.front();
  handle_request(in->src, in, false);
}

void RdmaEngine::reply(unsigned dst, const uint8_t* req_hdr, uint8_t op, uint8_t status, const Bytes& payload) {
  WireHdr req, r;
  std::string why;
  decode_wire(req_hdr, IONIC_WIRE_HDR_BYTES, &req, &why);
  r.op = op;
  r.src_qp = req.dst_qp;
  r.dst_qp = req.src_qp;
  r.req_id = req.req_id;
  r.status = status;
  r.length = uint32_t(payload.size());
  mesh->send(node, dst, ionic_wire_op_name(op), encode_wire(r, payload.data(), payload.size()), env_.device.dma().local_offset());
}

void RdmaEngine::handle_request(unsigned src, std::shared_ptr<Inbound> in, bool last_chance) {
  const WireHdr& h = in->hdr;
  const Bytes hdr = encode_wire(h, nullptr, 0);
  // Done with this request: answer, then serve the next one queued for the same QP.
  auto answer = [this, src, in, hdr](uint8_t op, uint8_t status, const Bytes& data) {
    reply(src, hdr.data(), op, status, data);
    auto q = res_.qps.find(in->hdr.dst_qp);
    if (q == res_.qps.end() || q->second.inbound.empty() || q->second.inbound.front() != in) return;
    q->second.inbound.pop_front();
    q->second.inbound_busy = false;
    retry_waiting(in->hdr.dst_qp);
  };
  const uint8_t resp_op = h.op == IONIC_WIRE_READ_REQ ? IONIC_WIRE_READ_RESP
                          : h.op == IONIC_WIRE_ATOMIC_REQ ? IONIC_WIRE_ATOMIC_RESP : IONIC_WIRE_ACK;
  const bool needs_rkey = h.op >= IONIC_WIRE_WRITE && h.op != IONIC_WIRE_READ_RESP && h.op != IONIC_WIRE_ATOMIC_RESP;
  if (needs_rkey && h.rkey == IONIC_DMA_LKEY) {
    // A peer may name only registered memory: key 0's bus addresses are this guest's alone.
    env_.ctx.event(env_.path, "rdma_remote_denied").u64("src", src).str("reason", "rkey 0");
    return answer(resp_op, IONIC_STS_REMOTE_ACC_ERR, {});
  }
  switch (h.op) {
    case IONIC_WIRE_SEND:
    case IONIC_WIRE_SEND_IMM:
    case IONIC_WIRE_SEND_INV: {
      if (!res_.qps.count(h.dst_qp)) return answer(IONIC_WIRE_ACK, IONIC_STS_REMOTE_ACC_ERR, {});
      const uint8_t recv_op = h.op == IONIC_WIRE_SEND_IMM ? IONIC_V1_CQE_RECV_OP_SEND_IMM
                              : h.op == IONIC_WIRE_SEND_INV ? IONIC_V1_CQE_RECV_OP_SEND_INV : IONIC_V1_CQE_RECV_OP_SEND;
      const uint32_t len = uint32_t(std::min<size_t>(h.length, in->payload->size()));
      auto payload = std::make_shared<Bytes>(in->payload->begin(), in->payload->begin() + len);
      return deliver_recv(h.dst_qp, h.src_qp, payload, len, recv_op, h.imm,
                          [this, in, answer, last_chance](bool delivered) {
                            if (delivered) return answer(IONIC_WIRE_ACK, IONIC_STS_OK, {});
                            if (last_chance) {
                              env_.ctx.event(env_.path, "rdma_rnr").u64("qp", in->hdr.dst_qp).str("outcome", "retry exceeded");
                              return answer(IONIC_WIRE_ACK, IONIC_STS_RNR_RETRY_EXCEEDED, {});
                            }
                            // No receive posted: the SEND waits (the RQ doorbell retries it), 5 s at most.
                            auto q = res_.qps.find(in->hdr.dst_qp);
                            if (q != res_.qps.end()) q->second.inbound_busy = false;
                            if (in->started) return;
                            in->started = true;
                            env_.ctx.event(env_.path, "rdma_rnr").u64("qp", in->hdr.dst_qp).str("outcome", "waiting");
                            env_.device.after(sc_core::sc_time::from_value(IONIC_RNR_RETRY_PS), [this, in] {
                              auto q = res_.qps.find(in->hdr.dst_qp);
                              if (q == res_.qps.end() || q->second.inbound.empty() || q->second.inbound.front() != in ||
                                  q->second.inbound_busy)
                                return;
                              q->second.inbound_busy = true;
                              handle_request(in->src, in, true);
                            });
                          });
    }
    case IONIC_WIRE_WRITE:
    case IONIC_WIRE_WRITE_IMM: {
      std::vector<BusRun> runs;
      const uint32_t n = uint32_t(std::min<size_t>(h.length, in->payload->size()));
      if (n < h.length || !res_.mrs.resolve(h.rkey, h.remote_va, n, false, &runs))
        return answer(IONIC_WIRE_ACK, IONIC_STS_REMOTE_ACC_ERR, {});
      dma_scatter(env_.device.dma(), runs, in->payload->data());
      counters_.bytes_moved += n;
      if (h.op == IONIC_WIRE_WRITE_IMM && res_.qps.count(h.dst_qp))
        return deliver_recv(h.dst_qp, h.src_qp, nullptr, n, IONIC_V1_CQE_RECV_OP_RDMA_IMM, h.imm,
                            [answer](bool) { answer(IONIC_WIRE_ACK, IONIC_STS_OK, {}); });
      return answer(IONIC_WIRE_ACK, IONIC_STS_OK, {});
    }
    case IONIC_WIRE_READ_REQ: {
      std::vector<BusRun> runs;
      if (h.length > IONIC_WIRE_MAX_PAYLOAD || !res_.mrs.resolve(h.rkey, h.remote_va, h.length, false, &runs))
        return answer(IONIC_WIRE_READ_RESP, IONIC_STS_REMOTE_ACC_ERR, {});
      return dma_gather(env_.device.dma(), std::move(runs), [this, answer](Bytes data, bool ok) {
        if (!ok) return answer(IONIC_WIRE_READ_RESP, IONIC_STS_REMOTE_ACC_ERR, {});
        counters_.bytes_moved += data.size();
        answer(IONIC_WIRE_READ_RESP, IONIC_STS_OK, data);
      });
    }
    case IONIC_WIRE_ATOMIC_REQ: {
      std::vector<BusRun> runs;
      if (!res_.mrs.resolve(h.rkey, h.remote_va, 8, false, &runs))
        return answer(IONIC_WIRE_ATOMIC_RESP, IONIC_STS_REMOTE_ACC_ERR, {});
      return dma_gather(env_.device.dma(), runs, [this, runs, in, answer](Bytes old, bool ok) {
        if (!ok) return answer(IONIC_WIRE_ATOMIC_RESP, IONIC_STS_REMOTE_ACC_ERR, {});
        const WireHdr& h = in->hdr;
        const uint64_t v = get_le64(old.data());
        const uint64_t nv = h.atomic_cs ? (v == h.compare ? h.swap_add : v) : v + h.swap_add;
        uint8_t out[8];
        put_le64(out, nv);
        dma_scatter(env_.device.dma(), runs, out);
        answer(IONIC_WIRE_ATOMIC_RESP, IONIC_STS_OK, old);
      });
    }
    default:
      env_.ctx.event(env_.path, "rdma_mesh_dropped").u64("src", src).str("reason", "unknown op");
      return answer(IONIC_WIRE_ACK, IONIC_STS_REMOTE_ACC_ERR, {});
  }
}

}  // namespace dpusim::ionic
