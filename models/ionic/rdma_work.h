// The RDMA requester's and responder's private types, shared by the files that implement them
// (rdma_datapath.cpp, rdma_remote.cpp, rdma_responder.cpp): a work request in execution, a
// peer's request held for its QP, a request awaiting its peer's answer.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "ionic/rdma_requester.h"
#include "ionic/rdma_wire.h"

namespace dpusim::ionic {

// A work request being executed, with what its stages found.
struct RdmaRequester::Work {
  uint32_t qid = 0;
  uint64_t gen = 0;                             // the QP's creation (live_qp)
  Wqe wqe;
  uint64_t wqe_bus = 0;
  std::function<void()> next;                   // on to the send queue's next WQE
  std::vector<Sge> src;                         // the local gather list (inline: one lkey-0 SGE)
  std::vector<std::vector<uint8_t>> sge_bytes;  // each SGE's bytes, gathered (SEND and WRITE)
  std::shared_ptr<Bytes> payload;               // the message: the SGEs' bytes in order
  std::vector<BusRun> landing;                  // READ and atomics: where the answer lands
};

// A request that arrived from a peer, held while its destination QP has no receive.
struct RdmaInbound {
  unsigned src = 0;
  WireHdr hdr;
  std::shared_ptr<std::vector<uint8_t>> payload;
  uint64_t first_try_ps = 0;
  bool started = false;  // its 5 s deadline timer runs
};

// A request sent to a peer, waiting for its ACK or response.
struct RdmaRequester::Pending {
  uint32_t req_id = 0;
  uint32_t qp = 0;
  uint64_t gen = 0;  // the QP's creation
  Wqe wqe;
  uint32_t msn = 0;
  bool use_msn = false;
  std::vector<BusRun> landing;  // READ and atomic responses land here
  uint32_t length = 0;
};

}  // namespace dpusim::ionic
