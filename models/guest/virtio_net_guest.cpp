#include "guest/virtio_net_guest.h"

#include <algorithm>
#include <stdexcept>

#include "guest/guest_timing.h"
#include "net/frame.h"
#include "vnet/virtio_spec.h"

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
    : ctx_(ctx), host_(host), timer_(timer), id_(id), spec_(std::move(spec)) {
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
  if (!attached_ || ev.requester_id != spec_.requester_id) return false;
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

bool GuestNet::traffic_window_full(unsigned qp) const {
  // At most a ring's worth of a flow's frames between its transmit and its receive, so that a
  // loopback cannot overrun the device's receive FIFO.
  const QueuePair& p = qps_[qp];
  const uint64_t back = qp < flow_received_.size() ? flow_received_[qp] : 0;
  return p.sent - back >= p.tx->ring.layout().size;
}

void GuestNet::pump(unsigned qp) {
  QueuePair& p = qps_[qp];
  reclaim(p);
  unsigned added = 0;
  bool stalled = false;
  tx_buf_.resize(kTxSlotBytes);
  while (true) {
    const bool from_python = !p.backlog.empty();
    const bool from_source = !from_python && traffic_ && p.sent < p.quota && p.allowance > 0 && !traffic_window_full(qp);
    if (!from_python && !from_source) break;
    if (p.free_slots.empty() || p.tx->ring.num_free() == 0) {
      stalled = true;
      break;
    }
    const uint32_t slot = p.free_slots.back();
    const uint64_t addr = p.pool + uint64_t(slot) * kTxSlotBytes;
    uint8_t* slot_bytes = tx_buf_.data();
    std::fill_n(slot_bytes, VIRTIO_NET_HDR_V1_SIZE, uint8_t(0));
    size_t len;
    if (from_python) {
      len = p.backlog.front().size();
      std::copy(p.backlog.front().begin(), p.backlog.front().end(), slot_bytes + VIRTIO_NET_HDR_V1_SIZE);
      p.backlog.pop_front();
    } else {
      len = source_->next(uint16_t(qp), ctx_.now_ps(), slot_bytes + VIRTIO_NET_HDR_V1_SIZE);
      if (p.sent == 0 && result_.start_ps == 0) result_.start_ps = ctx_.now_ps();
      ++p.sent;
      --p.allowance;
      ++result_.sent;
      result_.bytes_sent += len;
    }
    host_.memory.write(addr, slot_bytes, VIRTIO_NET_HDR_V1_SIZE + len);
    const Buf b{addr, uint32_t(VIRTIO_NET_HDR_V1_SIZE + len)};
    p.tx->ring.add(&b, 1, 0, kPoolSlot | slot);
    p.free_slots.pop_back();
    ++tx_frames_;
    if (++added == (traffic_ ? traffic_->batch : 64u)) {
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

void GuestNet::detach() {
  if (!attached_) return;
  attached_ = false;
  ctx_.event(spec_.name, "guest_detach").u64("tx_frames", tx_frames_).u64("rx_frames", rx_frames_);
}

void GuestNet::pump_all() {
  if (!attached_) return;
  for (unsigned qp = 0; qp < qps_.size(); ++qp) pump(qp);
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
    const unsigned num = mrg && len >= VIRTIO_NET_HDR_V1_SIZE ? le16(&buf[VIRTIO_NET_HDR_NUM_BUFFERS]) : 1;
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

void GuestNet::deliver(unsigned qp, const uint8_t* frame, size_t len) {
  ++rx_frames_;
  if (traffic_ && checker_) {
    checker_->check(qp, frame, len, ctx_.now_ps());
    if (len >= net::kTrafficHeaderBytes) {
      const uint16_t flow = uint16_t(frame[22] | frame[23] << 8);
      if (flow >= flow_received_.size()) flow_received_.resize(size_t(flow) + 1, 0);
      ++flow_received_[flow];
    }
    result_.received = checker_->received();
    if (result_.received >= traffic_->frames && !result_.done) {
      result_.done = true;
      result_.running = false;
      result_.end_ps = ctx_.now_ps();
      ctx_.event(spec_.name, "traffic_done")
          .u64("frames", traffic_->frames)
          .u64("good", checker_->counts().good)
          .u64("bad", result_.received - checker_->counts().good)
          .u64("start_ps", result_.start_ps);
      post(kTrafficDone);
    }
    return;
  }
  received_.emplace_back(qp, std::vector<uint8_t>(frame, frame + len));
  if (ready_target_ && received_.size() >= ready_target_) {
    ready_target_ = 0;
    post(kFramesReady);
  }
}

void GuestNet::post(int what, uint64_t value) {
  pcie::Notification n(kGuestNotification);
  n.token = id_;
  n.status = what;
  n.address = value;
  ctx_.post(std::move(n));
}

void GuestNet::send(unsigned qp, std::vector<std::vector<uint8_t>> frames) {
  if (qp >= qps_.size())
    throw std::invalid_argument("queue pair " + std::to_string(qp) + " outside 0.." + std::to_string(qps_.size() - 1));
  for (const auto& f : frames)
    if (f.size() < net::kEthHeaderBytes || f.size() > kTxSlotBytes - VIRTIO_NET_HDR_V1_SIZE)
      throw std::invalid_argument("a frame of " + std::to_string(f.size()) + " bytes is outside " +
                                  std::to_string(net::kEthHeaderBytes) + ".." +
                                  std::to_string(kTxSlotBytes - VIRTIO_NET_HDR_V1_SIZE));
  for (auto& f : frames) qps_[qp].backlog.push_back(std::move(f));
  pump(qp);
}

void GuestNet::notify_when_received(uint64_t count) {
  if (received_.size() >= count) {
    post(kFramesReady);
    return;
  }
  ready_target_ = count;
}

std::vector<std::pair<unsigned, std::vector<uint8_t>>> GuestNet::take(size_t max) {
  std::vector<std::pair<unsigned, std::vector<uint8_t>>> out;
  while (!received_.empty() && out.size() < max) {
    out.push_back(std::move(received_.front()));
    received_.pop_front();
  }
  return out;
}

void GuestNet::fill_rx(unsigned qp, size_t count) {
  if (qp >= qps_.size())
    throw std::invalid_argument("queue pair " + std::to_string(qp) + " outside 0.." + std::to_string(qps_.size() - 1));
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

void GuestNet::start_traffic(const TrafficSpec& spec) {
  if (traffic_ && !result_.done) throw std::logic_error(spec_.name + ": a traffic run is already going");
  if (spec.frames == 0) throw std::invalid_argument("a traffic run of 0 frames");
  if (spec.batch == 0) throw std::invalid_argument("a batch of 0 frames");
  if (spec.qps.empty()) throw std::invalid_argument("no queue pair to send on");
  for (unsigned qp : spec.qps)
    if (qp >= qps_.size())
      throw std::invalid_argument("queue pair " + std::to_string(qp) + " outside 0.." + std::to_string(qps_.size() - 1));
  const size_t largest = std::min<size_t>(kTxSlotBytes - VIRTIO_NET_HDR_V1_SIZE, 65535);
  spec.sizes.check(net::kTrafficHeaderBytes, largest);
  const std::string stream = spec_.name + ".traffic" + std::to_string(runs_++);
  traffic_ = spec;
  // The payload key and the sizes come from the platform's stream for this run.
  pcie::Rng rng = ctx_.rng(stream);
  const uint64_t key = rng.next();
  source_ = std::make_unique<net::FrameSource>(key, rng, spec.sizes, spec.dst, spec.src);
  checker_ = std::make_unique<net::FrameChecker>(key);
  result_ = TrafficResult{};
  result_.running = true;
  result_.frames = spec.frames;
  flow_received_.assign(qps_.size(), 0);
  for (QueuePair& p : qps_) p.quota = p.sent = p.allowance = 0;
  for (size_t k = 0; k < spec.qps.size(); ++k)
    qps_[spec.qps[k]].quota += spec.frames / spec.qps.size() + (k < spec.frames % spec.qps.size() ? 1 : 0);
  ctx_.event(spec_.name, "traffic_start")
      .u64("frames", spec.frames)
      .str("sizes", spec.sizes.describe())
      .u64("rate_fps", spec.rate_fps)
      .u64("batch", spec.batch)
      .u64("queue_pairs", spec.qps.size());
  for (unsigned qp : spec.qps) tick(qp);
}

void GuestNet::tick(unsigned qp) {
  QueuePair& p = qps_[qp];
  if (!attached_ || !traffic_ || result_.done || p.sent >= p.quota) {
    p.ticking = false;
    return;
  }
  if (traffic_->rate_fps == 0) {
    p.allowance = UINT64_MAX;
    pump(qp);
    return;
  }
  // A batch every batch/rate seconds.
  p.allowance += traffic_->batch;
  pump(qp);
  p.ticking = true;
  const uint64_t period = (uint64_t(traffic_->batch) * 1000000000000ull + traffic_->rate_fps - 1) / traffic_->rate_fps;
  timer_.at(sc_time::from_value(period), [this, qp] { tick(qp); });
}

TrafficResult GuestNet::traffic() const {
  TrafficResult r = result_;
  if (checker_) {
    r.checked = checker_->counts();
    r.first_problem = checker_->first_problem();
    r.missing = 0;
    for (unsigned qp = 0; qp < qps_.size(); ++qp) r.missing += checker_->missing(uint16_t(qp), qps_[qp].sent);
  }
  return r;
}

std::vector<std::pair<DriverRing::State, DriverRing::State>> GuestNet::states() const {
  std::vector<std::pair<DriverRing::State, DriverRing::State>> out;
  for (const QueuePair& p : qps_) out.emplace_back(p.rx->ring.state(), p.tx->ring.state());
  return out;
}

}  // namespace dpusim::guest
