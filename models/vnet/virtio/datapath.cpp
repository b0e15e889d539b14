// The offload engine's datapath on split rings (see vnet_engine.h): one queue is serviced
// at a time per queue, entry after entry, each step a DMA whose completion continues it.
// Its own delays go through after() and its frames leave at the local time, so in lt mode
// (tlm/dma.h) the whole chain runs temporally decoupled on the endpoint's quantum keeper.
#include "net/wire.h"
#include "vnet/virtio/virtio_spec.h"
#include "vnet/virtio/vnet_engine.h"
#include "vnet/app/vnet_timing.h"

namespace dpusim::vnet {

using namespace sc_core;
using namespace dpusim::virtio;

namespace datapath_event {
const pcie::EventCategory vq("vq", false, "the virtio-net datapath's per-frame events: doorbells, frames taken "
                                          "from and put in virtqueues, used-ring updates, their interrupts, drops");
const pcie::EventKind doorbell("doorbell", vq), vq_frame("vq_frame", vq), vq_used("vq_used", vq),
    vq_interrupt("vq_interrupt", vq), rx_drop("rx_drop", vq), tx_drop("tx_drop", vq);
}  // namespace datapath_event

namespace {
// The largest transmit chain read (a TSO frame of 64 KiB and its header); longer ones are
// dropped unread rather than allocated.
constexpr size_t kMaxTxChainBytes = 65536 + VIRTIO_NET_HDR_V1_SIZE;
}  // namespace

void VnetEngine::service(Vq& vq) {
  if (!running(vq)) return;
  if (vq.busy) {
    vq.again = true;
    return;
  }
  vq.busy = true;
  vq.again = false;
  const uint16_t size = vq.ring.conf().size;
  if (size == 0 || (size & (size - 1)) || size > 32768)
    return device_error(vq, "queue size " + std::to_string(size) + " is not a power of 2 in 1..32768");
  vq.ring.read_avail([this, &vq](uint16_t flags, uint16_t idx, const std::string& error) {
    if (!error.empty()) return device_error(vq, error);
    const uint16_t ahead = uint16_t(idx - vq.last_avail);
    if (ahead > vq.ring.conf().size)
      return device_error(vq, "avail idx " + std::to_string(idx) + " is " + std::to_string(ahead) +
                                  " entries ahead of the device, more than the queue size " +
                                  std::to_string(vq.ring.conf().size));
    vq.avail_flags = flags;
    vq.avail_idx = idx;
    next_entry(vq);
  });
}

void VnetEngine::service_done(Vq& vq) {
  // Nothing more to do: decided at the device's time, which in lt mode may be ahead of the
  // kernel's. A kick or a frame from the wire before then (at the kernel's time) continues the
  // pass, as in tlp mode, instead of starting a second pass in the first one's past.
  if (host_.ahead() && !vq.again) return at_local_time([this, &vq] { service_done(vq); });
  vq.busy = false;
  if (vq.again) service(vq);
}

void VnetEngine::next_entry(Vq& vq) {
  if (!running(vq)) {
    vq.busy = false;
    return;
  }
  if (vq.index % 2 == 0 && !is_cvq(vq.index)) {
    if (vq.fifo.empty()) return service_done(vq);
    // The queue's chain list is reused once nothing else holds it (a frame's delivery done).
    if (!vq.rx_chains || vq.rx_chains.use_count() > 1) vq.rx_chains = std::make_shared<std::vector<Chain>>();
    vq.rx_chains->clear();
    return fill_rx(vq, vq.rx_chains, 0);
  }
  if (vq.last_avail == vq.avail_idx) return service_done(vq);
  vq.ring.read_entry(vq.last_avail, [this, &vq](uint16_t head, const std::string& error) {
    if (!error.empty()) return device_error(vq, error);
    vq.ring.read_chain(head, [this, &vq](Chain chain, const std::string& error) {
      if (!error.empty()) return device_error(vq, error);
      ++vq.last_avail;
      if (is_cvq(vq.index)) return take_ctrl(vq, chain);
      transmit(vq, chain);
    });
  });
}

void VnetEngine::complete_used(Vq& vq, const SplitRing::UsedElem* elems, size_t n) {
  vq.ring.publish_used(vq.used_idx, elems, n);
  vq.used_idx = uint16_t(vq.used_idx + n);
  ctx_.event(name(), datapath_event::vq_used).u64("ep", index_).u64("vq", vq.index).u64("used_idx", vq.used_idx);
  const uint16_t vector = vq.ring.conf().msix;
  if (vector == VIRTIO_MSI_NO_VECTOR || (vq.avail_flags & VRING_AVAIL_F_NO_INTERRUPT)) return;
  const char* outcome = msix_->raise(vector);
  ctx_.event(name(), datapath_event::vq_interrupt).u64("vq", vq.index).u64("vector", vector).str("outcome", outcome);
}

void VnetEngine::device_error(Vq& vq, const std::string& reason) {
  vq.busy = false;
  if (error_) return;
  error_ = true;
  ctx_.event(name(), "vq_error").u64("ep", index_).u64("vq", vq.index).str("reason", reason);
  if (on_device_error) on_device_error("VQ" + std::to_string(vq.index) + ": " + reason);
}

// ---- transmit -----------------------------------------------------------------------------

void VnetEngine::transmit(Vq& vq, const Chain& chain) {
  if (!chain.writable.empty()) return device_error(vq, "transmit chain " + std::to_string(chain.head) +
                                                           " has device-writable descriptors");
  size_t total = 0;
  for (const Desc& d : chain.readable) total += d.len;
  auto finish = [this, &vq, head = chain.head] {
    const SplitRing::UsedElem used{head, 0};
    complete_used(vq, &used, 1);
    next_entry(vq);
  };
  if (total > kMaxTxChainBytes) {
    ++counters_.tx_dropped;
    ctx_.event(name(), datapath_event::tx_drop)
        .u64("vq", vq.index)
        .str("reason", "chain longer than 64 KiB")
        .u64("len", total);
    return finish();
  }
  vq.ring.read_buffers(chain.readable, [this, &vq, finish](std::vector<uint8_t> bytes, const std::string& error) {
    if (!error.empty()) return device_error(vq, error);
    after(ctx_.ps(vnet::timing::dp_tx_frame_ps), [this, &vq, finish, bytes = std::move(bytes)]() mutable {
      const char* drop = nullptr;
      if (bytes.size() < VIRTIO_NET_HDR_V1_SIZE + net::kEthHeaderBytes) drop = "shorter than the header and an Ethernet header";
      else if (!port_.wire) drop = "no wire on the port";
      if (drop) {
        ++counters_.tx_dropped;
        ctx_.event(name(), datapath_event::tx_drop).u64("vq", vq.index).str("reason", drop).u64("len", bytes.size());
      } else {
        bytes.erase(bytes.begin(), bytes.begin() + VIRTIO_NET_HDR_V1_SIZE);  // the frame, in place
        ++counters_.tx_frames;
        const uint64_t id = port_.wire->send(port_, std::move(bytes), dma_.local_offset());
        ctx_.event(name(), datapath_event::vq_frame).u64("vq", vq.index).str("dir", "tx").u64("frame", id);
      }
      finish();
    });
  });
}

// ---- receive ------------------------------------------------------------------------------

unsigned VnetEngine::steer(const std::vector<uint8_t>& frame) const {
  // No RSS is offered: a receive queue is chosen among the enabled ones by a hash of the
  // frame's first 64 bytes (addresses, EtherType, L3/L4 headers), so a flow stays on a queue.
  auto receives = [this](const Vq& vq) { return vq.index % 2 == 0 && !is_cvq(vq.index) && running(vq); };
  size_t n = 0;
  for (const auto& vq : vqs_) n += receives(*vq);
  if (n == 0) return unsigned(vqs_.size());
  size_t pick = fnv1a(frame.data(), std::min<size_t>(frame.size(), 64)) % n;
  for (const auto& vq : vqs_)
    if (receives(*vq) && pick-- == 0) return vq->index;
  return unsigned(vqs_.size());
}

void VnetEngine::frame_arrived(net::Frame frame) {
  const unsigned q = steer(frame.bytes);
  const char* drop = nullptr;
  if (q >= vqs_.size()) drop = "rx_queue_not_ready";
  else if (vqs_[q]->fifo.size() >= ctx_.timing.get(vnet::timing::dp_rx_fifo_frames)) drop = "rx_fifo_full";
  if (drop) {
    if (q >= vqs_.size()) ++counters_.rx_no_queue;
    else ++counters_.rx_fifo_drops;
    ctx_.checker.frame_dropped(drop);
    ctx_.event(name(), datapath_event::rx_drop).u64("frame", frame.id).str("reason", drop);
    return;
  }
  Vq& vq = *vqs_[q];
  vq.fifo.push_back(std::move(frame));
  ++trace_rx_fifo_;
  service(vq);
}

void VnetEngine::fill_rx(Vq& vq, std::shared_ptr<std::vector<Chain>> chains, size_t capacity) {
  const bool mrg = features_ & bit(VIRTIO_NET_F_MRG_RXBUF);
  const size_t needed = VIRTIO_NET_HDR_V1_SIZE + vq.fifo.front().bytes.size();
  if (capacity >= needed) return deliver_rx(vq, chains);
  if (!chains->empty() && !mrg) {
    // Without mergeable buffers a frame must fit one chain: dropped, the buffer left unused.
    vq.last_avail = uint16_t(vq.last_avail - chains->size());
    ++counters_.rx_too_big;
    ctx_.checker.frame_dropped("rx_buffer_too_small");
    ctx_.event(name(), datapath_event::rx_drop).u64("frame", vq.fifo.front().id).str("reason", "rx_buffer_too_small")
        .u64("capacity", capacity).u64("needed", needed);
    vq.fifo.pop_front();
    --trace_rx_fifo_;
    return next_entry(vq);
  }
  auto take = [this, &vq, chains, capacity] {
    vq.ring.read_entry(vq.last_avail, [this, &vq, chains, capacity](uint16_t head, const std::string& error) {
      if (!error.empty()) return device_error(vq, error);
      vq.ring.read_chain(head, [this, &vq, chains, capacity](Chain chain, const std::string& error) {
        if (!error.empty()) return device_error(vq, error);
        if (!chain.readable.empty())
          return device_error(vq, "receive chain " + std::to_string(chain.head) + " has device-readable descriptors");
        ++vq.last_avail;
        size_t more = 0;
        for (const Desc& d : chain.writable) more += d.len;
        chains->push_back(std::move(chain));
        fill_rx(vq, chains, capacity + more);
      });
    });
  };
  if (vq.last_avail != vq.avail_idx) return take();
  // Out of posted buffers: look again, else wait for the driver's next kick.
  vq.ring.read_avail([this, &vq, chains, take](uint16_t flags, uint16_t idx, const std::string& error) {
    if (!error.empty()) return device_error(vq, error);
    vq.avail_flags = flags;
    vq.avail_idx = idx;
    if (vq.last_avail != vq.avail_idx) return take();
    vq.last_avail = uint16_t(vq.last_avail - chains->size());
    service_done(vq);
  });
}

void VnetEngine::deliver_rx(Vq& vq, std::shared_ptr<std::vector<Chain>> chains) {
  net::Frame frame = std::move(vq.fifo.front());
  vq.fifo.pop_front();
  --trace_rx_fifo_;
  ++rx_in_dma_;
  after(ctx_.ps(vnet::timing::dp_rx_frame_ps), [this, &vq, chains, frame = std::move(frame)] {
    // The header and the frame, and the used elements, in the engine's scratch buffers (done
    // with before anything else of the engine runs).
    std::vector<uint8_t>& bytes = rx_bytes_;
    bytes.assign(VIRTIO_NET_HDR_V1_SIZE, 0);
    put_le16(&bytes[VIRTIO_NET_HDR_NUM_BUFFERS], uint16_t(chains->size()));
    bytes.insert(bytes.end(), frame.bytes.begin(), frame.bytes.end());
    std::vector<SplitRing::UsedElem>& elems = rx_elems_;
    elems.clear();
    size_t off = 0;
    for (const Chain& c : *chains) {
      size_t cap = 0;
      for (const Desc& d : c.writable) cap += d.len;
      const size_t n = std::min(cap, bytes.size() - off);
      vq.ring.write_buffers(c.writable, bytes.data() + off, n);
      elems.emplace_back(c.head, uint32_t(n));
      off += n;
    }
    --rx_in_dma_;
    ++counters_.rx_frames;
    ctx_.checker.frame_received();
    ctx_.event(name(), datapath_event::vq_frame).u64("vq", vq.index).str("dir", "rx").u64("frame", frame.id)
        .u64("buffers", chains->size());
    complete_used(vq, elems.data(), elems.size());
    next_entry(vq);
  });
}

// ---- control virtqueue ----------------------------------------------------------------------

void VnetEngine::take_ctrl(Vq& vq, const Chain& chain) {
  size_t in = 0;
  for (const Desc& d : chain.readable) in += d.len;
  if (in < 2 || chain.writable.empty() || in > 65536)
    return device_error(vq, "control request chain " + std::to_string(chain.head) +
                                " lacks its class/command header or its ack buffer");
  vq.ring.read_buffers(chain.readable, [this, &vq, chain](std::vector<uint8_t> bytes, const std::string& error) {
    if (!error.empty()) return device_error(vq, error);
    CtrlReq req{index_, chain.head, bytes[0], bytes[1], std::vector<uint8_t>(bytes.begin() + 2, bytes.end())};
    pending_ctrl_.push_back(chain);
    ctx_.event(name(), "ctrl_req").u64("vq", vq.index).u64("cls", req.cls).u64("cmd", req.cmd).u64("head", chain.head);
    if (deliver_ctrl_) deliver_ctrl_(std::move(req));
  });
}

void VnetEngine::ctrl_req_complete(uint16_t head, uint8_t status) {
  for (auto it = pending_ctrl_.begin(); it != pending_ctrl_.end(); ++it) {
    if (it->head != head) continue;
    Vq& vq = *vqs_[cvq_index_];
    vq.ring.write_byte(it->writable.front().addr, status);
    pending_ctrl_.erase(it);
    const SplitRing::UsedElem used{head, 1};
    complete_used(vq, &used, 1);
    return next_entry(vq);
  }
}

}  // namespace dpusim::vnet
