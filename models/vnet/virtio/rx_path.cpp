#include "vnet/virtio/rx_path.h"

#include <algorithm>

#include "tlm/fnv1a.h"
#include "vnet/app/vnet_timing.h"
#include "vnet/virtio/virtio_spec.h"
#include "vnet/virtio/vnet_engine.h"

namespace dpusim::vnet {

RxPath::RxPath(pcie::SimContext& ctx, const std::string& path, VqLifecycle& vqs, const CtrlQueue& cvq,
               EngineTimer& timer, QueueService& service, EngineCounters& counters)
    : ctx_(ctx), path_(path), vqs_(vqs), cvq_(cvq), timer_(timer), service_(service), counters_(counters) {}

void RxPath::trace(sc_core::sc_trace_file* vcd, const std::string& prefix) {
  sc_trace(vcd, trace_fifo_, prefix + ".rx_fifo", 32);
}

uint64_t RxPath::frames_in_flight() const {
  uint64_t n = in_dma_;
  for (unsigned q = 0; q < vqs_.num_vqs(); ++q) n += vqs_.vq(q).fifo.size();
  return n;
}

unsigned RxPath::steer(const std::vector<uint8_t>& frame) const {
  // No RSS is offered: a receive queue is chosen among the enabled ones by a hash of the
  // frame's first 64 bytes (addresses, EtherType, L3/L4 headers), so a flow stays on a queue.
  auto receives = [this](const Vq& vq) { return vq.index % 2 == 0 && !cvq_.is_cvq(vq.index) && vqs_.running(vq); };
  const unsigned nvq = vqs_.num_vqs();
  size_t n = 0;
  for (unsigned q = 0; q < nvq; ++q) n += receives(vqs_.vq(q));
  if (n == 0) return nvq;
  size_t pick = fnv1a(frame.data(), std::min<size_t>(frame.size(), 64)) % n;
  for (unsigned q = 0; q < nvq; ++q)
    if (receives(vqs_.vq(q)) && pick-- == 0) return q;
  return nvq;
}

Vq* RxPath::admit(net::Frame frame) {
  const unsigned q = steer(frame.bytes);
  const char* drop = nullptr;
  if (q >= vqs_.num_vqs()) drop = "rx_queue_not_ready";
  else if (vqs_.vq(q).fifo.size() >= ctx_.timing.get(vnet::timing::dp_rx_fifo_frames)) drop = "rx_fifo_full";
  if (drop) {
    if (q >= vqs_.num_vqs()) ++counters_.rx_no_queue;
    else ++counters_.rx_fifo_drops;
    ctx_.checker.frame_dropped(drop);
    ctx_.event(path_.c_str(), datapath_event::rx_drop).u64("frame", frame.id).str("reason", drop);
    return nullptr;
  }
  Vq& vq = vqs_.vq(q);
  vq.fifo.push_back(std::move(frame));
  ++trace_fifo_;
  return &vq;
}

void RxPath::flush(Vq& vq) {
  for (size_t i = 0; i < vq.fifo.size(); ++i) ctx_.checker.frame_dropped("rx_queue_stopped");
  vq.fifo.clear();
  trace_fifo_ = uint32_t(frames_in_flight() - in_dma_);
}

void RxPath::place(Vq& vq) {
  // The queue's chain list is reused once nothing else holds it (a frame's delivery done).
  if (!vq.rx_chains || vq.rx_chains.use_count() > 1) vq.rx_chains = std::make_shared<std::vector<Chain>>();
  vq.rx_chains->clear();
  fill(vq, vq.rx_chains, 0);
}

void RxPath::fill(Vq& vq, std::shared_ptr<std::vector<Chain>> chains, size_t capacity) {
  const size_t needed = virtio::VIRTIO_NET_HDR_V1_SIZE + vq.fifo.front().bytes.size();
  if (capacity >= needed) return deliver(vq, chains);
  if (!chains->empty() && !mrg_) {
    // Without mergeable buffers a frame must fit one chain: dropped, the buffer left unused.
    vq.last_avail = uint16_t(vq.last_avail - chains->size());
    ++counters_.rx_too_big;
    ctx_.checker.frame_dropped("rx_buffer_too_small");
    ctx_.event(path_.c_str(), datapath_event::rx_drop).u64("frame", vq.fifo.front().id)
        .str("reason", "rx_buffer_too_small").u64("capacity", capacity).u64("needed", needed);
    vq.fifo.pop_front();
    --trace_fifo_;
    return service_.next_entry(vq);
  }
  auto take = [this, &vq, chains, capacity] {
    vq.ring.read_entry(vq.last_avail, [this, &vq, chains, capacity](uint16_t head, const std::string& error) {
      if (!error.empty()) return service_.device_error(vq, error);
      vq.ring.read_chain(head, [this, &vq, chains, capacity](Chain chain, const std::string& error) {
        if (!error.empty()) return service_.device_error(vq, error);
        if (!chain.readable.empty())
          return service_.device_error(vq, "receive chain " + std::to_string(chain.head) +
                                               " has device-readable descriptors");
        ++vq.last_avail;
        size_t more = 0;
        for (const Desc& d : chain.writable) more += d.len;
        chains->push_back(std::move(chain));
        fill(vq, chains, capacity + more);
      });
    });
  };
  if (vq.last_avail != vq.avail_idx) return take();
  // Out of posted buffers: look again, else wait for the driver's next kick.
  vq.ring.read_avail([this, &vq, chains, take](uint16_t flags, uint16_t idx, const std::string& error) {
    if (!error.empty()) return service_.device_error(vq, error);
    vq.avail_flags = flags;
    vq.avail_idx = idx;
    if (vq.last_avail != vq.avail_idx) return take();
    vq.last_avail = uint16_t(vq.last_avail - chains->size());
    service_.service_done(vq);
  });
}

void RxPath::deliver(Vq& vq, std::shared_ptr<std::vector<Chain>> chains) {
  net::Frame frame = std::move(vq.fifo.front());
  vq.fifo.pop_front();
  --trace_fifo_;
  ++in_dma_;
  timer_.after(ctx_.ps(vnet::timing::dp_rx_frame_ps), [this, &vq, chains, frame = std::move(frame)] {
    // The header and the frame, and the used elements, in the scratch buffers (done with
    // before anything else of the engine runs).
    std::vector<uint8_t>& bytes = bytes_;
    bytes.assign(virtio::VIRTIO_NET_HDR_V1_SIZE, 0);
    bytes::put_le16(&bytes[virtio::VIRTIO_NET_HDR_NUM_BUFFERS], uint16_t(chains->size()));
    bytes.insert(bytes.end(), frame.bytes.begin(), frame.bytes.end());
    std::vector<SplitRing::UsedElem>& elems = elems_;
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
    --in_dma_;
    ++counters_.rx_frames;
    ctx_.checker.frame_received();
    ctx_.event(path_.c_str(), datapath_event::vq_frame).u64("vq", vq.index).str("dir", "rx").u64("frame", frame.id)
        .u64("buffers", chains->size());
    service_.complete_used(vq, elems.data(), elems.size());
    service_.next_entry(vq);
  });
}

}  // namespace dpusim::vnet
