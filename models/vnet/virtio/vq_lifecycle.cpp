#include "vnet/virtio/vq_lifecycle.h"

namespace dpusim::vnet {

const char* vq_state_name(VqState s) {
  static const char* const names[] = {"UNCREATED", "CREATED", "CONFIGURED", "STARTED",
                                      "ENABLED",   "DISABLED", "STOPPED",    "DESTROYED"};
  return names[static_cast<int>(s)];
}

VqLifecycle::VqLifecycle(pcie::SimContext& ctx, const std::string& path, unsigned index, unsigned num_vqs,
                         pcie::FunctionDma& dma)
    : ctx_(ctx), path_(path), index_(index) {
  for (unsigned q = 0; q < num_vqs; ++q) vqs_.push_back(std::make_unique<Vq>(dma, q));
}

void VqLifecycle::trace(sc_core::sc_trace_file* vcd, const std::string& prefix) {
  for (auto& vq : vqs_) sc_trace(vcd, vq->trace_state, prefix + ".vq" + std::to_string(vq->index) + ".state", 8);
}

void VqLifecycle::set_state(Vq& vq, VqState s) {
  if (vq.state == s) return;
  vq.state = s;
  vq.trace_state = static_cast<uint8_t>(s);
  ctx_.event(path_.c_str(), "vq_state").u64("ep", index_).u64("vq", vq.index).str("state", vq_state_name(s));
  if (s == VqState::ENABLED && on_vq_enabled) on_vq_enabled(vq.index);
}

bool VqLifecycle::running(const Vq& vq) const {
  return started_ && enabled_ && !error_ && vq.state == VqState::ENABLED;
}

bool VqLifecycle::fail() {
  if (error_) return false;
  error_ = true;
  return true;
}

void VqLifecycle::engine_start() {
  started_ = true;
  error_ = false;
  ctx_.event(path_.c_str(), "engine").str("op", "start");
}

void VqLifecycle::engine_enable() {
  enabled_ = true;
  ctx_.event(path_.c_str(), "engine").str("op", "enable");
  for (auto& vq : vqs_)
    if (vq->state == VqState::STARTED) set_state(*vq, VqState::ENABLED);
  for (auto& vq : vqs_)
    if (running(*vq)) on_runnable(*vq);
}

void VqLifecycle::engine_disable() {
  enabled_ = false;
  ctx_.event(path_.c_str(), "engine").str("op", "disable");
  for (auto& vq : vqs_)
    if (vq->state == VqState::ENABLED) set_state(*vq, VqState::DISABLED);
}

void VqLifecycle::engine_stop() {
  started_ = enabled_ = error_ = false;
  ctx_.event(path_.c_str(), "engine").str("op", "stop");
}

void VqLifecycle::vq_create(unsigned q) {
  Vq& vq = *vqs_[q];
  vq.last_avail = vq.avail_idx = vq.used_idx = 0;
  vq.busy = vq.again = false;
  set_state(vq, VqState::CREATED);
}

void VqLifecycle::vq_resume(unsigned q) {
  Vq& vq = *vqs_[q];
  vq.last_avail = vq.used_idx;
  vq.busy = vq.again = false;
  set_state(vq, VqState::CREATED);
}

void VqLifecycle::vq_set_conf(unsigned q, const VqConf& conf) {
  vqs_[q]->ring.set_conf(conf);
  set_state(*vqs_[q], VqState::CONFIGURED);
}

void VqLifecycle::vq_start(unsigned q) { set_state(*vqs_[q], VqState::STARTED); }

void VqLifecycle::vq_stop(unsigned q) {
  on_stopping(*vqs_[q]);
  set_state(*vqs_[q], VqState::STOPPED);
}

void VqLifecycle::vq_destroy(unsigned q) {
  on_destroying(q);
  set_state(*vqs_[q], VqState::DESTROYED);
}

void VqLifecycle::vq_group_enable(unsigned first, unsigned last) {
  for (unsigned q = first; q <= last && q < vqs_.size(); ++q) {
    Vq& vq = *vqs_[q];
    if (vq.state == VqState::STARTED || vq.state == VqState::DISABLED) set_state(vq, VqState::ENABLED);
  }
  for (unsigned q = first; q <= last && q < vqs_.size(); ++q)
    if (running(*vqs_[q])) on_runnable(*vqs_[q]);
}

void VqLifecycle::vq_group_disable(unsigned first, unsigned last) {
  for (unsigned q = first; q <= last && q < vqs_.size(); ++q)
    if (vqs_[q]->state == VqState::ENABLED) set_state(*vqs_[q], VqState::DISABLED);
}

}  // namespace dpusim::vnet
