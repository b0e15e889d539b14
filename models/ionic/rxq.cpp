// Receive: frames for the guest wait in the inbox (at most kInboxFrames, rocm-ernic's
// ETH_INBOX_MAX_FRAMES) and are delivered into RX queue 0's posted buffers in order: the
// descriptor read by DMA, the frame written into its buffer, a completion with the length,
// and the queue's interrupt asserted once no frame or no buffer is left. A frame longer than
// the buffer it would go into is dropped (EMSGSIZE) and the buffer stays posted; a frame that
// finds the inbox full is dropped (ENOSPC).
#include "ionic/ionic_events.h"
#include "ionic/ionic_nic.h"
#include "ionic/ionic_timing.h"
#include "ionic/le_bytes.h"

namespace dpusim::ionic {

namespace {
constexpr size_t kInboxFrames = 256;
}  // namespace

void IonicNic::frame_arrived(net::Frame wf) {
  NicFrame f{std::move(wf.bytes), wf.id, true};
  if (rx_slot_.offer(f)) return;  // the P4 pipeline has it
  to_guest(std::move(f));
}

void IonicNic::drop(NicFrame& frame, const char* reason) {
  if (frame.from_wire) ctx_.checker.frame_dropped(reason);
  ctx_.event(name(), "frame_drop").str("reason", reason).u64("len", frame.bytes.size());
}

void IonicNic::to_guest(NicFrame frame) {
  if (inbox_.size() >= kInboxFrames) {
    ++counters_.rx_dropped;
    return drop(frame, "rx_inbox_full");
  }
  inbox_.push_back(std::move(frame));
  trace_inbox_ = uint32_t(inbox_.size());
  service_rxq();
}

void IonicNic::service_rxq() {
  EthQueue& q = queues_[IONIC_QTYPE_RXQ][0];
  if (!q.valid || q.busy) return;
  q.busy = true;
  rx_next(false);
}

void IonicNic::rx_next(bool delivered) {
  EthQueue& q = queues_[IONIC_QTYPE_RXQ][0];
  if (inbox_.empty() || q.head == q.prod) {
    // A frame from the wire or a buffer from the host before the device's time continues the
    // pass (see tx_next).
    if (ahead()) return at_local_time([this, delivered] { rx_next(delivered); });
    q.busy = false;
    if (delivered) interrupt(q);
    return;
  }
  NicFrame frame = std::move(inbox_.front());
  inbox_.pop_front();
  trace_inbox_ = uint32_t(inbox_.size());
  if (frame.from_wire) ++rx_in_dma_;
  auto f = std::make_shared<NicFrame>(std::move(frame));
  after(ctx_.ps(timing::rx_frame_ps), [this, f, delivered] {
    EthQueue& q = queues_[IONIC_QTYPE_RXQ][0];
    const uint64_t desc_at = q.init.ring_base + uint64_t(q.head) * ETH_DESC_BYTES;
    dma().read(desc_at, ETH_DESC_BYTES, [this, f, delivered](pcie::Result&& r) {
      EthQueue& q = queues_[IONIC_QTYPE_RXQ][0];
      if (f->from_wire) --rx_in_dma_;
      if (r.outcome != pcie::Outcome::SC) {
        ++counters_.rx_dropped;
        drop(*f, "rx_descriptor_read_failed");
        return rx_next(delivered);
      }
      const uint32_t cap = get_le16(r.data.data() + RXQ_DESC_LEN);
      const uint64_t addr = get_le64(r.data.data() + RXQ_DESC_ADDR);
      if (f->bytes.size() > cap) {
        ++counters_.rx_dropped;
        ctx_.event(name(), "rx_too_big").u64("len", f->bytes.size()).u64("capacity", cap).u64("index", q.head);
        drop(*f, "rx_buffer_too_small");
        return rx_next(delivered);
      }
      dma().write(addr, f->bytes.data(), f->bytes.size());
      Comp comp{};
      put_le16(&comp[COMP_INDEX], q.head);
      put_le16(&comp[RXQ_COMP_LEN], uint16_t(f->bytes.size()));
      ctx_.event(name(), events::rx_frame).u64("index", q.head).u64("len", f->bytes.size());
      post_completion(q, ETH_COMP_BYTES, comp);
      q.head = uint16_t((q.head + 1) % q.depth);
      ++counters_.rx_frames;
      ++trace_rx_frames_;
      trace_rx_posted_ = uint16_t(q.prod - q.head) % q.depth;
      if (f->from_wire) ctx_.checker.frame_received();
      rx_next(true);
    });
  });
}

}  // namespace dpusim::ionic
