// The RDMA responder (rdma_engine.h): what arrives for this node's QPs and memory, as
// rocm-ernic's deliver_recv and dp_handle_wire serve it.
//
//  - A message into a QP's next posted receive (deliver_recv): the receive WQE read by DMA, the
//    payload scattered over its SGEs through their lkeys, a receive CQE (LOCAL_LEN_ERR when it
//    did not fit, LOCAL_PROT_ERR for an SGE that does not resolve). A datagram QP's CQE names a
//    source MAC 02:00 and the sending QP. Local SENDs and WRITE_IMMs come here too.
//  - A peer's request on the mesh (rdma_wire.h): requests for one QP are served in arrival
//    order; a SEND that finds no posted receive holds the ones behind it and waits (the RQ
//    doorbell retries it) for up to 5 s, then is answered RNR_RETRY_EXCEEDED. WRITE, READ and
//    the atomics resolve their rkey (never key 0: REMOTE_ACC_ERR) and are answered with an
//    ACK, the read bytes or the old value.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ionic/rdma_part.h"
#include "ionic/rdma_wire.h"

namespace dpusim::ionic {

// A message to node `dst` on the mesh; `kind` names it for the log ("ACK", "READ_RESP").
using MeshSend = std::function<void(unsigned dst, const char* kind, std::vector<uint8_t> msg)>;

class RdmaResponder {
 public:
  struct Ports : RdmaPartPorts {
    MeshSend send;  // answers to peers
  };
  using Bytes = std::vector<uint8_t>;
  explicit RdmaResponder(Ports ports) : ports_(std::move(ports)) {}

  // Delivers a message into `dst_qp`'s next posted receive: done(delivered). `payload` may be
  // null for RDMA_IMM, whose data landed through the rkey (byte_len is then its length).
  void deliver_recv(uint32_t dst_qp, uint32_t src_qp, std::shared_ptr<Bytes> payload, uint32_t byte_len,
                    uint8_t recv_op, uint32_t imm, std::function<void(bool delivered)> done);
  // A request from node `src` (any op but the answers: ACK, READ_RESP, ATOMIC_RESP).
  void request(unsigned src, const WireHdr& h, std::shared_ptr<Bytes> payload);
  // The RQ doorbell: the producer advances by the 16-bit delta and a held SEND is retried.
  // False when there is no such QP.
  bool ring_rq(uint32_t qid, uint16_t p_index);
  uint64_t bytes_moved() const { return bytes_moved_; }

 private:
  void retry_waiting(uint32_t qid);
  void serve(unsigned src, std::shared_ptr<RdmaInbound> in, bool last_chance);
  void serve_send(std::shared_ptr<RdmaInbound> in, bool last_chance,
                  std::function<void(uint8_t op, uint8_t status, const Bytes& data)> answer);
  void reply(unsigned dst, const WireHdr& req, uint8_t op, uint8_t status, const Bytes& payload);

  Ports ports_;
  uint64_t bytes_moved_ = 0;
};

}  // namespace dpusim::ionic
