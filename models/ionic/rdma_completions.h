// The RDMA side's completion and event queues (rdma_engine.h; rocm-ernic's cq_post,
// cq_fire_event, the EQs of ionic_rdma_devcmd.c and the tail of process_sq_wqe):
//
//  - EQs (devcmd CREATE_EQ, at most 32): an EQE (be32: colour, type CQ, code CQ_NOTIFY, the CQ's
//    id) is written at the producer, whose colour starts at 1 and flips per wrap, and then the
//    EQ's interrupt is asserted (posted writes stay in order on the link);
//  - CQs (admin CREATE_CQ): stride 2^5..2^16, depth up to 2^24, unusable (completions lost,
//    logged) until their ring is loaded; a CQE's 28-byte body goes down before its colour word,
//    which the driver polls; the consumer index (ring 0) and arming (rings 1, 2) doorbells;
//    arming is a level: an arm with completions unread fires at once, otherwise the next CQE
//    fires it, once;
//  - the send-side completion rules: REG_MR and LOCAL_INV always an NPG CQE; RC and UC retire
//    every WQE by a running MSN (from 1), signalled or not; UD/GSI an NPG CQE only if SIG is set.
//
// It reaches guest memory and the interrupt controller only through its Ports, so it is tested
// on its own (tests/cpp/ionic/test_rdma_completions.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ionic/rdma_decode.h"
#include "ionic/rdma_mem.h"
#include "tlm/sim_context.h"

namespace dpusim::ionic {

class RdmaCompletions {
 public:
  struct Eq {
    uint32_t qid = 0, intr = 0;
    uint64_t dma = 0;
    uint8_t depth_log2 = 0, stride_log2 = 0;
    uint32_t prod = 0;
    bool color = true;
  };
  struct Cq {
    bool usable = false;
    uint32_t eq_id = 0;
    GuestBuf buf;
    uint32_t depth = 1;
    unsigned stride_log2 = 5;
    uint32_t prod = 0, cons = 0;
    bool color = true, armed = false;
  };
  struct Ports {
    pcie::SimContext& ctx;
    std::string path;  // the NIC's component path, for its events
    // DMA writes of `bytes` over bus runs, in order; and one DMA write.
    std::function<void(const std::vector<BusRun>& runs, const uint8_t* bytes)> scatter;
    std::function<void(uint64_t addr, const uint8_t* bytes, size_t len)> write;
    std::function<void(uint32_t intr)> interrupt;  // asserts an interrupt
  };
  explicit RdmaCompletions(Ports ports) : ports_(std::move(ports)) {}

  // CREATE_EQ: null, or why it is refused ("more than 32 EQs").
  const char* create_eq(const RdmaQueueCmd& c);
  // RESET_LIF: every EQ and CQ goes.
  void clear();

  // The CQ `id` made anew (CREATE_CQ): unusable until its ring is set up.
  Cq& fresh_cq(uint32_t id);
  Cq* find_cq(uint32_t id);
  bool has_cq(uint32_t id) const { return cqs_.count(id) != 0; }
  void destroy_cq(uint32_t id) { cqs_.erase(id); }

  // A CQE: the 24-byte body, then status_length and the qid/type/flags word with the colour.
  void post_cqe(uint32_t cq_id, const uint8_t* body24, uint32_t status_len, uint32_t type, uint32_t qid, bool error);
  void post_npg(uint32_t cq_id, uint32_t qid, uint64_t wqe_id, uint8_t status);
  void post_msn(uint32_t cq_id, uint32_t qid, uint32_t msn, uint8_t status);
  // The send-side completion of a work request on a QP whose send CQ is `sq_cq`, by the rules
  // above: `rc_like` QPs count `*msn` up; `always`: completed even where the rules write nothing
  // for an unsignalled one (a refusal by the P4 program). Logs rdma_wc.
  void post_send_completion(uint32_t sq_cq, bool rc_like, uint32_t* msn, uint32_t qid, const Wqe& wqe, uint8_t status,
                            bool always);
  // A CQ doorbell (qtype 8); false when there is no such CQ.
  bool doorbell(uint32_t qid, uint8_t ring, uint16_t p_index);
  // An EQE on `eq_id` naming `cq_id`, then its interrupt (lost, logged, when there is no EQ).
  void post_eqe(uint32_t eq_id, uint32_t cq_id);

  uint64_t cqes() const { return cqes_; }
  uint64_t eqes() const { return eqes_; }

 private:
  Eq* find_eq(uint32_t qid);
  void fire(uint32_t cq_id, Cq& cq);

  Ports ports_;
  std::vector<Eq> eqs_;
  std::map<uint32_t, Cq> cqs_;
  uint64_t cqes_ = 0, eqes_ = 0;
};

}  // namespace dpusim::ionic
