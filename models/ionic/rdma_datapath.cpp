// Send queues and the operations on this node (rdma_engine.h; rocm-ernic's process_sq_wqe,
// deliver_recv, rdma_xfer and do_atomic). A work request is read by DMA, its local memory
// checked and its source bytes gathered, then the P4 RDMA path (when a program that declares
// rdma_metadata is loaded) decides, then it is dispatched here or to the peer node.
#include <algorithm>
#include <cstring>

#include "dpusim/p4/rdma/verbs.h"
#include "ionic/dma_io.h"
#include "ionic/ionic_events.h"
#include "ionic/ionic_timing.h"
#include "ionic/le_bytes.h"
#include "ionic/rdma_engine.h"
#include "ionic/rdma_p4_memory.h"
#include "ionic/rdma_wire.h"
#include "ionic/rdma_work.h"

namespace dpusim::ionic {

using namespace p4::rdma;

namespace {

bool is_local_op(uint8_t op) { return op == IONIC_V1_OP_REG_MR || op == IONIC_V1_OP_LOCAL_INV; }

bool sends_data(uint8_t op) {
  return op == IONIC_V1_OP_SEND || op == IONIC_V1_OP_SEND_IMM || op == IONIC_V1_OP_SEND_INV ||
         op == IONIC_V1_OP_RDMA_WRITE || op == IONIC_V1_OP_RDMA_WRITE_IMM;
}

uint8_t ionic_status_of(WcStatus s) {
  switch (s) {
    case WcStatus::IBV_WC_SUCCESS: return IONIC_STS_OK;
    case WcStatus::IBV_WC_LOC_LEN_ERR: return IONIC_STS_LOCAL_LEN_ERR;
    case WcStatus::IBV_WC_LOC_QP_OP_ERR: return IONIC_STS_LOCAL_QP_OPER_ERR;
    case WcStatus::IBV_WC_LOC_PROT_ERR: return IONIC_STS_LOCAL_PROT_ERR;
  }
  return IONIC_STS_LOCAL_QP_OPER_ERR;
}

uint8_t recv_op_of(uint8_t op) {
  return op == IONIC_V1_OP_SEND_IMM   ? IONIC_V1_CQE_RECV_OP_SEND_IMM
         : op == IONIC_V1_OP_SEND_INV ? IONIC_V1_CQE_RECV_OP_SEND_INV
                                      : IONIC_V1_CQE_RECV_OP_SEND;
}

}  // namespace

// ---- The send queue -----------------------------------------------------------------------

void RdmaEngine::sq_next(uint32_t qid) {
  auto it = res_.qps.find(qid);
  if (it == res_.qps.end()) return;
  Qp& qp = it->second;
  if (qp.sq_cons % qp.sq_depth == qp.sq_target) {
    // Decided at the device's time (see IonicNic::tx_next).
    if (env_.device.ahead()) return env_.device.at_local_time([this, qid] { sq_next(qid); });
    qp.busy = false;
    return;
  }
  // The chain of this QP's work stops where the QP it started on is gone.
  const uint64_t gen = qp.gen;
  env_.device.after(env_.ctx.ps(timing::rdma_wqe_ps), [this, qid, gen] {
    Qp* q = live_qp(qid, gen);
    if (!q) return;
    Qp& qp = *q;
    // Up to 32 SGEs, as many as the stride holds (rdma_fw.h): never more than that is read.
    const uint32_t stride = std::min<uint32_t>(1u << qp.sq_stride_log2, IONIC_V1_WQE_MAX_READ);
    std::vector<BusRun> runs;
    auto next = [this, qid, gen] {
      Qp* q = live_qp(qid, gen);
      if (!q) return;
      ++q->sq_cons;
      sq_next(qid);
    };
    if (!buf_runs(qp.sq, uint64_t(qp.sq_cons % qp.sq_depth) << qp.sq_stride_log2, stride, &runs)) {
      env_.ctx.event(env_.path, "rdma_wqe_lost").u64("qp", qid).str("reason", "outside the SQ's pages");
      return next();
    }
    const uint64_t wqe_bus = runs[0].addr;
    dma_gather(env_.device.dma(), std::move(runs), [this, qid, gen, stride, wqe_bus, next](Bytes bytes, bool ok) {
      if (!live_qp(qid, gen)) return;
      if (!ok) {
        env_.ctx.event(env_.path, "rdma_wqe_lost").u64("qp", qid).str("reason", "WQE read failed");
        return next();
      }
      execute(qid, gen, decode_wqe(bytes.data(), stride), wqe_bus, next);
    });
  });
}

void RdmaEngine::execute(uint32_t qid, uint64_t gen, const Wqe& wqe, uint64_t wqe_bus, std::function<void()> next) {
  ++counters_.wqes;
  env_.ctx.event(env_.path, events::rdma_wqe).u64("qp", qid).str("op", ionic_op_name(wqe.op)).u64("wqe_id", wqe.id)
      .boolean("signaled", wqe.signaled());
  auto w = std::make_shared<Work>();
  w->qid = qid;
  w->gen = gen;
  w->wqe = wqe;
  w->wqe_bus = wqe_bus;
  w->next = std::move(next);
  if (wqe.inline_data()) w->src.push_back(Sge{wqe_bus + WQE_PAYLOAD, wqe.length, IONIC_DMA_LKEY});
  else w->src = wqe.sgl;
  // No message is larger than the mesh carries, local or not: checked before anything is read.
  const uint64_t size = sends_data(wqe.op) ? sgl_total(w->src) : wqe.op == IONIC_V1_OP_RDMA_READ ? wqe.length : 0;
  if (size > IONIC_WIRE_MAX_PAYLOAD) {
    env_.ctx.event(env_.path, "rdma_wqe_too_long").u64("qp", qid).u64("bytes", size);
    return finish(w, IONIC_STS_LOCAL_LEN_ERR);
  }
  after_checks(w);
}

void RdmaEngine::finish(WorkPtr w, uint8_t status, bool always) {
  if (Qp* qp = live_qp(w->qid, w->gen)) post_send_completion(*qp, w->qid, w->wqe, status, always);
  w->next();
}

// REG_MR and LOCAL_INV, once the program let them through: never on the wire, always completed
// by SQ index.
void RdmaEngine::local_op(WorkPtr w) {
  const Wqe& wqe = w->wqe;
  const Qp& qp = *live_qp(w->qid, w->gen);  // decide() checked
  if (wqe.op == IONIC_V1_OP_LOCAL_INV) {
    res_.mrs.remove(wqe.imm_key);
    cq_.post_npg(qp.sq_cq, w->qid, wqe.id, IONIC_STS_OK);
    return w->next();
  }
  if ((1u << qp.sq_stride_log2) < WQE_REG_MR_MIN_BYTES) {
    env_.ctx.event(env_.path, "rdma_mr_refused").hex("key", wqe.imm_key).str("reason", "REG_MR WQE truncated");
    cq_.post_npg(qp.sq_cq, w->qid, wqe.id, IONIC_STS_OK);
    return w->next();
  }
  res_.mrs.drop_rotations(wqe.imm_key);
  load_buf(io_, wqe.mr_buf, wqe.mr_va, [this, w](bool ok, GuestBuf buf, std::string why) {
    const Wqe& wqe = w->wqe;
    if (ok) res_.mrs.put(MemRegion{wqe.imm_key, wqe.mr_va, wqe.mr_length, 0x0fff, std::move(buf)});
    else env_.ctx.event(env_.path, "rdma_mr_refused").hex("key", wqe.imm_key).str("reason", why);
    if (Qp* q = live_qp(w->qid, w->gen)) cq_.post_npg(q->sq_cq, w->qid, wqe.id, IONIC_STS_OK);
    w->next();
  });
}

// Where a request the program let through goes: the local operations here, the rest to the
// peer node or to this one.
void RdmaEngine::dispatch(WorkPtr w) {
  if (is_local_op(w->wqe.op)) return local_op(w);
  return remote(*live_qp(w->qid, w->gen)) ? post_remote(w) : dispatch_local(w);
}

// The work request's own memory first, so that "a program never sees an operation that is
// already a protection error" (the rocm-ernic P4 engine guide): every local SGE resolves, and
// the source bytes of a SEND or WRITE are gathered (which the P4 path and the dispatch both
// use); where a READ's response or an atomic's old value will land is resolved too.
void RdmaEngine::after_checks(WorkPtr w) {
  const Wqe& q = w->wqe;
  if (q.op == IONIC_V1_OP_RDMA_READ) {
    uint64_t left = q.length;
    for (const Sge& s : w->src) {
      const uint64_t n = std::min<uint64_t>(s.len, left);
      if (!res_.mrs.resolve(s.lkey, s.va, n, true, &w->landing)) return finish(w, IONIC_STS_LOCAL_PROT_ERR);
      left -= n;
    }
    if (left) return finish(w, IONIC_STS_LOCAL_PROT_ERR);  // a scatter list shorter than the length
    return decide(w);
  }
  if (q.op == IONIC_V1_OP_ATOMIC_CS || q.op == IONIC_V1_OP_ATOMIC_FA) {
    if (!res_.mrs.resolve(q.atomic_sge.lkey, q.atomic_sge.va, 8, true, &w->landing))
      return finish(w, IONIC_STS_LOCAL_PROT_ERR);
    return decide(w);
  }
  if (!sends_data(q.op)) return decide(w);
  std::vector<BusRun> runs;
  std::vector<size_t> ends;
  for (const Sge& s : w->src) {
    if (!res_.mrs.resolve(s.lkey, s.va, s.len, true, &runs)) return finish(w, IONIC_STS_LOCAL_PROT_ERR);
    ends.push_back(size_t(runs_total(runs)));
  }
  dma_gather(env_.device.dma(), std::move(runs), [this, w, ends](Bytes bytes, bool ok) {
    if (!ok) return finish(w, IONIC_STS_LOCAL_ACC_ERR);
    size_t from = 0;
    for (size_t end : ends) {
      w->sge_bytes.emplace_back(bytes.begin() + std::ptrdiff_t(from), bytes.begin() + std::ptrdiff_t(end));
      from = end;
    }
    counters_.bytes_moved += bytes.size();
    w->payload = std::make_shared<Bytes>(std::move(bytes));
    // A write's gather list shorter than its length: the local side failed.
    const bool write = w->wqe.op == IONIC_V1_OP_RDMA_WRITE || w->wqe.op == IONIC_V1_OP_RDMA_WRITE_IMM;
    if (write && w->payload->size() < w->wqe.length) return finish(w, IONIC_STS_LOCAL_PROT_ERR);
    decide(w);
  });
}

// The P4 RDMA path's say, for a program that declares rdma_metadata: at once, or, with the RTL
// fp8 unit, in order on the decision thread.
void RdmaEngine::decide(WorkPtr w) {
  if (!decide_on_thread_) return decide_now(w);
  decisions_.push_back(std::move(w));
  decision_ready_.notify(sc_core::SC_ZERO_TIME);
}

void RdmaEngine::decision_thread() {
  for (;;) {
    while (decisions_.empty()) sc_core::wait(decision_ready_);
    WorkPtr w = std::move(decisions_.front());
    decisions_.pop_front();
    decide_now(std::move(w));  // waits the fp8 unit's cycles when it computes
  }
}

void RdmaEngine::decide_now(WorkPtr w) {
  const Qp* live = live_qp(w->qid, w->gen);
  if (!live) return;  // the QP is gone, and its chain of work with it
  const Qp& qp = *live;
  if (!path_->has_rdma_program()) return dispatch(w);
  // REG_MR and LOCAL_INV are send work requests too: the program sees their key (imm_data, the
  // WQE's imm_data_key) and REG_MR's length; they name no remote memory.
  const bool local = is_local_op(w->wqe.op);
  SendWr wr;
  wr.opcode = w->wqe.op;
  wr.qp_num = w->qid;
  wr.length = w->wqe.op == IONIC_V1_OP_REG_MR ? uint32_t(w->wqe.mr_length) : local ? 0 : w->wqe.length;
  wr.imm_data = w->wqe.imm_key;
  wr.rkey = local ? 0 : w->wqe.rkey;
  wr.remote_addr = local ? 0 : w->wqe.remote_va;
  std::vector<StagedMemory::Staged> staged;
  for (size_t i = 0; i < w->src.size(); ++i) {
    wr.sgl.push_back(p4::rdma::Sge{w->src[i].va, w->src[i].len, w->src[i].lkey});
    if (i < w->sge_bytes.size()) staged.push_back({w->src[i].lkey, w->src[i].va, w->sge_bytes[i]});
  }
  StagedMemory memory(res_.mrs, std::move(staged), remote(qp), wr.rkey, wr.remote_addr);
  const Decision d = path_->post_send(wr, env_.ctx.local_ps(), memory);
  {
    auto e = env_.ctx.event(env_.path, events::rdma_p4);
    e.u64("qp", w->qid).str("op", ionic_op_name(w->wqe.op)).str("action", action_name(d.action));
    if (d.action == Action::kFail) e.str("reason", fail_reason_name(d.reason));
  }
  switch (d.action) {
    case Action::kDispatch:
      return dispatch(w);
    case Action::kDeny:  // completed whether or not it was signalled, UD included (the guide)
      ++counters_.denied;
      return finish(w, IONIC_STS_LOCAL_QP_OPER_ERR, d.completes(false));
    case Action::kFail:
      return finish(w, ionic_status_of(d.status), d.completes(false));
    case Action::kDone:
      // The fp8 unit's results, by DMA into the destination region.
      for (const StagedMemory::Write& wr : memory.writes()) {
        std::vector<BusRun> runs;
        if (!res_.mrs.resolve(wr.key, wr.va, wr.bytes.size(), true, &runs)) return finish(w, IONIC_STS_LOCAL_PROT_ERR);
        dma_scatter(env_.device.dma(), runs, wr.bytes.data());
        counters_.bytes_moved += wr.bytes.size();
      }
      return finish(w, IONIC_STS_OK);
  }
}

// ---- Local semantics ------------------------------------------------------------------------

void RdmaEngine::dispatch_local(WorkPtr w) {
  const Wqe& q = w->wqe;
  const Qp& qp = *live_qp(w->qid, w->gen);  // decide() checked
  switch (q.op) {
    case IONIC_V1_OP_SEND:
    case IONIC_V1_OP_SEND_IMM:
    case IONIC_V1_OP_SEND_INV: {
      // The destination is the QP the driver pointed this one at, or the QP itself.
      const uint32_t dst = qp.dest_valid ? qp.dest_qp : w->qid;
      if (!res_.qps.count(dst)) {
        env_.ctx.event(env_.path, "rdma_send_dropped").u64("qp", w->qid).u64("dest_qp", dst).str("reason", "unknown peer");
        return finish(w, IONIC_STS_OK);
      }
      return deliver_recv(dst, w->qid, w->payload, uint32_t(w->payload->size()), recv_op_of(q.op), q.imm_key,
                          [this, w, dst](bool delivered) {
                            if (!delivered)  // local semantics: no RNR, the message is dropped
                              env_.ctx.event(env_.path, "rdma_send_dropped").u64("qp", w->qid).u64("dest_qp", dst)
                                  .str("reason", "no posted receive");
                            finish(w, IONIC_STS_OK);
                          });
    }
    case IONIC_V1_OP_RDMA_WRITE:
    case IONIC_V1_OP_RDMA_WRITE_IMM:
    case IONIC_V1_OP_RDMA_READ: {
      std::vector<BusRun> remote_runs;
      if (!res_.mrs.resolve(q.rkey, q.remote_va, q.length, true, &remote_runs)) return finish(w, IONIC_STS_REMOTE_ACC_ERR);
      if (q.op != IONIC_V1_OP_RDMA_READ) {
        dma_scatter(env_.device.dma(), remote_runs, w->payload->data());
        if (q.op == IONIC_V1_OP_RDMA_WRITE) return finish(w, IONIC_STS_OK);
        // WRITE_IMM consumes a receive and scatters nothing into it.
        const uint32_t dst = qp.dest_valid ? qp.dest_qp : w->qid;
        if (!res_.qps.count(dst)) return finish(w, IONIC_STS_OK);
        return deliver_recv(dst, w->qid, nullptr, q.length, IONIC_V1_CQE_RECV_OP_RDMA_IMM, q.imm_key,
                            [this, w](bool) { finish(w, IONIC_STS_OK); });
      }
      return dma_gather(env_.device.dma(), std::move(remote_runs), [this, w](Bytes bytes, bool ok) {
        if (!ok) return finish(w, IONIC_STS_REMOTE_ACC_ERR);
        dma_scatter(env_.device.dma(), w->landing, bytes.data());
        counters_.bytes_moved += bytes.size();
        finish(w, IONIC_STS_OK);
      });
    }
    case IONIC_V1_OP_ATOMIC_CS:
    case IONIC_V1_OP_ATOMIC_FA: {
      std::vector<BusRun> remote_runs;
      if (!res_.mrs.resolve(q.rkey, q.remote_va, 8, true, &remote_runs)) return finish(w, IONIC_STS_REMOTE_ACC_ERR);
      return dma_gather(env_.device.dma(), remote_runs, [this, w, remote_runs](Bytes old, bool ok) {
        if (!ok) return finish(w, IONIC_STS_REMOTE_ACC_ERR);
        // Eight bytes in host order (the driver undoes the wire's byte order).
        const uint64_t v = get_le64(old.data());
        const Wqe& q = w->wqe;
        const uint64_t nv = q.op == IONIC_V1_OP_ATOMIC_CS ? (v == q.compare ? q.swap_add : v) : v + q.swap_add;
        uint8_t out[8];
        put_le64(out, nv);
        dma_scatter(env_.device.dma(), remote_runs, out);
        dma_scatter(env_.device.dma(), w->landing, old.data());
        finish(w, IONIC_STS_OK);
      });
    }
    default:
      return finish(w, IONIC_STS_LOCAL_QP_OPER_ERR);  // not an ionic_v1_op
  }
}

void RdmaEngine::deliver_recv(uint32_t dst_qp, uint32_t src_qp, std::shared_ptr<Bytes> payload, uint32_t byte_len,
                              uint8_t recv_op, uint32_t imm, std::function<void(bool)> done) {
  auto it = res_.qps.find(dst_qp);
  if (it == res_.qps.end() || it->second.rq_cons == it->second.rq_prod) return done(false);
  Qp& dq = it->second;
  const uint32_t stride = std::min<uint32_t>(1u << dq.rq_stride_log2, IONIC_V1_WQE_MAX_READ);
  std::vector<BusRun> runs;
  if (!buf_runs(dq.rq, uint64_t(dq.rq_cons % dq.rq_depth) << dq.rq_stride_log2, stride, &runs)) return done(false);
  ++dq.rq_cons;
  dma_gather(env_.device.dma(), std::move(runs), [this, dst_qp, src_qp, payload, byte_len, recv_op, imm, stride,
                                         done](Bytes raw, bool ok) {
    auto it = res_.qps.find(dst_qp);
    if (!ok || it == res_.qps.end()) return done(false);
    Qp& dq = it->second;
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
        if (!res_.mrs.resolve(s.lkey, s.va, n, true, &out)) {
          fault = IONIC_STS_LOCAL_PROT_ERR;
          break;
        }
        dma_scatter(env_.device.dma(), out, payload->data() + copied);
        copied += n;
      }
      counters_.bytes_moved += copied;
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
    env_.ctx.event(env_.path, events::rdma_recv).u64("qp", dst_qp).u64("src_qp", src_qp).u64("len", copied)
        .str("status", ionic_wc_status_name(status));
    cq_.post_cqe(dq.rq_cq, body, truncated ? status : copied, IONIC_V1_CQE_TYPE_RECV, dst_qp, truncated);
    done(true);
  });
}

}  // namespace dpusim::ionic
