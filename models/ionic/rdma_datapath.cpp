// The requester's send queues and the operations on this node (rdma_requester.h; rocm-ernic's
// process_sq_wqe, rdma_xfer and do_atomic). A work request is read by DMA, its local memory
// checked and its source bytes gathered, then the P4 RDMA path (when a program that declares
// rdma_metadata is loaded) decides, then it is dispatched here or to the peer node.
#include <algorithm>
#include <cstring>

#include "dpusim/p4/rdma/verbs.h"
#include "ionic/dma_io.h"
#include "ionic/ionic_events.h"
#include "ionic/ionic_timing.h"
#include "ionic/le_bytes.h"
#include "ionic/rdma_requester.h"
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

RdmaRequester::RdmaRequester(Ports ports) : ports_(std::move(ports)) {}
RdmaRequester::~RdmaRequester() = default;

bool RdmaRequester::ring_sq(uint32_t qid, uint16_t p_index) {
  auto it = ports_.res.qps.find(qid);
  if (it == ports_.res.qps.end()) return false;
  it->second.sq_target = p_index % it->second.sq_depth;
  if (!it->second.busy) {
    it->second.busy = true;
    sq_next(qid);
  }
  return true;
}

void RdmaRequester::sq_next(uint32_t qid) {
  auto it = ports_.res.qps.find(qid);
  if (it == ports_.res.qps.end()) return;
  RdmaQp& qp = it->second;
  if (qp.sq_cons % qp.sq_depth == qp.sq_target) {
    // Decided at the device's time (see EthQueues::tx_next).
    if (ports_.io.ahead()) return ports_.io.at_local_time([this, qid] { sq_next(qid); });
    qp.busy = false;
    return;
  }
  // The chain of this QP's work stops where the QP it started on is gone.
  const uint64_t gen = qp.gen;
  ports_.io.after(ports_.ctx.ps(timing::rdma_wqe_ps), [this, qid, gen] {
    RdmaQp* q = live_qp(qid, gen);
    if (!q) return;
    RdmaQp& qp = *q;
    // Up to 32 SGEs, as many as the stride holds (rdma_fw.h): never more than that is read.
    const uint32_t stride = std::min<uint32_t>(1u << qp.sq_stride_log2, IONIC_V1_WQE_MAX_READ);
    std::vector<BusRun> runs;
    auto next = [this, qid, gen] {
      RdmaQp* q = live_qp(qid, gen);
      if (!q) return;
      ++q->sq_cons;
      sq_next(qid);
    };
    if (!buf_runs(qp.sq, uint64_t(qp.sq_cons % qp.sq_depth) << qp.sq_stride_log2, stride, &runs)) {
      ports_.ctx.event(ports_.path, "rdma_wqe_lost").u64("qp", qid).str("reason", "outside the SQ's pages");
      return next();
    }
    const uint64_t wqe_bus = runs[0].addr;
    ports_.io.gather(std::move(runs), [this, qid, gen, stride, wqe_bus, next](Bytes bytes, bool ok) {
      if (!live_qp(qid, gen)) return;
      if (!ok) {
        ports_.ctx.event(ports_.path, "rdma_wqe_lost").u64("qp", qid).str("reason", "WQE read failed");
        return next();
      }
      execute(qid, gen, decode_wqe(bytes.data(), stride), wqe_bus, next);
    });
  });
}

void RdmaRequester::execute(uint32_t qid, uint64_t gen, const Wqe& wqe, uint64_t wqe_bus, std::function<void()> next) {
  ++counters_.wqes;
  ports_.ctx.event(ports_.path, events::rdma_wqe).u64("qp", qid).str("op", ionic_op_name(wqe.op)).u64("wqe_id", wqe.id)
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
    ports_.ctx.event(ports_.path, "rdma_wqe_too_long").u64("qp", qid).u64("bytes", size);
    return finish(w, IONIC_STS_LOCAL_LEN_ERR);
  }
  after_checks(w);
}

void RdmaRequester::finish(WorkPtr w, uint8_t status, bool always) {
  if (RdmaQp* qp = live_qp(w->qid, w->gen))
    ports_.cq.post_send_completion(qp->sq_cq, qp->rc_like(), &qp->msn, w->qid, w->wqe, status, always);
  w->next();
}

