// The ionic NIC's RDMA side as rocm-ernic presents it to a guest running ionic_rdma.ko and
// rdma-core's ionic provider (src/ionic_rdma_devcmd.c, ionic_adminq.c, ionic_datapath.c):
//
//  - device commands 50-53 (rdma_devcmd.cpp): RESET_LIF clears the EQs, the pending CQ and the
//    admin queues; CREATE_EQ records up to 32 EQs (producer 0, colour 1); CREATE_CQ is held
//    pending and the next CREATE_ADMINQ takes it (none pending, or a fifth admin queue: status
//    1).
//  - the CQs and EQs (rdma_completions.h, an object of its own): CQEs, EQEs before their
//    interrupt, arming, the send-side completion rules.
//  - the RDMA admin queues (rdma_admin.h, an object of its own).
//  - QPs of type RC, UC and UD (qpid 1 always GSI) with their SQ and RQ rings, MODIFY_QP with
//    the RoCE header template, QUERY_QP into the driver's two buffers; MRs direct or by page
//    table, lkey 0 for bus addresses; SQ doorbells (qtype 6) process up to the producer, RQ
//    doorbells (qtype 7) advance the receive producer by the 16-bit delta.
//  - work requests (rdma_datapath.cpp): SEND, SEND_IMM, SEND_INV, RDMA_WRITE, RDMA_WRITE_IMM,
//    RDMA_READ, ATOMIC_CS, ATOMIC_FA, REG_MR and LOCAL_INV with rocm-ernic's completion rules;
//    every byte moved by DMA through the function's requester. A message larger than the mesh
//    carries (16 MiB less its header) completes LOCAL_LEN_ERR before anything is read. With a P4 program that declares
//    rdma_metadata loaded, every send work request runs the RDMA decision path (p4/rdma) after
//    its own memory checks and before dispatch. Its fp8 unit is the C++ codec, or with
//    `fp8-impl` rtl the verilated RTL unit (models/rtl, docs/cosim.md): then the decisions run
//    one at a time, in order, on a SystemC thread of the engine's, which waits the unit's
//    cycles, so a reduction completes that much later.
//  - the mesh (rdma_remote.cpp): a QP whose destination is another node sends its operations
//    as messages (rocm-ernic's IONC wire header); the requester's completion waits for the ACK
//    or response, RETRY_EXCEEDED after 30 s, at most 1024 pending; an inbound SEND that finds
//    no posted receive waits up to 5 s, then RNR_RETRY_EXCEEDED; order is kept per
//    destination QP, responses never held behind requests.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "dpusim/p4/rdma/path.h"
#include "ionic/devcmd.h"
#include "ionic/dma_io.h"
#include "ionic/intr_ctrl.h"
#include "ionic/rdma_admin.h"
#include "ionic/rdma_completions.h"
#include "ionic/rdma_decode.h"
#include "ionic/rdma_mem.h"
#include "ionic/rdma_resources.h"
#include "net/mesh.h"
#include "tlm/endpoint_base.h"
#include "tlm/requester.h"
#include "tlm/sim_context.h"

namespace dpusim::ionic {

using Comp = std::array<uint8_t, 16>;

class RdmaEngine : public net::MeshEnd {
 public:
  struct Env {
    pcie::SimContext& ctx;
    std::string path;          // the NIC's component path ("ep0")
    pcie::EndpointBase& device;  // the NIC: its DMA requester, its own time (after, at_local_time)
    IntrCtrl& intr;
    std::array<uint8_t, 16> gid;  // this NIC's GID (its IPv4 address, ::ffff:a.b.c.d)
  };
  explicit RdmaEngine(Env env);
  ~RdmaEngine() override;

  // Devcmds 50-53, on either path: the completion (status 0, or 1 on a refusal).
  Comp devcmd(const uint8_t* cmd);
  // A doorbell of qtype 5..9.
  void doorbell(const Doorbell& db);
  // The NIC's P4 program (null: none); called again after every replacement.
  void attach_program(p4::Engine* engine);
  // The fp8 unit's implementation by name (rtl/fp8_impl.h: cpp, the default, or rtl); during
  // elaboration. False with *error naming the problem.
  bool set_fp8_impl(const std::string& impl, std::string* error);
  // The fp8 unit's conversion chunk (p4/rdma path.h, P4_RDMA_CONVERT_CHUNK_BYTES); during
  // elaboration. False with *error naming the value and the rule.
  bool set_fp8_chunk_bytes(size_t bytes, std::string* error);

