// The RDMA engine's joins (rdma_engine.h): devcmds 50-53, the doorbell dispatch, the mesh port,
// the P4 path's program and fp8 unit.
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
      io_(env_.device),
      cq_(RdmaCompletions::Ports{
          env_.ctx, env_.path, [this](const std::vector<BusRun>& runs, const uint8_t* bytes) { io_.scatter(runs, bytes); },
          [this](uint64_t addr, const uint8_t* bytes, size_t len) { io_.write(addr, bytes, len); },
          [this](uint32_t intr) { env_.intr.assert_irq(intr); }}),
      admin_(RdmaAdmin::Ports{{env_.ctx, env_.path, io_, res_, cq_},
                              [this](const std::array<uint8_t, 16>& gid, uint32_t* node) { return node_of(gid, node); }}),
      path_(std::make_unique<p4::rdma::RdmaPath>([this](uint64_t, const std::string& line) {
        env_.ctx.event(env_.path, "log").str("level", "warning").str("msg", "rocm-ernic: " + line);
      })),
      responder_(RdmaResponder::Ports{{env_.ctx, env_.path, io_, res_, cq_},
                                      [this](unsigned dst, const char* kind, std::vector<uint8_t> msg) {
                                        send(dst, kind, std::move(msg));
                                      }}),
      requester_(RdmaRequester::Ports{{env_.ctx, env_.path, io_, res_, cq_}, *path_, responder_,
                                      [this](const RdmaQp& qp) { return remote(qp); },
                                      [this](unsigned dst, const char* kind, std::vector<uint8_t> msg) {
                                        send(dst, kind, std::move(msg));
                                      }}) {}

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
  if (impl == rtl::kFp8ImplRtl) {
    requester_.decide_on_thread();
    sc_core::sc_spawn_options thread;
    thread.dont_initialize();
    thread.set_sensitivity(&requester_.decision_ready());
    // A decision runs the P4 program and the RTL unit's transaction on this stack: 1 MiB rather
    // than SystemC's default, with room for a sanitizer build's larger frames.
    thread.set_stack_size(1 << 20);
    sc_core::sc_spawn([this] { requester_.decision_thread(); }, (env_.path + "_decisions").c_str(), &thread);
  }
  return true;
}

void RdmaEngine::flush_log() { path_->flush_log(env_.ctx.local_ps()); }

RdmaEngine::Counters RdmaEngine::counters() const {
  Counters c;
  const RdmaRequester::Counters& r = requester_.counters();
  c.wqes = r.wqes;
  c.denied = r.denied;
  c.bytes_moved = r.bytes_moved + responder_.bytes_moved();
  c.cqes = cq_.cqes();
  c.eqes = cq_.eqes();
  c.admin_cmds = admin_.commands();
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
      admin_.clear();
      res_.clear();
      requester_.clear();
      break;
    case IONIC_CMD_RDMA_CREATE_EQ:
      refused = cq_.create_eq(c);
      break;
    case IONIC_CMD_RDMA_CREATE_CQ:
      admin_.hold_cq(c);  // taken by the next CREATE_ADMINQ
      break;
    default:  // CREATE_ADMINQ
      refused = admin_.create(c);
  }
  if (refused) comp[COMP_STATUS] = IONIC_RDMA_RC_ERROR;
  auto e = env_.ctx.event(env_.path, "rdma_devcmd");
  e.str("cmd", ionic_opcode_name(c.opcode)).u64("qid", c.qid).u64("cid", c.cid).u64("depth_log2", c.depth_log2)
      .u64("status", comp[COMP_STATUS]);
  if (refused) e.str("reason", refused);
  return comp;
}

bool RdmaEngine::node_of(const std::array<uint8_t, 16>& gid, uint32_t* node) const {
  if (!mesh) {
    *node = UINT32_MAX;  // no mesh: every peer is local
    return true;
  }
  for (unsigned i = 0; i < mesh->nodes(); ++i) {
    if (mesh->member(i).mesh_gid() == gid) {
      *node = i;
      return true;
    }
  }
  return false;
}

bool RdmaEngine::remote(const RdmaQp& qp) const {
  return mesh && qp.dest_valid && qp.dest_node != UINT32_MAX && qp.dest_node != node;
}

void RdmaEngine::send(unsigned dst, const char* kind, std::vector<uint8_t> msg) {
  mesh->send(node, dst, kind, std::move(msg), env_.device.dma().local_offset());
}

void RdmaEngine::mesh_arrived(unsigned src, std::vector<uint8_t> msg) {
  WireHdr h;
  std::string why;
  if (!decode_wire(msg.data(), msg.size(), &h, &why)) {
    env_.ctx.event(env_.path, "rdma_mesh_dropped").str("reason", why);
    return;
  }
  auto payload = std::make_shared<std::vector<uint8_t>>(msg.begin() + IONIC_WIRE_HDR_BYTES, msg.end());
  if (h.op == IONIC_WIRE_ACK || h.op == IONIC_WIRE_READ_RESP || h.op == IONIC_WIRE_ATOMIC_RESP)
    return requester_.answer(h, *payload);
  responder_.request(src, h, std::move(payload));
}

void RdmaEngine::doorbell(const Doorbell& db) {
  switch (db.qtype) {
    case IONIC_RDMA_QTYPE_AQ:
      if (admin_.doorbell(db.qid, db.p_index)) return;
      break;
    case IONIC_RDMA_QTYPE_SQ:
      if (requester_.ring_sq(db.qid, db.p_index)) return;
      break;
    case IONIC_RDMA_QTYPE_RQ:
      if (responder_.ring_rq(db.qid, db.p_index)) return;
      break;
    case IONIC_RDMA_QTYPE_CQ:
      if (cq_.doorbell(db.qid, db.ring, db.p_index)) return;
      break;
    default:
      return;  // the EQ doorbell: the driver's consumer index, which the device does not need
  }
  env_.ctx.event(env_.path, "doorbell_ignored").u64("qtype", db.qtype).u64("qid", db.qid).u64("p_index", db.p_index);
}

}  // namespace dpusim::ionic