// REG_MR and LOCAL_INV, once the program let them through: never on the wire, always completed
// by SQ index.
void RdmaRequester::local_op(WorkPtr w) {
  const Wqe& wqe = w->wqe;
  const RdmaQp& qp = *live_qp(w->qid, w->gen);  // decide() checked
  if (wqe.op == IONIC_V1_OP_LOCAL_INV) {
    ports_.res.mrs.remove(wqe.imm_key);
    ports_.cq.post_npg(qp.sq_cq, w->qid, wqe.id, IONIC_STS_OK);
    return w->next();
  }
  if ((1u << qp.sq_stride_log2) < WQE_REG_MR_MIN_BYTES) {
    ports_.ctx.event(ports_.path, "rdma_mr_refused").hex("key", wqe.imm_key).str("reason", "REG_MR WQE truncated");
    ports_.cq.post_npg(qp.sq_cq, w->qid, wqe.id, IONIC_STS_OK);
    return w->next();
  }
  ports_.res.mrs.drop_rotations(wqe.imm_key);
  load_buf(ports_.io, wqe.mr_buf, wqe.mr_va, [this, w](bool ok, GuestBuf buf, std::string why) {
    const Wqe& wqe = w->wqe;
    if (ok) ports_.res.mrs.put(MemRegion{wqe.imm_key, wqe.mr_va, wqe.mr_length, 0x0fff, std::move(buf)});
    else ports_.ctx.event(ports_.path, "rdma_mr_refused").hex("key", wqe.imm_key).str("reason", why);
    if (RdmaQp* q = live_qp(w->qid, w->gen)) ports_.cq.post_npg(q->sq_cq, w->qid, wqe.id, IONIC_STS_OK);
    w->next();
  });
}

// Where a request the program let through goes: the local operations here, the rest to the
// peer node or to this one.
void RdmaRequester::dispatch(WorkPtr w) {
  if (is_local_op(w->wqe.op)) return local_op(w);
  return ports_.remote(*live_qp(w->qid, w->gen)) ? post_remote(w) : dispatch_local(w);
}

