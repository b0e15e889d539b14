// The RDMA devcmds 50-53 and the doorbell dispatch (rdma_engine.h).
// sc_spawn (the decision thread of fp8-impl rtl) needs SystemC's dynamic processes, declared
// only when this is defined before <systemc> is first included.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include "ionic/dma_io.h"
#include "ionic/ionic_if.h"
#include "ionic/le_bytes.h"
#include "ionic/rdma_engine.h"
#include "ionic/rdma_work.h"
#include "rtl/fp8_impl.h"

namespace dpusim::ionic {

RdmaEngine::RdmaEngine(Env env)
    : env_(std::move(env)),
      cq_(RdmaCompletions::Ports{
          env_.ctx, env_.path,
          [this](const std::vector<BusRun>& runs, const uint8_t* bytes) { dma_scatter(env_.device.dma(), runs, bytes); },
          [this](uint64_t addr, const uint8_t* bytes, size_t len) { env_.device.dma().write(addr, bytes, len); },
          [this](uint32_t intr) { env_.intr.assert_irq(intr); }}) {
  path_ = std::make_unique<p4::rdma::RdmaPath>([this](uint64_t, const std::string& line) {
    env_.ctx.event(env_.path, "log").str("level", "warning").str("msg", "rocm-ernic: " + line);
  });
}

RdmaEngine::~RdmaEngine() = default;

void RdmaEngine::attach_program(p4::Engine* engine) {
  p4::LoadError error;
  if (!path_->attach(engine, &error))  // the device loads programs with its own externs
    env_.ctx.event(env_.path, "log").str("level", "warning").str("msg", "rocm-ernic: RDMA path: " + error.message);
}

bool RdmaEngine::set_fp8_chunk_bytes(size_t bytes, std::string* error) {
  return path_->set_convert_chunk_bytes(bytes, error);
}

bool RdmaEngine::set_fp8_impl(const std::string& impl, std::string* error) {
  rtl::Fp8ImplOptions options;
  options.timing = &env_.ctx.timing;
  options.name = env_.path + "_fp8_rtl";  // a top-level module: no dots
  fp8_ = rtl::make_fp8_backend(impl, options, error);
  if (!fp8_) return false;
  path_->set_fp8_backend(fp8_.get());
  // The RTL unit takes simulated time, which a decision can wait for only on a thread.
  decide_on_thread_ = impl == rtl::kFp8ImplRtl;
  if (decide_on_thread_) {
    sc_core::sc_spawn_options thread;
    thread.dont_initialize();
    thread.set_sensitivity(&decision_ready_);
    // A decision runs the P4 program and the RTL unit's transaction on this stack: 1 MiB rather
    // than SystemC's default, with room for a sanitizer build's larger frames.
    thread.set_stack_size(1 << 20);
    sc_core::sc_spawn([this] { decision_thread(); }, (env_.path + "_decisions").c_str(), &thread);
  }
  return true;
}

void RdmaEngine::flush_log() { path_->flush_log(env_.ctx.local_ps()); }

RdmaEngine::Counters RdmaEngine::counters() const {
  Counters c = counters_;
  c.cqes = cq_.cqes();
  c.eqes = cq_.eqes();
  return c;
}

Comp RdmaEngine::devcmd(const uint8_t* cmd) {
  Comp comp{};
  const RdmaQueueCmd c = decode_rdma_queue_cmd(cmd);
  const char* refused = nullptr;
  switch (c.opcode) {
    case IONIC_CMD_RDMA_RESET_LIF:
      // Everything of the RDMA LIF goes, the resources the admin queues created too.
      cq_.clear();
      aqs_.clear();
      pending_cq_valid_ = false;
      qps_.clear();
      ahs_.clear();
      mrs_ = MrTable{};
      pending_.clear();
      trace_pending = 0;
      break;
    case IONIC_CMD_RDMA_CREATE_EQ:
      refused = cq_.create_eq(c);
      break;
    case IONIC_CMD_RDMA_CREATE_CQ:
      pending_cq_ = c;  // taken by the next CREATE_ADMINQ
      pending_cq_valid_ = true;
      break;
    default:  // CREATE_ADMINQ
      if (aqs_.size() >= IONIC_RDMA_MAX_AQ) refused = "more than 4 admin queues";
      else if (!pending_cq_valid_) refused = "no CREATE_CQ before it";
      else {
        Aq aq;
        aq.id = uint32_t(aqs_.size());
        aq.cq_id = pending_cq_.qid;
        aq.eq_id = pending_cq_.cid;
        aq.ring = c.dma_addr;
        aq.depth = 1u << (c.depth_log2 & 31);
        aq.cq_ring = pending_cq_.dma_addr;
        aq.cq_depth = 1u << (pending_cq_.depth_log2 & 31);
        aqs_.push_back(aq);
        pending_cq_valid_ = false;
      }
  }
  if (refused) comp[COMP_STATUS] = IONIC_RDMA_RC_ERROR;
  auto e = env_.ctx.event(env_.path, "rdma_devcmd");
  e.str("cmd", ionic_opcode_name(c.opcode)).u64("qid", c.qid).u64("cid", c.cid).u64("depth_log2", c.depth_log2)
      .u64("status", comp[COMP_STATUS]);
  if (refused) e.str("reason", refused);
  return comp;
}

void RdmaEngine::doorbell(const Doorbell& db) {
  switch (db.qtype) {
    case IONIC_RDMA_QTYPE_AQ:
      if (db.qid < aqs_.size()) {
        Aq& aq = aqs_[db.qid];
        aq.prod = db.p_index % aq.depth;
        return service_aq(db.qid);
      }
      break;
    case IONIC_RDMA_QTYPE_SQ: {
      auto it = qps_.find(db.qid);
      if (it == qps_.end()) break;
      it->second.sq_target = db.p_index % it->second.sq_depth;
      if (!it->second.busy) {
        it->second.busy = true;
        sq_next(db.qid);
      }
      return;
    }
    case IONIC_RDMA_QTYPE_RQ: {
      auto it = qps_.find(db.qid);
      if (it == qps_.end()) break;
      Qp& qp = it->second;
      qp.rq_prod += uint16_t(db.p_index - uint16_t(qp.rq_prod));
      return retry_waiting(db.qid);
    }
    case IONIC_RDMA_QTYPE_CQ:
      if (cq_.doorbell(db.qid, db.ring, db.p_index)) return;
      break;
    default:
      return;  // the EQ doorbell: the driver's consumer index, which the device does not need
  }
  env_.ctx.event(env_.path, "doorbell_ignored").u64("qtype", db.qtype).u64("qid", db.qid).u64("p_index", db.p_index);
}

}  // namespace dpusim::ionic
