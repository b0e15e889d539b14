// What the RDMA admin queues create and the datapath works with: the QPs (type, rings, CQs,
// the destination MODIFY_QP gave, the send and receive indices, the requests from peers held
// for a receive), the address handles and the memory region table. A QP id re-created or
// destroyed ends the work of its older creation (live_qp).
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>

#include "ionic/rdma_decode.h"
#include "ionic/rdma_fw.h"
#include "ionic/rdma_mem.h"

namespace dpusim::ionic {

struct RdmaInbound;  // a request from a peer waiting for a receive (rdma_work.h)

struct RdmaQp {
  uint8_t type = IONIC_QPT_RC;
  uint64_t gen = 0;  // which creation of this id: work in flight for an older one stops
  bool gsi = false;
  GuestBuf sq, rq;
  uint32_t sq_depth = 1, rq_depth = 1;
  unsigned sq_stride_log2 = 6, rq_stride_log2 = 6;
  uint32_t sq_cq = 0, rq_cq = 0;
  uint32_t sq_cons = 0, sq_target = 0, rq_prod = 0, rq_cons = 0, msn = 0;
  bool busy = false;
  bool dest_valid = false;
  uint32_t dest_qp = 0, dest_node = UINT32_MAX;
  uint8_t state = 0, pmtu = 10;  // pmtu: log2 of the path MTU
  uint16_t access = 0;
  uint32_t sq_psn = 0, rq_psn = 0;
  std::deque<std::shared_ptr<RdmaInbound>> inbound;  // requests from peers, served in order
  bool inbound_busy = false;                         // the head is being served
  bool rc_like() const { return !gsi && (type == IONIC_QPT_RC || type == IONIC_QPT_UC); }
  bool ud_like() const { return gsi || type == IONIC_QPT_UD; }
};

struct RdmaAh {
  bool has_dest = false;
  RoceDest dest;
  uint32_t node = UINT32_MAX;
};

struct RdmaResources {
  std::map<uint32_t, RdmaQp> qps;
  std::map<uint32_t, RdmaAh> ahs;
  MrTable mrs;
  uint64_t qp_gen = 0;  // the last QP creation

  // The QP of `qid` if it is still the creation `gen` (null once destroyed, reset or re-created).
  RdmaQp* live_qp(uint32_t qid, uint64_t gen) {
    auto it = qps.find(qid);
    return it == qps.end() || it->second.gen != gen ? nullptr : &it->second;
  }
  // RESET_LIF: every QP, address handle and memory region goes.
  void clear() {
    qps.clear();
    ahs.clear();
    mrs = MrTable{};
  }
};

}  // namespace dpusim::ionic
