// The offload engine's queue service on split rings (see vnet_engine.h): one pass at a time per
// queue, entry after entry, each ring access a DMA whose completion continues the pass.
// Its own delays go through after() and its frames leave at the local time, so in lt mode
// (tlm/dma.h) the whole chain runs temporally decoupled on the endpoint's quantum keeper.
#include "net/offload.h"
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
    vq_interrupt("vq_interrupt", vq), rx_drop("rx_drop", vq), tx_drop("tx_drop", vq), tx_gso("tx_gso", vq);
}  // namespace datapath_event

namespace {
// The largest transmit chain read (a TSO frame of 64 KiB and its header); longer ones are
// dropped unread rather than allocated.
constexpr size_t kMaxTxChainBytes = 65536 + VIRTIO_NET_HDR_V1_SIZE;

const char* gso_type_name(uint8_t type) {
  switch (type) {
    case VIRTIO_NET_HDR_GSO_TCPV4: return "TCPV4";
    case VIRTIO_NET_HDR_GSO_UDP: return "UDP";
    case VIRTIO_NET_HDR_GSO_TCPV6: return "TCPV6";
    case VIRTIO_NET_HDR_GSO_UDP_L4: return "UDP_L4";
    default: return "unknown";
  }
}
}  // namespace

void VnetEngine::service(Vq& vq) {
  if (!vqs_.running(vq)) return;
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
  if (timer_.ahead() && !vq.again) return timer_.at_local_time([this, &vq] { service_done(vq); });
  vq.busy = false;
  if (vq.again) service(vq);
}

