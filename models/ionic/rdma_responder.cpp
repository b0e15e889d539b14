// The RDMA responder (rdma_responder.h; rocm-ernic's deliver_recv and dp_handle_wire).
#include "ionic/rdma_responder.h"

#include <algorithm>

#include "ionic/ionic_events.h"
#include "ionic/le_bytes.h"
#include "ionic/rdma_work.h"

namespace dpusim::ionic {

void RdmaResponder::deliver_recv(uint32_t dst_qp, uint32_t src_qp, std::shared_ptr<Bytes> payload, uint32_t byte_len,
                                 uint8_t recv_op, uint32_t imm, std::function<void(bool)> done) {
  auto it = ports_.res.qps.find(dst_qp);
  if (it == ports_.res.qps.end() || it->second.rq_cons == it->second.rq_prod) return done(false);
  RdmaQp& dq = it->second;
  const uint32_t stride = std::min<uint32_t>(1u << dq.rq_stride_log2, IONIC_V1_WQE_MAX_READ);
  std::vector<BusRun> runs;
  if (!buf_runs(dq.rq, uint64_t(dq.rq_cons % dq.rq_depth) << dq.rq_stride_log2, stride, &runs)) return done(false);
  ++dq.rq_cons;
  ports_.io.gather(std::move(runs), [this, dst_qp, src_qp, payload, byte_len, recv_op, imm, stride,
                                     done](Bytes raw, bool ok) {
    auto it = ports_.res.qps.find(dst_qp);
    if (!ok || it == ports_.res.qps.end()) return done(false);
    RdmaQp& dq = it->second;
    const Wqe r = decode_wqe(raw.data(), stride);
    uint32_t copied = 0;
    uint8_t fault = IONIC_STS_OK;
    if (recv_op == IONIC_V1_CQE_RECV_OP_RDMA_IMM) {
      copied = byte_len;  // the data already landed through the rkey
    } else {
      for (const Sge& s : r.sgl) {
        const uint32_t n = uint32_t(std::min<uint64_t>(s.len, payload->size() - copied));
        if (n == 0) break;
        std::vector<BusRun> out;
        if (!ports_.res.mrs.resolve(s.lkey, s.va, n, true, &out)) {
          fault = IONIC_STS_LOCAL_PROT_ERR;
          break;
        }
        ports_.io.scatter(out, payload->data() + copied);
        copied += n;
      }
      bytes_moved_ += copied;
    }
    const bool truncated = copied < byte_len;
    const uint8_t status = truncated ? (fault ? fault : uint8_t(IONIC_STS_LOCAL_LEN_ERR)) : uint8_t(IONIC_STS_OK);
    uint8_t body[24] = {};
    put_le64(body + CQE_RECV_WQE_ID, r.id);
    uint32_t qpn_op = uint32_t(recv_op) << IONIC_V1_CQE_RECV_OP_SHIFT | (src_qp & 0xffffff);
    if (dq.ud_like()) {
      // A datagram's completion names a source MAC: 02:00 and the sending QP's id.
      qpn_op |= IONIC_V1_CQE_RECV_IS_IPV4;
      body[CQE_RECV_SRC_MAC] = 0x02;
      put_be32(body + CQE_RECV_SRC_MAC + 2, src_qp);
    }
    put_be32(body + CQE_RECV_SRC_QPN_OP, qpn_op);
    put_be32(body + CQE_RECV_IMM, imm);
    ports_.ctx.event(ports_.path, events::rdma_recv).u64("qp", dst_qp).u64("src_qp", src_qp).u64("len", copied)
        .str("status", ionic_wc_status_name(status));
    ports_.cq.post_cqe(dq.rq_cq, body, truncated ? status : copied, IONIC_V1_CQE_TYPE_RECV, dst_qp, truncated);
    done(true);
  });
}

bool RdmaResponder::ring_rq(uint32_t qid, uint16_t p_index) {
  auto it = ports_.res.qps.find(qid);
  if (it == ports_.res.qps.end()) return false;
  RdmaQp& qp = it->second;
  qp.rq_prod += uint16_t(p_index - uint16_t(qp.rq_prod));
  retry_waiting(qid);
  return true;
}

void RdmaResponder::request(unsigned src, const WireHdr& h, std::shared_ptr<Bytes> payload) {
  auto in = std::make_shared<RdmaInbound>();
  in->src = src;
  in->hdr = h;
  in->payload = std::move(payload);
  in->first_try_ps = ports_.ctx.local_ps();
  auto q = ports_.res.qps.find(h.dst_qp);
  if (q == ports_.res.qps.end()) return serve(src, in, false);  // names only an rkey: no QP order to keep
  // Requests for one QP are served in arrival order; a held SEND holds the ones behind it.
  q->second.inbound.push_back(in);
  if (!q->second.inbound_busy) retry_waiting(h.dst_qp);
}

void RdmaResponder::retry_waiting(uint32_t qid) {
  auto q = ports_.res.qps.find(qid);
  if (q == ports_.res.qps.end() || q->second.inbound.empty() || q->second.inbound_busy) return;
  q->second.inbound_busy = true;
  auto in = q->second.inbound.front();
  serve(in->src, in, false);
}

void RdmaResponder::reply(unsigned dst, const WireHdr& req, uint8_t op, uint8_t status, const Bytes& payload) {
  WireHdr r;
  r.op = op;
  r.src_qp = req.dst_qp;
  r.dst_qp = req.src_qp;
  r.req_id = req.req_id;
  r.status = status;
  r.length = uint32_t(payload.size());
  ports_.send(dst, ionic_wire_op_name(op), encode_wire(r, payload.data(), payload.size()));
}

void RdmaResponder::serve(unsigned src, std::shared_ptr<RdmaInbound> in, bool last_chance) {
  const WireHdr& h = in->hdr;
  // Done with this request: answer, then serve the next one queued for the same QP.
  auto answer = [this, src, in](uint8_t op, uint8_t status, const Bytes& data) {
    reply(src, in->hdr, op, status, data);
    auto q = ports_.res.qps.find(in->hdr.dst_qp);
    if (q == ports_.res.qps.end() || q->second.inbound.empty() || q->second.inbound.front() != in) return;
    q->second.inbound.pop_front();
    q->second.inbound_busy = false;
    retry_waiting(in->hdr.dst_qp);
  };
  const uint8_t resp_op = h.op == IONIC_WIRE_READ_REQ ? IONIC_WIRE_READ_RESP
                          : h.op == IONIC_WIRE_ATOMIC_REQ ? IONIC_WIRE_ATOMIC_RESP : IONIC_WIRE_ACK;
  const bool needs_rkey = h.op >= IONIC_WIRE_WRITE && h.op != IONIC_WIRE_READ_RESP && h.op != IONIC_WIRE_ATOMIC_RESP;
  if (needs_rkey && h.rkey == IONIC_DMA_LKEY) {
    // A peer may name only registered memory: key 0's bus addresses are this guest's alone.
    ports_.ctx.event(ports_.path, "rdma_remote_denied").u64("src", src).str("reason", "rkey 0");
    return answer(resp_op, IONIC_STS_REMOTE_ACC_ERR, {});
  }
  switch (h.op) {
    case IONIC_WIRE_SEND:
    case IONIC_WIRE_SEND_IMM:
    case IONIC_WIRE_SEND_INV:
      return serve_send(in, last_chance, answer);
    case IONIC_WIRE_WRITE:
    case IONIC_WIRE_WRITE_IMM: {
      std::vector<BusRun> runs;
      const uint32_t n = uint32_t(std::min<size_t>(h.length, in->payload->size()));
      if (n < h.length || !ports_.res.mrs.resolve(h.rkey, h.remote_va, n, false, &runs))
        return answer(IONIC_WIRE_ACK, IONIC_STS_REMOTE_ACC_ERR, {});
      ports_.io.scatter(runs, in->payload->data());
      bytes_moved_ += n;
      if (h.op == IONIC_WIRE_WRITE_IMM && ports_.res.qps.count(h.dst_qp))
        return deliver_recv(h.dst_qp, h.src_qp, nullptr, n, IONIC_V1_CQE_RECV_OP_RDMA_IMM, h.imm,
                            [answer](bool) { answer(IONIC_WIRE_ACK, IONIC_STS_OK, {}); });
      return answer(IONIC_WIRE_ACK, IONIC_STS_OK, {});
    }
    case IONIC_WIRE_READ_REQ: {
      std::vector<BusRun> runs;
      if (h.length > IONIC_WIRE_MAX_PAYLOAD || !ports_.res.mrs.resolve(h.rkey, h.remote_va, h.length, false, &runs))
        return answer(IONIC_WIRE_READ_RESP, IONIC_STS_REMOTE_ACC_ERR, {});
      return ports_.io.gather(std::move(runs), [this, answer](Bytes data, bool ok) {
        if (!ok) return answer(IONIC_WIRE_READ_RESP, IONIC_STS_REMOTE_ACC_ERR, {});
        bytes_moved_ += data.size();
        answer(IONIC_WIRE_READ_RESP, IONIC_STS_OK, data);
      });
    }
    case IONIC_WIRE_ATOMIC_REQ: {
      std::vector<BusRun> runs;
      if (!ports_.res.mrs.resolve(h.rkey, h.remote_va, 8, false, &runs))
        return answer(IONIC_WIRE_ATOMIC_RESP, IONIC_STS_REMOTE_ACC_ERR, {});
      return ports_.io.gather(runs, [this, runs, in, answer](Bytes old, bool ok) {
        if (!ok) return answer(IONIC_WIRE_ATOMIC_RESP, IONIC_STS_REMOTE_ACC_ERR, {});
        const WireHdr& h = in->hdr;
        const uint64_t v = get_le64(old.data());
        const uint64_t nv = h.atomic_cs ? (v == h.compare ? h.swap_add : v) : v + h.swap_add;
        uint8_t out[8];
        put_le64(out, nv);
        ports_.io.scatter(runs, out);
        answer(IONIC_WIRE_ATOMIC_RESP, IONIC_STS_OK, old);
      });
    }
    default:
      ports_.ctx.event(ports_.path, "rdma_mesh_dropped").u64("src", src).str("reason", "unknown op");
      return answer(IONIC_WIRE_ACK, IONIC_STS_REMOTE_ACC_ERR, {});
  }
}

// A SEND from a peer: into a posted receive, or held (the RQ doorbell retries it) for up to 5 s.
void RdmaResponder::serve_send(std::shared_ptr<RdmaInbound> in, bool last_chance,
                               std::function<void(uint8_t, uint8_t, const Bytes&)> answer) {
  const WireHdr& h = in->hdr;
  if (!ports_.res.qps.count(h.dst_qp)) return answer(IONIC_WIRE_ACK, IONIC_STS_REMOTE_ACC_ERR, {});
  const uint8_t recv_op = h.op == IONIC_WIRE_SEND_IMM ? IONIC_V1_CQE_RECV_OP_SEND_IMM
                          : h.op == IONIC_WIRE_SEND_INV ? IONIC_V1_CQE_RECV_OP_SEND_INV : IONIC_V1_CQE_RECV_OP_SEND;
  const uint32_t len = uint32_t(std::min<size_t>(h.length, in->payload->size()));
  auto payload = std::make_shared<Bytes>(in->payload->begin(), in->payload->begin() + len);
  deliver_recv(h.dst_qp, h.src_qp, payload, len, recv_op, h.imm, [this, in, answer, last_chance](bool delivered) {
    if (delivered) return answer(IONIC_WIRE_ACK, IONIC_STS_OK, {});
    if (last_chance) {
      ports_.ctx.event(ports_.path, "rdma_rnr").u64("qp", in->hdr.dst_qp).str("outcome", "retry exceeded");
      return answer(IONIC_WIRE_ACK, IONIC_STS_RNR_RETRY_EXCEEDED, {});
    }
    // No receive posted: the SEND waits (the RQ doorbell retries it), 5 s at most.
    auto q = ports_.res.qps.find(in->hdr.dst_qp);
    if (q != ports_.res.qps.end()) q->second.inbound_busy = false;
    if (in->started) return;
    in->started = true;
    ports_.ctx.event(ports_.path, "rdma_rnr").u64("qp", in->hdr.dst_qp).str("outcome", "waiting");
    ports_.io.after(sc_core::sc_time::from_value(IONIC_RNR_RETRY_PS), [this, in] {
      auto q = ports_.res.qps.find(in->hdr.dst_qp);
      if (q == ports_.res.qps.end() || q->second.inbound.empty() || q->second.inbound.front() != in ||
          q->second.inbound_busy)
        return;
      q->second.inbound_busy = true;
      serve(in->src, in, true);
    });
  });
}

}  // namespace dpusim::ionic