// The work request's own memory first, so that "a program never sees an operation that is
// already a protection error" (the rocm-ernic P4 engine guide): every local SGE resolves, and
// the source bytes of a SEND or WRITE are gathered (which the P4 path and the dispatch both
// use); where a READ's response or an atomic's old value will land is resolved too.
void RdmaRequester::after_checks(WorkPtr w) {
  const Wqe& q = w->wqe;
  if (q.op == IONIC_V1_OP_RDMA_READ) {
    uint64_t left = q.length;
    for (const Sge& s : w->src) {
      const uint64_t n = std::min<uint64_t>(s.len, left);
      if (!ports_.res.mrs.resolve(s.lkey, s.va, n, true, &w->landing)) return finish(w, IONIC_STS_LOCAL_PROT_ERR);
      left -= n;
    }
    if (left) return finish(w, IONIC_STS_LOCAL_PROT_ERR);  // a scatter list shorter than the length
    return decide(w);
  }
  if (q.op == IONIC_V1_OP_ATOMIC_CS || q.op == IONIC_V1_OP_ATOMIC_FA) {
    if (!ports_.res.mrs.resolve(q.atomic_sge.lkey, q.atomic_sge.va, 8, true, &w->landing))
      return finish(w, IONIC_STS_LOCAL_PROT_ERR);
    return decide(w);
  }
  if (!sends_data(q.op)) return decide(w);
  std::vector<BusRun> runs;
  std::vector<size_t> ends;
  for (const Sge& s : w->src) {
    if (!ports_.res.mrs.resolve(s.lkey, s.va, s.len, true, &runs)) return finish(w, IONIC_STS_LOCAL_PROT_ERR);
    ends.push_back(size_t(runs_total(runs)));
  }
  ports_.io.gather(std::move(runs), [this, w, ends](Bytes bytes, bool ok) {
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
void RdmaRequester::decide(WorkPtr w) {
  if (!decide_on_thread_) return decide_now(w);
  decisions_.push_back(std::move(w));
  decision_ready_.notify(sc_core::SC_ZERO_TIME);
}

void RdmaRequester::decision_thread() {
  for (;;) {
    while (decisions_.empty()) sc_core::wait(decision_ready_);
    WorkPtr w = std::move(decisions_.front());
    decisions_.pop_front();
    decide_now(std::move(w));  // waits the fp8 unit's cycles when it computes
  }
}

void RdmaRequester::decide_now(WorkPtr w) {
  const RdmaQp* live = live_qp(w->qid, w->gen);
  if (!live) return;  // the QP is gone, and its chain of work with it
  const RdmaQp& qp = *live;
  if (!ports_.decisions.has_rdma_program()) return dispatch(w);
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
  StagedMemory memory(ports_.res.mrs, std::move(staged), ports_.remote(qp), wr.rkey, wr.remote_addr);
  const Decision d = ports_.decisions.post_send(wr, ports_.ctx.local_ps(), memory);
  {
    auto e = ports_.ctx.event(ports_.path, events::rdma_p4);
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
        if (!ports_.res.mrs.resolve(wr.key, wr.va, wr.bytes.size(), true, &runs)) return finish(w, IONIC_STS_LOCAL_PROT_ERR);
        ports_.io.scatter(runs, wr.bytes.data());
        counters_.bytes_moved += wr.bytes.size();
      }
      return finish(w, IONIC_STS_OK);
  }
}

// ---- Local semantics ------------------------------------------------------------------------

void RdmaRequester::dispatch_local(WorkPtr w) {
  const Wqe& q = w->wqe;
  const RdmaQp& qp = *live_qp(w->qid, w->gen);  // decide() checked
  switch (q.op) {
    case IONIC_V1_OP_SEND:
    case IONIC_V1_OP_SEND_IMM:
    case IONIC_V1_OP_SEND_INV: {
      // The destination is the QP the driver pointed this one at, or the QP itself.
      const uint32_t dst = qp.dest_valid ? qp.dest_qp : w->qid;
      if (!ports_.res.qps.count(dst)) {
        ports_.ctx.event(ports_.path, "rdma_send_dropped").u64("qp", w->qid).u64("dest_qp", dst).str("reason", "unknown peer");
        return finish(w, IONIC_STS_OK);
      }
      return ports_.responder.deliver_recv(dst, w->qid, w->payload, uint32_t(w->payload->size()), recv_op_of(q.op), q.imm_key,
                          [this, w, dst](bool delivered) {
                            if (!delivered)  // local semantics: no RNR, the message is dropped
                              ports_.ctx.event(ports_.path, "rdma_send_dropped").u64("qp", w->qid).u64("dest_qp", dst)
                                  .str("reason", "no posted receive");
                            finish(w, IONIC_STS_OK);
                          });
    }
    case IONIC_V1_OP_RDMA_WRITE:
    case IONIC_V1_OP_RDMA_WRITE_IMM:
    case IONIC_V1_OP_RDMA_READ: {
      std::vector<BusRun> remote_runs;
      if (!ports_.res.mrs.resolve(q.rkey, q.remote_va, q.length, true, &remote_runs)) return finish(w, IONIC_STS_REMOTE_ACC_ERR);
      if (q.op != IONIC_V1_OP_RDMA_READ) {
        ports_.io.scatter(remote_runs, w->payload->data());
        if (q.op == IONIC_V1_OP_RDMA_WRITE) return finish(w, IONIC_STS_OK);
        // WRITE_IMM consumes a receive and scatters nothing into it.
        const uint32_t dst = qp.dest_valid ? qp.dest_qp : w->qid;
        if (!ports_.res.qps.count(dst)) return finish(w, IONIC_STS_OK);
        return ports_.responder.deliver_recv(dst, w->qid, nullptr, q.length, IONIC_V1_CQE_RECV_OP_RDMA_IMM, q.imm_key,
                            [this, w](bool) { finish(w, IONIC_STS_OK); });
      }
      return ports_.io.gather(std::move(remote_runs), [this, w](Bytes bytes, bool ok) {
        if (!ok) return finish(w, IONIC_STS_REMOTE_ACC_ERR);
        ports_.io.scatter(w->landing, bytes.data());
        counters_.bytes_moved += bytes.size();
        finish(w, IONIC_STS_OK);
      });
    }
    case IONIC_V1_OP_ATOMIC_CS:
    case IONIC_V1_OP_ATOMIC_FA: {
      std::vector<BusRun> remote_runs;
      if (!ports_.res.mrs.resolve(q.rkey, q.remote_va, 8, true, &remote_runs)) return finish(w, IONIC_STS_REMOTE_ACC_ERR);
      return ports_.io.gather(remote_runs, [this, w, remote_runs](Bytes old, bool ok) {
        if (!ok) return finish(w, IONIC_STS_REMOTE_ACC_ERR);
        // Eight bytes in host order (the driver undoes the wire's byte order).
        const uint64_t v = get_le64(old.data());
        const Wqe& q = w->wqe;
        const uint64_t nv = q.op == IONIC_V1_OP_ATOMIC_CS ? (v == q.compare ? q.swap_add : v) : v + q.swap_add;
        uint8_t out[8];
        put_le64(out, nv);
        ports_.io.scatter(remote_runs, out);
        ports_.io.scatter(w->landing, old.data());
        finish(w, IONIC_STS_OK);
      });
    }
    default:
      return finish(w, IONIC_STS_LOCAL_QP_OPER_ERR);  // not an ionic_v1_op
  }
}

}  // namespace dpusim::ionic
