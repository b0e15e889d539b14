// Transmit (eth_queues.h): descriptors from the ring in guest memory, from the device's head up
// to the producer index the doorbell gave; each frame gathered by DMA (the head fragment at the
// descriptor's address, the rest from its scatter-gather list) and handed to the NIC's
// transmit path; a completion written for every descriptor, gathered or not (without one the
// driver's watchdog resets the queue), and the queue's interrupt asserted once the pass is done
// (rocm-ernic's eth_txq_service).
#include "ionic/eth_queues.h"
#include "ionic/ionic_events.h"
#include "ionic/ionic_timing.h"
#include "ionic/le_bytes.h"

namespace dpusim::ionic {

void EthQueues::ring_tx(uint32_t qid, uint16_t p_index) {
  EthQueue& q = queues_[IONIC_QTYPE_TXQ][qid];
  q.prod = uint16_t(p_index % q.depth);
  trace.tx_pending = q.pending();
  service_txq(qid);
}

void EthQueues::service_txq(uint32_t qid) {
  EthQueue& q = queues_[IONIC_QTYPE_TXQ][qid];
  if (q.busy) return;
  q.busy = true;
  tx_next(qid);
}

void EthQueues::tx_next(uint32_t qid) {
  EthQueue& q = queues_[IONIC_QTYPE_TXQ][qid];
  if (q.head == q.prod) {
    // Nothing more to send: decided at the device's time, which in lt mode may be ahead of the
    // kernel's. A doorbell the host rings before then (at the kernel's time) continues the pass.
    if (ports_.io.ahead()) return ports_.io.at_local_time([this, qid] { tx_next(qid); });
    q.busy = false;
    trace.tx_pending = 0;
    return interrupt(q);
  }
  ports_.io.after(ports_.ctx.ps(timing::tx_desc_ps), [this, qid] {
    tx_gather(qid, [this, qid](std::vector<uint8_t> frame, const char* error) {
      EthQueue& q = queues_[IONIC_QTYPE_TXQ][qid];
      if (error) {
        ++counters_.tx_errors;
        ports_.ctx.event(ports_.path, "tx_error").u64("qid", qid).u64("index", q.head).str("reason", error);
      } else {
        ++counters_.tx_frames;
        ++trace.tx_frames;
        ports_.ctx.event(ports_.path, events::tx_frame).u64("qid", qid).u64("index", q.head).u64("len", frame.size());
        ports_.transmit(NicFrame{std::move(frame), 0, false});
      }
      tx_complete(qid);
    });
  });
}

void EthQueues::tx_complete(uint32_t qid) {
  EthQueue& q = queues_[IONIC_QTYPE_TXQ][qid];
  Comp comp{};
  put_le16(&comp[COMP_INDEX], q.head);
  post_completion(q, ETH_COMP_BYTES, comp);
  q.head = uint16_t((q.head + 1) % q.depth);
  tx_next(qid);
}

void EthQueues::gather(uint64_t head, uint32_t head_len, std::vector<BusRun> rest, TxGatherDone done) {
  rest.insert(rest.begin(), BusRun{head, head_len});
  ports_.io.gather(std::move(rest), [done = std::move(done)](std::vector<uint8_t> bytes, bool ok) {
    if (!ok) return done({}, "fragment read failed");
    done(std::move(bytes), nullptr);
  });
}

void EthQueues::tx_gather(uint32_t qid, TxGatherDone done) {
  const EthQueue& q = queues_[IONIC_QTYPE_TXQ][qid];
  const uint16_t index = q.head;
  const uint64_t sg_at = q.init.sg_ring_base + uint64_t(index) * TXQ_SG_DESC_BYTES;
  ports_.io.gather({{q.init.ring_base + uint64_t(index) * ETH_DESC_BYTES, ETH_DESC_BYTES}},
                   [this, sg_at, done = std::move(done)](std::vector<uint8_t> desc, bool ok) mutable {
    if (!ok) return done({}, "descriptor read failed");
    const uint64_t cmd = get_le64(desc.data());
    const uint32_t len = get_le16(desc.data() + TXQ_DESC_LEN);
    const unsigned nsge = unsigned(cmd >> IONIC_TXQ_DESC_NSGE_SHIFT) & 0xf;
    const uint64_t addr = cmd >> IONIC_TXQ_DESC_ADDR_SHIFT;
    if (len == 0) return done({}, "descriptor length 0");
    if (len > IONIC_ETH_FRAME_MAX) return done({}, "frame longer than 9600 bytes");
    if (nsge > IONIC_TX_MAX_SG_ELEMS) return done({}, "more than 8 scatter-gather elements");
    if (nsge == 0) return gather(addr, len, {}, std::move(done));
    ports_.io.gather({{sg_at, nsge * TXQ_SG_ELEM_BYTES}},
                     [this, addr, len, nsge, done = std::move(done)](std::vector<uint8_t> sgl, bool ok) mutable {
      if (!ok) return done({}, "scatter-gather list read failed");
      std::vector<BusRun> frags;
      uint64_t sg_total = 0;
      for (unsigned i = 0; i < nsge; ++i) {
        const uint8_t* e = sgl.data() + i * TXQ_SG_ELEM_BYTES;
        const uint32_t elen = get_le16(e + TXQ_SG_ELEM_LEN);
        sg_total += elen;
        if (elen) frags.push_back({get_le64(e), elen});
      }
      // The head fragment is what the list does not cover, and must not be empty.
      if (sg_total >= len) return done({}, "scatter-gather elements cover the whole frame length");
      gather(addr, uint32_t(len - sg_total), std::move(frags), std::move(done));
    });
  });
}

// ---- Completions -----------------------------------------------------------------------------

void EthQueues::post_completion(EthQueue& q, uint32_t bytes, Comp comp) {
  comp[COMP_COLOR] = uint8_t((comp[COMP_COLOR] & ~IONIC_COMP_COLOR_MASK) | (q.color ? IONIC_COMP_COLOR_MASK : 0));
  ports_.io.write(q.comp_addr(bytes), comp.data(), std::min<size_t>(bytes, comp.size()));
  q.advance_cq();
  ports_.credit(q.init.intr_index);
}

void EthQueues::q_init(const QInit& init, Comp& comp) {
  // The completion names the queue whatever happens: hw_index = its index, hw_type = its type.
  put_le32(&comp[Q_INIT_COMP_HW_INDEX], init.index);
  comp[Q_INIT_COMP_HW_TYPE] = init.type;
  std::string reason;
  if (!init.storable(&reason)) {
    ports_.ctx.event(ports_.path, "q_init_ignored").u64("type", init.type).u64("index", init.index).str("reason", reason);
    return;
  }
  EthQueue& q = queues_[init.type][init.index];
  const bool busy = q.busy;  // a service pass still running continues on the new ring
  q = EthQueue{};
  q.valid = true;
  q.init = init;
  q.depth = uint16_t(1u << init.ring_size);
  q.busy = busy;
  ports_.ctx.event(ports_.path, "q_init").u64("type", init.type).u64("index", init.index).u64("depth", q.depth)
      .u64("intr", init.intr_index).hex("flags", init.flags).hex("ring", init.ring_base).hex("cq_ring", init.cq_ring_base);
}

}  // namespace dpusim::ionic
