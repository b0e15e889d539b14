#include "vnet/virtio/vnet_engine.h"

#include "net/wire.h"
#include "vnet/virtio/virtio_spec.h"

namespace dpusim::vnet {

VnetEngine::VnetEngine(pcie::SimContext& ctx, std::string path, unsigned index, unsigned num_vqs,
                       pcie::EndpointBase& host, pcie::FunctionDma dma, net::NetEnd& port, std::shared_ptr<bool> alive)
    : ctx_(ctx),
      path_(std::move(path)),
      index_(index),
      dma_(std::move(dma)),
      port_(port),
      timer_(host, std::move(alive)),
      vqs_(ctx, path_, index, num_vqs, dma_),
      rx_(ctx, path_, vqs_, cvq_, timer_, *this, counters_) {
  vqs_.on_runnable = [this](Vq& vq) { service(vq); };
  vqs_.on_stopping = [this](Vq& vq) { rx_.flush(vq); };
  vqs_.on_destroying = [this](unsigned q) {
    if (cvq_.is_cvq(q)) cvq_.unbind();
  };
}

void VnetEngine::set_features(uint64_t negotiated) {
  features_ = negotiated;
  rx_.set_mergeable(negotiated & virtio::bit(virtio::VIRTIO_NET_F_MRG_RXBUF));
}

void VnetEngine::trace_vqs(sc_core::sc_trace_file* vcd, const std::string& prefix) {
  vqs_.trace(vcd, prefix);
  rx_.trace(vcd, prefix);
}

void VnetEngine::kick(unsigned q) {
  ++counters_.kicks;
  if (q >= vqs_.num_vqs() || !vqs_.running(vqs_.vq(q))) {
    ++counters_.kicks_ignored;
    ctx_.event(name(), datapath_event::doorbell).u64("vq", q).boolean("ignored", true)
        .str("state", q < vqs_.num_vqs() ? vq_state_name(vqs_.vq_state(q)) : "absent");
    return;
  }
  ctx_.event(name(), datapath_event::doorbell).u64("vq", q).boolean("ignored", false);
  service(vqs_.vq(q));
}

void VnetEngine::frame_arrived(net::Frame frame) {
  if (Vq* vq = rx_.admit(std::move(frame))) service(*vq);
}

const char* VnetEngine::raise_msix(uint16_t vector) {
  if (vector == virtio::VIRTIO_MSI_NO_VECTOR) return "no_vector";
  return msix_->raise(vector);
}

}  // namespace dpusim::vnet
