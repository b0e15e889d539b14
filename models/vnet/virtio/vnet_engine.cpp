#include "vnet/virtio/vnet_engine.h"

#include "net/wire.h"
#include "vnet/virtio/virtio_spec.h"

namespace dpusim::vnet {

using namespace sc_core;

const char* vq_state_name(VqState s) {
  static const char* const names[] = {"UNCREATED", "CREATED", "CONFIGURED", "STARTED",
                                      "ENABLED",   "DISABLED", "STOPPED",    "DESTROYED"};
  return names[static_cast<int>(s)];
}

VnetEngine::VnetEngine(pcie::SimContext& ctx, std::string path, unsigned index, unsigned num_vqs,
                       pcie::EndpointBase& host, pcie::FunctionDma dma, net::NetEnd& port, std::shared_ptr<bool> alive)
    : ctx_(ctx),
      path_(std::move(path)),
      index_(index),
      host_(host),
      dma_(std::move(dma)),
      port_(port),
      alive_(std::move(alive)) {
  for (unsigned q = 0; q < num_vqs; ++q) vqs_.push_back(std::make_unique<Vq>(dma_, q));
}

void VnetEngine::trace_vqs(sc_trace_file* vcd, const std::string& prefix) {
  for (auto& vq : vqs_) sc_trace(vcd, vq->trace_state, prefix + ".vq" + std::to_string(vq->index) + ".state", 8);
  sc_trace(vcd, trace_rx_fifo_, prefix + ".rx_fifo", 32);
}

void VnetEngine::kick(unsigned q) {
  ++counters_.kicks;
  if (q >= vqs_.size() || !running(*vqs_[q])) {
    ++counters_.kicks_ignored;
    ctx_.event(name(), datapath_event::doorbell).u64("vq", q).boolean("ignored", true)
        .str("state", q < vqs_.size() ? vq_state_name(vqs_[q]->state) : "absent");
    return;
  }
  ctx_.event(name(), datapath_event::doorbell).u64("vq", q).boolean("ignored", false);
  service(*vqs_[q]);
}

const char* VnetEngine::raise_msix(uint16_t vector) {
  if (vector == virtio::VIRTIO_MSI_NO_VECTOR) return "no_vector";
  return msix_->raise(vector);
}

// ---- the offload engine and its VQs -----------------------------------------------------

void VnetEngine::set_state(Vq& vq, VqState s) {
  if (vq.state == s) return;
  vq.state = s;
  vq.trace_state = static_cast<uint8_t>(s);
  ctx_.event(name(), "vq_state").u64("ep", index_).u64("vq", vq.index).str("state", vq_state_name(s));
  if (s == VqState::ENABLED && on_vq_enabled) on_vq_enabled(vq.index);
}

bool VnetEngine::running(const Vq& vq) const {
  return started_ && enabled_ && !error_ && vq.state == VqState::ENABLED;
}

void VnetEngine::engine_start() {
  started_ = true;
  error_ = false;
  ctx_.event(name(), "engine").str("op", "start");
}

void VnetEngine::engine_enable() {
  enabled_ = true;
  ctx_.event(name(), "engine").str("op", "enable");
  for (auto& vq : vqs_)
    if (vq->state == VqState::STARTED) set_state(*vq, VqState::ENABLED);
  for (auto& vq : vqs_)
    if (running(*vq)) service(*vq);
}

void VnetEngine::engine_disable() {
  enabled_ = false;
  ctx_.event(name(), "engine").str("op", "disable");
  for (auto& vq : vqs_)
    if (vq->state == VqState::ENABLED) set_state(*vq, VqState::DISABLED);
}

void VnetEngine::engine_stop() {
  started_ = enabled_ = error_ = false;
  ctx_.event(name(), "engine").str("op", "stop");
}

void VnetEngine::vq_create(unsigned q) {
  Vq& vq = *vqs_[q];
  vq.last_avail = vq.avail_idx = vq.used_idx = 0;
  vq.busy = vq.again = false;
  set_state(vq, VqState::CREATED);
}

void VnetEngine::vq_resume(unsigned q) {
  Vq& vq = *vqs_[q];
  vq.last_avail = vq.used_idx;
  vq.busy = vq.again = false;
  set_state(vq, VqState::CREATED);
}

void VnetEngine::vq_set_conf(unsigned q, const VqConf& conf) {
  vqs_[q]->ring.set_conf(conf);
  set_state(*vqs_[q], VqState::CONFIGURED);
}

void VnetEngine::vq_start(unsigned q) { set_state(*vqs_[q], VqState::STARTED); }

void VnetEngine::vq_stop(unsigned q) {
  Vq& vq = *vqs_[q];
  for (size_t i = 0; i < vq.fifo.size(); ++i) ctx_.checker.frame_dropped("rx_queue_stopped");
  vq.fifo.clear();
  trace_rx_fifo_ = uint32_t(frames_in_flight() - rx_in_dma_);
  set_state(vq, VqState::STOPPED);
}

void VnetEngine::vq_destroy(unsigned q) {
  if (is_cvq(q)) cvq_unbind();
  set_state(*vqs_[q], VqState::DESTROYED);
}

void VnetEngine::vq_group_enable(unsigned first, unsigned last) {
  for (unsigned q = first; q <= last && q < vqs_.size(); ++q) {
    Vq& vq = *vqs_[q];
    if (vq.state == VqState::STARTED || vq.state == VqState::DISABLED) set_state(vq, VqState::ENABLED);
  }
  for (unsigned q = first; q <= last && q < vqs_.size(); ++q)
    if (running(*vqs_[q])) service(*vqs_[q]);
}

void VnetEngine::vq_group_disable(unsigned first, unsigned last) {
  for (unsigned q = first; q <= last && q < vqs_.size(); ++q)
    if (vqs_[q]->state == VqState::ENABLED) set_state(*vqs_[q], VqState::DISABLED);
}

void VnetEngine::cvq_bind(unsigned q, std::function<void(CtrlReq)> deliver) {
  cvq_ = true;
  cvq_index_ = q;
  deliver_ctrl_ = std::move(deliver);
}

void VnetEngine::cvq_unbind() {
  cvq_ = false;
  deliver_ctrl_ = nullptr;
  pending_ctrl_.clear();
}

uint64_t VnetEngine::frames_in_flight() const {
  uint64_t n = rx_in_dma_;
  for (const auto& vq : vqs_) n += vq->fifo.size();
  return n;
}

}  // namespace dpusim::vnet