void VnetEngine::next_entry(Vq& vq) {
  if (!vqs_.running(vq)) {
    vq.busy = false;
    return;
  }
  if (vq.index % 2 == 0 && !cvq_.is_cvq(vq.index)) {
    if (vq.fifo.empty()) return service_done(vq);
    return rx_.place(vq);
  }
  if (vq.last_avail == vq.avail_idx) return service_done(vq);
  vq.ring.read_entry(vq.last_avail, [this, &vq](uint16_t head, const std::string& error) {
    if (!error.empty()) return device_error(vq, error);
    vq.ring.read_chain(head, [this, &vq](Chain chain, const std::string& error) {
      if (!error.empty()) return device_error(vq, error);
      ++vq.last_avail;
      if (cvq_.is_cvq(vq.index)) return take_ctrl(vq, chain);
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
  if (!vqs_.fail()) return;
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
    timer_.after(ctx_.ps(vnet::timing::dp_tx_frame_ps), [this, &vq, finish, bytes = std::move(bytes)]() mutable {
      const char* drop = nullptr;
      if (bytes.size() < VIRTIO_NET_HDR_V1_SIZE + net::kEthHeaderBytes) drop = "shorter than the header and an Ethernet header";
      else if (!port_.wire) drop = "no wire on the port";
      if (drop) {
        ++counters_.tx_dropped;
        ctx_.event(name(), datapath_event::tx_drop).u64("vq", vq.index).str("reason", drop).u64("len", bytes.size());
      } else {
        send_frame(vq, std::move(bytes));
      }
      finish();
    });
  });
}

// The frame after its virtio_net_hdr_v1 (virtio 1.2 §5.1.6, little-endian fields), with the
// offloads the header asks for done (net/offload.h): one frame on the wire, or its segments, or
// a counted drop naming the header's values.
void VnetEngine::send_frame(Vq& vq, std::vector<uint8_t> bytes) {
  const uint8_t flags = bytes[VIRTIO_NET_HDR_FLAGS], gso_type = bytes[VIRTIO_NET_HDR_GSO_TYPE];
  net::TxOffload o;
  o.needs_csum = flags & VIRTIO_NET_HDR_F_NEEDS_CSUM;
  o.csum_start = get_le16(&bytes[VIRTIO_NET_HDR_CSUM_START]);
  o.csum_offset = get_le16(&bytes[VIRTIO_NET_HDR_CSUM_OFFSET]);
  o.hdr_len = get_le16(&bytes[VIRTIO_NET_HDR_HDR_LEN]);
  o.gso_size = get_le16(&bytes[VIRTIO_NET_HDR_GSO_SIZE]);
  o.ecn = gso_type & VIRTIO_NET_HDR_GSO_ECN;
  o.ecn_allowed = features_ & bit(VIRTIO_NET_F_HOST_ECN);
  const uint8_t type = gso_type & uint8_t(~VIRTIO_NET_HDR_GSO_ECN);
  std::string refused;
  if (o.needs_csum && !(features_ & bit(VIRTIO_NET_F_CSUM))) refused = "NEEDS_CSUM without VIRTIO_NET_F_CSUM";
  else if (type == VIRTIO_NET_HDR_GSO_TCPV4 && (features_ & bit(VIRTIO_NET_F_HOST_TSO4))) o.gso = net::TxOffload::Gso::tcpv4;
  else if (type == VIRTIO_NET_HDR_GSO_TCPV6 && (features_ & bit(VIRTIO_NET_F_HOST_TSO6))) o.gso = net::TxOffload::Gso::tcpv6;
  else if (type == VIRTIO_NET_HDR_GSO_UDP_L4 && (features_ & bit(VIRTIO_NET_F_HOST_USO))) o.gso = net::TxOffload::Gso::udp_l4;
  else if (type != VIRTIO_NET_HDR_GSO_NONE)
    refused = "gso_type " + std::to_string(type) + " (" + gso_type_name(type) + ") not negotiated";
  bytes.erase(bytes.begin(), bytes.begin() + VIRTIO_NET_HDR_V1_SIZE);  // the frame, in place
  const size_t len = bytes.size();
  net::TxOffloadResult r;
  if (refused.empty()) r = net::apply_tx_offload(std::move(bytes), o);
  else r.drop = refused;
  if (!r.drop.empty()) {
    ++counters_.tx_dropped;
    ++counters_.tx_offload_drops;
    ctx_.event(name(), datapath_event::tx_drop)
        .u64("vq", vq.index)
        .str("reason", r.drop)
        .u64("len", len)
        .u64("flags", flags)
        .u64("gso_type", gso_type)
        .u64("hdr_len", o.hdr_len)
        .u64("gso_size", o.gso_size)
        .u64("csum_start", o.csum_start)
        .u64("csum_offset", o.csum_offset);
    return;
  }
  counters_.tx_csum_filled += r.checksums;
  if (o.gso != net::TxOffload::Gso::none) {
    ++counters_.tx_gso_frames;
    counters_.tx_segments += r.frames.size();
    ctx_.event(name(), datapath_event::tx_gso)
        .u64("vq", vq.index)
        .u64("len", len)
        .u64("gso_type", gso_type)
        .u64("gso_size", o.gso_size)
        .u64("segments", r.frames.size());
  }
  for (std::vector<uint8_t>& frame : r.frames) {
    ++counters_.tx_frames;
    const uint64_t id = port_.wire->send(port_, std::move(frame), dma_.local_offset());
    ctx_.event(name(), datapath_event::vq_frame).u64("vq", vq.index).str("dir", "tx").u64("frame", id);
  }
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
    ctx_.event(name(), "ctrl_req").u64("vq", vq.index).u64("cls", req.cls).u64("cmd", req.cmd).u64("head", chain.head);
    cvq_.hand_over(chain, std::move(req));
  });
}

void VnetEngine::ctrl_req_complete(uint16_t head, uint8_t status) {
  const std::optional<Chain> chain = cvq_.take_completed(head);
  if (!chain) return;
  Vq& vq = vqs_.vq(cvq_.index());
  vq.ring.write_byte(chain->writable.front().addr, status);
  const SplitRing::UsedElem used{head, 1};
  complete_used(vq, &used, 1);
  next_entry(vq);
}

}  // namespace dpusim::vnet
