// Transmit: descriptors from the ring in guest memory, from the device's head up to the
// producer index the doorbell gave; each frame gathered by DMA (the head fragment at the
// descriptor's address, the rest from its scatter-gather list), offered to the transmit filter
// slot and otherwise put on the uplink wire; a completion written for every descriptor,
// gathered or not (without one the driver's watchdog resets the queue), and the queue's
// interrupt asserted once the pass is done (rocm-ernic's eth_txq_service).
#include "ionic/dma_io.h"
#include "ionic/ionic_events.h"
#include "ionic/ionic_nic.h"
#include "ionic/ionic_timing.h"
#include "ionic/le_bytes.h"
#include "net/wire.h"

namespace dpusim::ionic {


void IonicNic::service_txq(uint32_t qid) {
  EthQueue& q = queues_[IONIC_QTYPE_TXQ][qid];
  if (q.busy) return;
  q.busy = true;
  tx_next(qid);
}

void IonicNic::tx_next(uint32_t qid) {
  EthQueue& q = queues_[IONIC_QTYPE_TXQ][qid];
  if (q.head == q.prod) {
    // Nothing more to send: decided at the device's time, which in lt mode may be ahead of the
    // kernel's. A doorbell the host rings before then (at the kernel's time) continues the pass.
    if (ahead()) return at_local_time([this, qid] { tx_next(qid); });
    q.busy = false;
    trace_tx_pending_ = 0;
    return interrupt(q);
  }
  after(ctx_.ps(timing::tx_desc_ps), [this, qid] {
    tx_gather(qid, [this, qid](std::vector<uint8_t> frame, const char* error) {
      EthQueue& q = queues_[IONIC_QTYPE_TXQ][qid];
      if (error) {
        ++counters_.tx_errors;
        ctx_.event(name(), "tx_error").u64("qid", qid).u64("index", q.head).str("reason", error);
      } else {
        ++counters_.tx_frames;
        ++trace_tx_frames_;
        ctx_.event(name(), events::tx_frame).u64("qid", qid).u64("index", q.head).u64("len", frame.size());
        from_guest(NicFrame{std::move(frame), 0, false});
      }
      tx_complete(qid);
    });
  });
}

void IonicNic::tx_complete(uint32_t qid) {
  EthQueue& q = queues_[IONIC_QTYPE_TXQ][qid];
  Comp comp{};
  put_le16(&comp[COMP_INDEX], q.head);
  post_completion(q, ETH_COMP_BYTES, comp);
  q.head = uint16_t((q.head + 1) % q.depth);
  tx_next(qid);
}

void IonicNic::gather(uint64_t head, uint32_t head_len, std::vector<BusRun> rest, TxGatherDone done) {
  rest.insert(rest.begin(), BusRun{head, head_len});
  dma_gather(dma(), std::move(rest), [done = std::move(done)](std::vector<uint8_t> bytes, bool ok) {
    if (!ok) return done({}, "fragment read failed");
    done(std::move(bytes), nullptr);
  });
}

void IonicNic::tx_gather(uint32_t qid, TxGatherDone done) {
  const EthQueue& q = queues_[IONIC_QTYPE_TXQ][qid];
  const uint16_t index = q.head;
  const uint64_t sg_at = q.init.sg_ring_base + uint64_t(index) * TXQ_SG_DESC_BYTES;
  dma().read(q.init.ring_base + uint64_t(index) * ETH_DESC_BYTES, ETH_DESC_BYTES,
             [this, sg_at, done = std::move(done)](pcie::Result&& r) mutable {
    if (r.outcome != pcie::Outcome::SC) return done({}, "descriptor read failed");
    const uint64_t cmd = get_le64(r.data.data());
    const uint32_t len = get_le16(r.data.data() + TXQ_DESC_LEN);
    const unsigned nsge = unsigned(cmd >> IONIC_TXQ_DESC_NSGE_SHIFT) & 0xf;
    const uint64_t addr = cmd >> IONIC_TXQ_DESC_ADDR_SHIFT;
    if (len == 0) return done({}, "descriptor length 0");
    if (len > IONIC_ETH_FRAME_MAX) return done({}, "frame longer than 9600 bytes");
    if (nsge > IONIC_TX_MAX_SG_ELEMS) return done({}, "more than 8 scatter-gather elements");
    if (nsge == 0) return gather(addr, len, {}, std::move(done));
    dma().read(sg_at, nsge * TXQ_SG_ELEM_BYTES, [this, addr, len, nsge, done = std::move(done)](pcie::Result&& r) mutable {
      if (r.outcome != pcie::Outcome::SC) return done({}, "scatter-gather list read failed");
      std::vector<BusRun> frags;
      uint64_t sg_total = 0;
      for (unsigned i = 0; i < nsge; ++i) {
        const uint8_t* e = r.data.data() + i * TXQ_SG_ELEM_BYTES;
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

void IonicNic::from_guest(NicFrame frame) {
  if (tx_slot_.offer(frame)) return;  // the in-band endpoint or the P4 pipeline has it
  if (!to_uplink(frame)) {
    // No peer: rocm-ernic's transmit is a sink.
    ctx_.event(name(), "frame_drop").str("reason", "no_uplink").u64("len", frame.bytes.size());
  }
}

bool IonicNic::to_uplink(NicFrame& frame) {
  if (!wire) return false;
  if (frame.from_wire) ctx_.checker.frame_received();  // consumed here; the wire counts the new one
  ++counters_.to_wire;
  wire->send(*this, std::move(frame.bytes), dma().local_offset());
  return true;
}

}  // namespace dpusim::ionic
