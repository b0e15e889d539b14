#include "guest/virtio_net_guest.h"

#include <algorithm>
#include <stdexcept>

#include "guest/guest_timing.h"
#include "net/frame.h"
#include "vnet/virtio/virtio_spec.h"

namespace dpusim::guest {

using namespace sc_core;
using namespace dpusim::virtio;

namespace {
// Tokens of transmit chains: a pool slot (the flag set), or a buffer the Python driver allocated
// before the hand-over, freed when the device is done with it.
constexpr uint64_t kPoolSlot = uint64_t(1) << 63;
}  // namespace

GuestNet::GuestNet(pcie::SimContext& ctx, host::RootComplex& host, pcie::TimedQueue& timer, uint64_t id,
                   GuestNetSpec spec)
    : GuestDatapath(ctx, host, timer, id, spec.name, spec.requester_id, unsigned(spec.qps.size()),
                    kTxSlotBytes - VIRTIO_NET_HDR_V1_SIZE),
      spec_(std::move(spec)) {
  if (spec_.rx_buf_len < VIRTIO_NET_HDR_V1_SIZE + net::kEthHeaderBytes)
    throw std::invalid_argument("receive buffers of " + std::to_string(spec_.rx_buf_len) + " bytes cannot hold a frame");
  for (auto& [rx, tx] : spec_.qps) {
    QueuePair p;
    p.rx = std::make_unique<Queue>(host_.memory, rx);
    p.tx = std::make_unique<Queue>(host_.memory, tx);
    const uint16_t n = tx.layout.size;
    p.pool = host_.memory.alloc(uint64_t(n) * kTxSlotBytes, 64);
    for (uint32_t s = 0; s < n; ++s) p.free_slots.push_back(n - 1 - s);  // slot 0 first (taken from the back)
    // Used transmit buffers are reclaimed as the driver goes: no interrupt needed for them.
    p.tx->ring.set_avail_flags(VRING_AVAIL_F_NO_INTERRUPT);
    qps_.push_back(std::move(p));
  }
  ctx_.event(spec_.name, "guest_attach").u64("queue_pairs", qps_.size()).u64("rx_buf_len", spec_.rx_buf_len);
}

void GuestNet::kick(const Queue& q) {
  host_.mem_write(q.notify, {uint8_t(q.index), uint8_t(q.index >> 8)}, [](pcie::Result&&) {});
}

bool GuestNet::on_msi(const host::MsiEvent& ev) {
  if (!attached() || ev.requester_id != requester_id_) return false;
  for (unsigned qp = 0; qp < qps_.size(); ++qp) {
    if (qps_[qp].rx->msi == ev.data) {
      poll_rx(qp);
      pump_all();
      return true;
    }
    if (qps_[qp].tx->msi == ev.data) {
      pump(qp);
      return true;
    }
  }
  return false;
}

void GuestNet::reclaim(QueuePair& p) {
  uint64_t token;
  uint32_t len;
  while (p.tx->ring.get(&token, &len)) {
    if (token & kPoolSlot) {
      p.free_slots.push_back(uint32_t(token & ~kPoolSlot));
    } else {
      host_.memory.free(token);
    }
  }
}

void GuestNet::pump(unsigned qp) {
  QueuePair& p = qps_[qp];
  reclaim(p);
  unsigned added = 0;
  bool stalled = false;
  tx_buf_.resize(kTxSlotBytes);
  while (has_frame(qp)) {
    if (p.free_slots.empty() || p.tx->ring.num_free() == 0) {
      stalled = true;
      break;
    }
    const uint32_t slot = p.free_slots.back();
    const uint64_t addr = p.pool + uint64_t(slot) * kTxSlotBytes;
    uint8_t* slot_bytes = tx_buf_.data();
    std::fill_n(slot_bytes, VIRTIO_NET_HDR_V1_SIZE, uint8_t(0));
    const size_t len = take_frame(qp, slot_bytes + VIRTIO_NET_HDR_V1_SIZE);
    host_.memory.write(addr, slot_bytes, VIRTIO_NET_HDR_V1_SIZE + len);
    const Buf b{addr, uint32_t(VIRTIO_NET_HDR_V1_SIZE + len)};
    p.tx->ring.add(&b, 1, 0, kPoolSlot | slot);
    p.free_slots.pop_back();
    if (++added == batch()) {
      kick(*p.tx);
      added = 0;
    }
  }
  if (added) kick(*p.tx);
  if (stalled && !poll_pending_) {
    poll_pending_ = true;
    timer_.at(ctx_.ps(timing::tx_poll_ps), [this] {
      poll_pending_ = false;
      pump_all();
    });
  }
}

void GuestNet::poll_rx(unsigned qp) {
  QueuePair& p = qps_[qp];
  DriverRing& ring = p.rx->ring;
  const bool mrg = spec_.mrg_rxbuf;
  uint64_t token;
  uint32_t len;
  while (ring.get(&token, &len)) {
    // Header and frame in the first buffer; with mergeable buffers num_buffers says how many
    // more hold the rest of the frame.
    std::vector<uint8_t>& buf = rx_buf_;
    buf.resize(len);
    host_.memory.read(token, buf.data(), len);
    const unsigned num = mrg && len >= VIRTIO_NET_HDR_V1_SIZE ? get_le16(&buf[VIRTIO_NET_HDR_NUM_BUFFERS]) : 1;
    p.rx_spare.push_back(token);
    for (unsigned k = 1; k < num; ++k) {
      uint64_t more;
      uint32_t more_len;
      if (!ring.get(&more, &more_len)) break;
      const size_t at = buf.size();
      buf.resize(at + more_len);
      host_.memory.read(more, buf.data() + at, more_len);
      p.rx_spare.push_back(more);
    }
    if (buf.size() >= VIRTIO_NET_HDR_V1_SIZE)
      deliver(qp, buf.data() + VIRTIO_NET_HDR_V1_SIZE, buf.size() - VIRTIO_NET_HDR_V1_SIZE);
  }
  // virtnet_poll refills once more than half of min(NAPI budget 64, ring size) is free, then
  // kicks (try_fill_recv): one kick per refill, not per frame.
  if (p.rx_spare.size() > std::min<size_t>(64, ring.layout().size) / 2) {
    for (uint64_t b : p.rx_spare) {
      const Buf rb{b, spec_.rx_buf_len};
      ring.add(&rb, 0, 1, b);
    }
    p.rx_spare.clear();
    kick(*p.rx);
  }
}

void GuestNet::fill_rx(unsigned qp, size_t count) {
  check_qp(qp);
  DriverRing& ring = qps_[qp].rx->ring;
  count = std::min(count, ring.num_free());
  if (!count) return;
  const uint64_t base = host_.memory.alloc(count * ((spec_.rx_buf_len + 63) / 64 * 64), 64);
  for (size_t k = 0; k < count; ++k) {
    const uint64_t b = base + k * ((spec_.rx_buf_len + 63) / 64 * 64);
    const Buf rb{b, spec_.rx_buf_len};
    ring.add(&rb, 0, 1, b);
  }
  kick(*qps_[qp].rx);
}

std::vector<std::pair<DriverRing::State, DriverRing::State>> GuestNet::states() const {
  std::vector<std::pair<DriverRing::State, DriverRing::State>> out;
  for (const QueuePair& p : qps_) out.emplace_back(p.rx->ring.state(), p.tx->ring.state());
  return out;
}

}  // namespace dpusim::guest
