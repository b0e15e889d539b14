// The RDMA requester (rdma_engine.h): the send queues and the work requests on them, as
// rocm-ernic's process_sq_wqe, rdma_xfer, do_atomic and remote_post run them.
//
//  - The SQ doorbell (qtype 6) sets the target; WQEs are read by DMA one after another up to
//    it (rdma_datapath.cpp). A message larger than the mesh carries completes LOCAL_LEN_ERR
//    before anything is read; the local memory is checked and a SEND's or WRITE's bytes
//    gathered; then, with a program that declares rdma_metadata, the P4 RDMA path decides
//    (dispatch, deny, fail, or done with the fp8 unit's results written); then the request
//    runs here (REG_MR, LOCAL_INV, and everything whose QP points at this node: SEND and
//    WRITE_IMM through the responder's deliver_recv) or goes to the peer (rdma_remote.cpp).
//  - A request on the mesh waits for its ACK or response (at most 1024 pending, 30 s, then
//    RETRY_EXCEEDED); the send queue goes on meanwhile. The completion follows rocm-ernic's
//    rules (RdmaCompletions::post_send_completion, MSN for RC/UC).
#pragma once

#include <systemc>

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "dpusim/p4/rdma/path.h"
#include "ionic/rdma_decode.h"
#include "ionic/rdma_part.h"
#include "ionic/rdma_responder.h"
#include "ionic/rdma_wire.h"

namespace dpusim::ionic {

class RdmaRequester {
 public:
  struct Ports : RdmaPartPorts {
    p4::rdma::RdmaPath& decisions;                 // the P4 RDMA decision path
    RdmaResponder& responder;                      // where a request for this node is delivered
    std::function<bool(const RdmaQp& qp)> remote;  // the QP's destination is another node
    MeshSend send;                                 // requests to peers
  };
  struct Counters {
    uint64_t wqes = 0, bytes_moved = 0, denied = 0;
  };
  explicit RdmaRequester(Ports ports);
  ~RdmaRequester();

  // The SQ doorbell: the target index, and the queue served up to it. False when there is no
  // such QP.
  bool ring_sq(uint32_t qid, uint16_t p_index);
  // An answer from a peer (ACK, READ_RESP, ATOMIC_RESP) to a pending request.
  void answer(const WireHdr& h, const std::vector<uint8_t>& payload);
  // RESET_LIF: the pending requests are forgotten.
  void clear();
  // The decisions run one at a time on a SystemC thread (the RTL fp8 unit takes time): the
  // thread's body and the event it waits for.
  void decide_on_thread() { decide_on_thread_ = true; }
  void decision_thread();
  const sc_core::sc_event& decision_ready() const { return decision_ready_; }
  const Counters& counters() const { return counters_; }
  uint32_t trace_pending = 0;  // remote requests awaiting their answer (VCD)

 private:
  using Bytes = std::vector<uint8_t>;
  struct Work;
  using WorkPtr = std::shared_ptr<Work>;
  struct Pending;

  RdmaQp* live_qp(uint32_t qid, uint64_t gen) { return ports_.res.live_qp(qid, gen); }
  // rdma_datapath.cpp: the send queue, the checks, the decision, the operations on this node.
  void sq_next(uint32_t qid);
  void execute(uint32_t qid, uint64_t gen, const Wqe& wqe, uint64_t wqe_bus, std::function<void()> next);
  void after_checks(WorkPtr w);
  void decide(WorkPtr w);
  void decide_now(WorkPtr w);
  void dispatch(WorkPtr w);
  void local_op(WorkPtr w);
  void dispatch_local(WorkPtr w);
  // Completes a work request (post_send_completion) and goes on to the SQ's next.
  void finish(WorkPtr w, uint8_t status, bool always = false);
  // rdma_remote.cpp: the request on the mesh, and its answer or its timeout.
  void post_remote(WorkPtr w);
  void complete_pending(const Pending& p, uint8_t status);

  Ports ports_;
  bool decide_on_thread_ = false;
  std::deque<WorkPtr> decisions_;
  sc_core::sc_event decision_ready_;
  Counters counters_;
  std::map<uint32_t, std::shared_ptr<Pending>> pending_;  // by request id
  uint32_t next_req_ = 0;
};

}  // namespace dpusim::ionic
