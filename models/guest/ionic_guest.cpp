#include "guest/ionic_guest.h"

#include <algorithm>
#include <stdexcept>

#include "guest/guest_timing.h"
#include "ionic/ionic_if.h"
#include "net/frame.h"
#include "tlm/bytes.h"

namespace dpusim::guest {

using namespace dpusim::ionic;

namespace {

void check_queue(const IonicGuestQueue& q, const std::string& what) {
  if (q.depth < 2 || (q.depth & (q.depth - 1)))
    throw std::invalid_argument(what + ": depth " + std::to_string(q.depth) + " is not a power of two in 2..32768");
  if (q.head >= q.depth || q.tail >= q.depth || q.cq_tail >= q.depth)
    throw std::invalid_argument(what + ": an index outside its ring of " + std::to_string(q.depth));
  if (q.bufs.size() != q.depth)
    throw std::invalid_argument(what + ": " + std::to_string(q.bufs.size()) + " buffers for " +
                                std::to_string(q.depth) + " descriptors");
}

}  // namespace

IonicGuest::IonicGuest(pcie::SimContext& ctx, host::RootComplex& host, pcie::TimedQueue& timer, uint64_t id,
                       IonicGuestSpec spec)
    : GuestDatapath(ctx, host, timer, id, spec.name, spec.requester_id, unsigned(spec.qps.size()), spec.rx_buf_len),
      spec_(std::move(spec)) {
  if (spec_.rx_buf_len < net::kEthHeaderBytes || spec_.rx_buf_len > kTxSlotBytes)
    throw std::invalid_argument("receive buffers of " + std::to_string(spec_.rx_buf_len) + " bytes: outside " +
                                std::to_string(net::kEthHeaderBytes) + ".." + std::to_string(kTxSlotBytes));
  for (size_t i = 0; i < spec_.qps.size(); ++i) {
    const IonicGuestQueuePair& s = spec_.qps[i];
    check_queue(s.tx, "TX queue " + std::to_string(s.tx.qid));
    check_queue(s.rx, "RX queue " + std::to_string(s.rx.qid));
    QueuePair p;
    p.tx = Ring{s.tx, IONIC_QTYPE_TXQ};
    p.rx = Ring{s.rx, IONIC_QTYPE_RXQ};
    p.msi_data = s.msi_data;
    p.intr = s.intr;
    p.pool = host_.memory.alloc(uint64_t(s.tx.depth) * kTxSlotBytes, 64);
    // The pool's buffers are the descriptors' own: only the Python driver's in-flight ones are
    // buffers to free.
    qps_.push_back(std::move(p));
  }
  buf_.resize(kTxSlotBytes);
  ctx_.event(spec_.name, "guest_attach").u64("queue_pairs", qps_.size()).u64("rx_buf_len", spec_.rx_buf_len);
}

void IonicGuest::mmio_write(uint64_t addr, uint64_t value, size_t bytes) {
  std::vector<uint8_t> b(bytes);
  bytes::put_le(b.data(), value, bytes);
  host_.mem_write(addr, std::move(b), [](pcie::Result&&) {});
}

void IonicGuest::doorbell(const Ring& r) {
  // ionic_dbell_ring: qid << 24 | ring 0 << 16 | p_index, the qid's high bits above bit 32.
  const uint64_t value = uint64_t(r.q.qid & 0xff) << IONIC_DBELL_QID_SHIFT | r.q.head | uint64_t(r.q.qid >> 8) << 32;
  mmio_write(spec_.doorbell_page + 8 * r.qtype, value, 8);
}

bool IonicGuest::next_completion(Ring& r) {
  host_.memory.read(r.q.cq_ring + uint64_t(r.q.cq_tail) * ETH_COMP_BYTES, comp_, ETH_COMP_BYTES);
  if (bool(comp_[COMP_COLOR] & IONIC_COMP_COLOR_MASK) != r.q.done_color) return false;
  r.q.cq_tail = uint16_t((r.q.cq_tail + 1) & (r.q.depth - 1));
  if (r.q.cq_tail == 0) r.q.done_color = !r.q.done_color;
  return true;
}

unsigned IonicGuest::reclaim(QueuePair& p) {
  // ionic_tx_service: each completion names the last descriptor it completes.
  Ring& tx = p.tx;
  unsigned completions = 0;
  while (next_completion(tx)) {
    ++completions;
    const uint16_t index = uint16_t(bytes::get_le16(comp_ + COMP_INDEX) & (tx.q.depth - 1));
    while (true) {
      const uint16_t done = tx.q.tail;
      if (tx.q.bufs[done]) {
        host_.memory.free(tx.q.bufs[done]);
        tx.q.bufs[done] = 0;
      }
      tx.q.tail = uint16_t((tx.q.tail + 1) & (tx.q.depth - 1));
      if (done == index || tx.q.tail == tx.q.head) break;
    }
  }
  return completions;
}

void IonicGuest::pump(unsigned qp) {
  QueuePair& p = qps_[qp];
  reclaim(p);
  Ring& tx = p.tx;
  unsigned added = 0;
  bool stalled = false;
  uint8_t desc[ETH_DESC_BYTES];
  while (has_frame(qp)) {
    if (tx.space() == 0) {
      stalled = true;
      break;
    }
    const uint64_t addr = p.pool + uint64_t(tx.q.head) * kTxSlotBytes;
    const size_t len = take_frame(qp, buf_.data());
    host_.memory.write(addr, buf_.data(), len);
    std::fill_n(desc, sizeof desc, uint8_t(0));
    bytes::put_le(desc, addr << IONIC_TXQ_DESC_ADDR_SHIFT, 8);  // opcode CSUM_NONE (0), no SG elements
    bytes::put_le(desc + TXQ_DESC_LEN, len, 2);
    host_.memory.write(tx.q.ring + uint64_t(tx.q.head) * ETH_DESC_BYTES, desc, sizeof desc);
    tx.q.head = uint16_t((tx.q.head + 1) & (tx.q.depth - 1));
    if (++added == batch()) {
      doorbell(tx);
      added = 0;
    }
  }
  if (added) doorbell(tx);
  if (stalled && !poll_pending_) {
    poll_pending_ = true;
    timer_.at(ctx_.ps(timing::tx_poll_ps), [this] {
      poll_pending_ = false;
      pump_all();
    });
  }
}

void IonicGuest::post_rx(QueuePair& p) {
  // ionic_rx_fill for one descriptor: its buffer (kept in place), length, address.
  Ring& rx = p.rx;
  uint64_t& buf = rx.q.bufs[rx.q.head];
  if (!buf) buf = host_.memory.alloc(spec_.rx_buf_len, 64);
  uint8_t desc[ETH_DESC_BYTES] = {};
  bytes::put_le(desc + RXQ_DESC_LEN, spec_.rx_buf_len, 2);
  bytes::put_le(desc + RXQ_DESC_ADDR, buf, 8);
  host_.memory.write(rx.q.ring + uint64_t(rx.q.head) * ETH_DESC_BYTES, desc, sizeof desc);
  rx.q.head = uint16_t((rx.q.head + 1) & (rx.q.depth - 1));
}

unsigned IonicGuest::poll_rx(unsigned qp) {
  QueuePair& p = qps_[qp];
  Ring& rx = p.rx;
  unsigned work = 0;
  while (next_completion(rx)) {
    const uint16_t index = uint16_t(bytes::get_le16(comp_ + COMP_INDEX) & (rx.q.depth - 1));
    const uint16_t len = bytes::get_le16(comp_ + RXQ_COMP_LEN);
    const uint64_t buf = rx.q.bufs[index];
    if (comp_[COMP_STATUS] == 0 && buf && len <= spec_.rx_buf_len) {
      host_.memory.read(buf, buf_.data(), len);
      deliver(qp, buf_.data(), len);
    } else {
      ++rx_errors_;  // ionic_rx_service: a bad status or length drops the frame
    }
    rx.q.tail = uint16_t((index + 1) & (rx.q.depth - 1));
    post_rx(p);
    ++work;
  }
  if (work) doorbell(rx);
  return work;
}

bool IonicGuest::on_msi(const host::MsiEvent& ev) {
  if (!attached() || ev.requester_id != requester_id_) return false;
  for (unsigned qp = 0; qp < qps_.size(); ++qp) {
    QueuePair& p = qps_[qp];
    if (p.msi_data != ev.data) continue;
    // ionic_txrx_napi: TX completions, RX completions, then the credits back with a re-arm.
    const unsigned work = reclaim(p) + poll_rx(qp);
    mmio_write(spec_.intr_ctrl + uint64_t(p.intr) * IONIC_INTR_CTRL_BYTES + INTR_CTRL_CREDITS,
               (work & IONIC_INTR_CRED_COUNT) | IONIC_INTR_CRED_UNMASK | IONIC_INTR_CRED_RESET_COALESCE, 4);
    pump_all();
    return true;
  }
  return false;
}

}  // namespace dpusim::guest
