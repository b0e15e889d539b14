// Receive (eth_queues.h): frames for the guest wait in the inbox (at most kInboxFrames,
// rocm-ernic's ETH_INBOX_MAX_FRAMES) and are delivered into RX queue 0's posted buffers in
// order: the descriptor read by DMA, the frame written into its buffer, a completion with the
// length, and the queue's interrupt asserted once no frame or no buffer is left. A frame longer
// than the buffer it would go into is dropped (EMSGSIZE) and the buffer stays posted; a frame
// that finds the inbox full is dropped (ENOSPC).
#include <memory>

#include "ionic/eth_queues.h"
#include "ionic/ionic_events.h"
#include "ionic/ionic_timing.h"
#include "ionic/le_bytes.h"

namespace dpusim::ionic {

namespace {
constexpr size_t kInboxFrames = 256;
}  // namespace

void note_frame_drop(pcie::SimContext& ctx, const std::string& path, NicFrame& frame, const char* reason) {
  if (frame.from_wire) ctx.checker.frame_dropped(reason);
  ctx.event(path, "frame_drop").str("reason", reason).u64("len", frame.bytes.size());
}

void EthQueues::ring_rx(uint32_t qid, uint16_t p_index) {
  EthQueue& q = queues_[IONIC_QTYPE_RXQ][qid];
  q.prod = uint16_t(p_index % q.depth);
  if (qid != 0) return;  // the producer only; frames go to queue 0 alone
  trace.rx_posted = q.pending();
  service_rxq();
}

void EthQueues::to_guest(NicFrame frame) {
  if (inbox_.size() >= kInboxFrames) {
    ++counters_.rx_dropped;
    return drop(frame, "rx_inbox_full");
  }
  inbox_.push_back(std::move(frame));
  trace.inbox = uint32_t(inbox_.size());
  service_rxq();
}

uint64_t EthQueues::wire_frames() const {
  uint64_t n = rx_in_dma_;
  for (const NicFrame& f : inbox_) n += f.from_wire ? 1 : 0;
  return n;
}

void EthQueues::service_rxq() {
  EthQueue& q = queues_[IONIC_QTYPE_RXQ][0];
  if (!q.valid || q.busy) return;
  q.busy = true;
  rx_next(false);
}

void EthQueues::rx_next(bool delivered) {
  EthQueue& q = queues_[IONIC_QTYPE_RXQ][0];
  if (inbox_.empty() || q.head == q.prod) {
    // A frame from the wire or a buffer from the host before the device's time continues the
    // pass (see tx_next).
    if (ports_.io.ahead()) return ports_.io.at_local_time([this, delivered] { rx_next(delivered); });
    q.busy = false;
    if (delivered) interrupt(q);
    return;
  }
  NicFrame frame = std::move(inbox_.front());
  inbox_.pop_front();
  trace.inbox = uint32_t(inbox_.size());
  if (frame.from_wire) ++rx_in_dma_;
  auto f = std::make_shared<NicFrame>(std::move(frame));
  ports_.io.after(ports_.ctx.ps(timing::rx_frame_ps), [this, f, delivered] {
    const EthQueue& q = queues_[IONIC_QTYPE_RXQ][0];
    const uint64_t desc_at = q.init.ring_base + uint64_t(q.head) * ETH_DESC_BYTES;
    ports_.io.gather({{desc_at, ETH_DESC_BYTES}}, [this, f, delivered](std::vector<uint8_t> desc, bool ok) {
      rx_deliver(f, delivered, std::move(desc), ok);
    });
  });
}

// The descriptor of the buffer the frame goes into has been read (or failed to be).
void EthQueues::rx_deliver(std::shared_ptr<NicFrame> f, bool delivered, std::vector<uint8_t> desc, bool ok) {
  EthQueue& q = queues_[IONIC_QTYPE_RXQ][0];
  if (f->from_wire) --rx_in_dma_;
  if (!ok) {
    ++counters_.rx_dropped;
    drop(*f, "rx_descriptor_read_failed");
    return rx_next(delivered);
  }
  const uint32_t cap = get_le16(desc.data() + RXQ_DESC_LEN);
  const uint64_t addr = get_le64(desc.data() + RXQ_DESC_ADDR);
  if (f->bytes.size() > cap) {
    ++counters_.rx_dropped;
    ports_.ctx.event(ports_.path, "rx_too_big").u64("len", f->bytes.size()).u64("capacity", cap).u64("index", q.head);
    drop(*f, "rx_buffer_too_small");
    return rx_next(delivered);
  }
  ports_.io.write(addr, f->bytes.data(), f->bytes.size());
  Comp comp{};
  put_le16(&comp[COMP_INDEX], q.head);
  put_le16(&comp[RXQ_COMP_LEN], uint16_t(f->bytes.size()));
  ports_.ctx.event(ports_.path, events::rx_frame).u64("index", q.head).u64("len", f->bytes.size());
  post_completion(q, ETH_COMP_BYTES, comp);
  q.head = uint16_t((q.head + 1) % q.depth);
  ++counters_.rx_frames;
  ++trace.rx_frames;
  trace.rx_posted = q.pending();
  if (f->from_wire) ports_.ctx.checker.frame_received();
  rx_next(true);
}

}  // namespace dpusim::ionic
