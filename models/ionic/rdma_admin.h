// The RDMA admin queues as rocm-ernic presents them (ionic_adminq.c; rdma_engine.h): created by
// devcmds (CREATE_CQ held, then CREATE_ADMINQ takes it; at most 4), served from the consumer
// index up to the producer the doorbell (qtype 5, qid = the admin queue) gave. A WQE spans
// ceil((4 + len) / 64) 64-byte strides, at most 4 and never past the producer; each opcode is
// answered as rocm-ernic answers it (CREATE/DESTROY of CQs, QPs, MRs and AHs, MODIFY_QP with
// the RoCE header template, QUERY_QP into the driver's two buffers, stubs), then an admin CQE
// (the slot, the opcode, status_length, colour and error bits), an EQE and the interrupt.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ionic/rdma_decode.h"
#include "ionic/rdma_part.h"

namespace dpusim::ionic {

class RdmaAdmin {
 public:
  // res: what the commands create; cq: the CQs, and the EQ each admin queue notifies.
  struct Ports : RdmaPartPorts {
    // The mesh node a GID belongs to (UINT32_MAX: this node, or no mesh); false when none has it.
    std::function<bool(const std::array<uint8_t, 16>& gid, uint32_t* node)> node_of;
  };
  explicit RdmaAdmin(Ports ports) : ports_(std::move(ports)) {}

  // devcmd CREATE_CQ: held for the next CREATE_ADMINQ.
  void hold_cq(const RdmaQueueCmd& c);
  // devcmd CREATE_ADMINQ: null, or why it is refused ("more than 4 admin queues", "no
  // CREATE_CQ before it").
  const char* create(const RdmaQueueCmd& c);
  // RESET_LIF: the admin queues and the held CQ go.
  void clear();
  // The admin queue's doorbell; false when there is no such queue.
  bool doorbell(uint32_t aq, uint16_t p_index);
  uint64_t commands() const { return commands_; }

 private:
  using Bytes = std::vector<uint8_t>;
  using Done = std::function<void(uint8_t status, uint32_t resp_len)>;
  struct Aq {
    uint32_t id = 0, cq_id = 0, eq_id = 0;
    uint64_t ring = 0, cq_ring = 0;
    uint32_t depth = 1, cq_depth = 1;
    uint32_t cons = 0, prod = 0, cq_prod = 0;
    bool cq_color = true, busy = false;
  };
  void service(unsigned aq);
  void next(unsigned aq);
  void dispatch(uint8_t op, const Bytes& body, uint16_t len, Done done);
  void create_cq(const Bytes& body, uint16_t len, Done done);
  void create_qp(const Bytes& body, uint16_t len, Done done);
  void create_mr(const Bytes& body, uint16_t len, Done done);
  void modify_qp(const Bytes& body, uint16_t len, Done done);
  void query_qp(const Bytes& body, uint16_t len, Done done);
  void create_ah(const Bytes& body, uint16_t len, Done done);
  void post_cqe(Aq& aq, uint16_t slot, uint8_t op, uint8_t status, uint32_t resp_len);
  void read_template(uint64_t dma, uint32_t len, std::function<void(bool parsed, RoceDest dest)> done);

  Ports ports_;
  std::vector<Aq> aqs_;
  bool pending_cq_valid_ = false;
  RdmaQueueCmd pending_cq_;
  uint64_t commands_ = 0;
};

}  // namespace dpusim::ionic