  // The mesh port.
  void mesh_arrived(unsigned src, std::vector<uint8_t> bytes) override;
  std::string mesh_name() const override { return env_.path; }
  std::array<uint8_t, 16> mesh_gid() const override { return env_.gid; }

  struct Counters {
    uint64_t admin_cmds = 0, wqes = 0, cqes = 0, eqes = 0, bytes_moved = 0, denied = 0;
  };
  Counters counters() const;
  uint32_t trace_pending = 0;  // remote requests awaiting their answer (VCD)
  void flush_log();

  using Qp = RdmaQp;
  using Ah = RdmaAh;
  using Inbound = RdmaInbound;

 private:
  using Bytes = std::vector<uint8_t>;
  // A work request being executed, with what its stages found.
  struct Work;
  using WorkPtr = std::shared_ptr<Work>;

  // The mesh node a GID belongs to (this node's own included); UINT32_MAX without a mesh.
  bool node_of(const std::array<uint8_t, 16>& gid, uint32_t* node) const;
  // The send-side completion of a work request on `qp` (RdmaCompletions::post_send_completion).
  void post_send_completion(Qp& qp, uint32_t qid, const Wqe& wqe, uint8_t status, bool always = false) {
    cq_.post_send_completion(qp.sq_cq, qp.rc_like(), &qp.msn, qid, wqe, status, always);
  }
  // rdma_datapath.cpp: send queues and local operations.
  Qp* live_qp(uint32_t qid, uint64_t gen) { return res_.live_qp(qid, gen); }
  void sq_next(uint32_t qid);
  void execute(uint32_t qid, uint64_t gen, const Wqe& wqe, uint64_t wqe_bus, std::function<void()> next);
  void after_checks(WorkPtr w);
  void decide(WorkPtr w);
  void decide_now(WorkPtr w);
  void decision_thread();
  void dispatch(WorkPtr w);
  void local_op(WorkPtr w);
  void dispatch_local(WorkPtr w);
  // Completes a work request (post_send_completion) and goes on to the SQ's next.
  void finish(WorkPtr w, uint8_t status, bool always = false);
  // Delivers a message into the destination QP's next posted receive: done(delivered, copied).
  void deliver_recv(uint32_t dst_qp, uint32_t src_qp, std::shared_ptr<Bytes> payload, uint32_t byte_len,
                    uint8_t recv_op, uint32_t imm, std::function<void(bool delivered)> done);
  // rdma_remote.cpp: the mesh.
  bool remote(const Qp& qp) const;
  void post_remote(WorkPtr w);
  void handle_message(unsigned src, const Bytes& msg);
  void handle_request(unsigned src, std::shared_ptr<Inbound> in, bool last_chance);
  void retry_waiting(uint32_t qid);
  void reply(unsigned dst, const uint8_t* req_hdr, uint8_t op, uint8_t status, const Bytes& payload);

  Env env_;
  RdmaCompletions cq_;  // the CQs and EQs
  RdmaResources res_;   // QPs, address handles, memory regions
  EndpointIo io_;       // the NIC's DMA and time, for the parts that take a DeviceIo
  RdmaAdmin admin_;     // the admin queues
  std::unique_ptr<p4::rdma::RdmaPath> path_;
  // fp8-impl rtl: the unit, and the decisions waiting for the thread that runs them.
  std::unique_ptr<p4::rdma::Fp8Backend> fp8_;
  bool decide_on_thread_ = false;
  std::deque<WorkPtr> decisions_;
  sc_core::sc_event decision_ready_;
  Counters counters_;
  // Remote requests awaiting their answer, by request id.
  struct Pending;
  std::map<uint32_t, std::shared_ptr<Pending>> pending_;
  uint32_t next_req_ = 0;
};

}  // namespace dpusim::ionic
