#include "vnet/vnet_endpoint.h"

#include "net/wire.h"
#include "tlm/completer.h"
#include "vnet/virtio_spec.h"
#include "vnet/vnet_layout.h"
#include "vnet/vnet_timing.h"

namespace dpusim::vnet {

using namespace sc_core;
using pcie::Tlp;

const char* vq_state_name(VqState s) {
  static const char* const names[] = {"UNCREATED", "CREATED", "CONFIGURED", "STARTED",
                                      "ENABLED",   "DISABLED", "STOPPED",    "DESTROYED"};
  return names[static_cast<int>(s)];
}

VnetEndpoint::VnetEndpoint(sc_module_name name, pcie::SimContext& ctx, unsigned index, unsigned num_vqs,
                           pcie::Function& fn, uint16_t msix_cap, std::function<uint64_t()> speed_mbps)
    : EndpointBase(name, ctx, fn, timing::fw_mmio_ps), index_(index), speed_mbps_(std::move(speed_mbps)) {
  unsupported_by = "the endpoint's firmware";
  // The datapath (datapath.cpp, split_ring.cpp) continues only from completions and sets its
  // state before each access: in lt mode its completions may run nested (tlm/quantum_keeper.h).
  dma().allow_nested_completions(true);
  add_msix(msix_cap, VNET_PCI_DEV_NUM_MSIX, 0, VNET_BAR0_MSIX_TABLE, VNET_BAR0_MSIX_PBA, VNET_BAR0_MSIX_TABLE_LEN,
           VNET_BAR0_MSIX_PBA_LEN);
  // The doorbell's address names the queue (queue_notify_off × 8); the driver writes its index.
  add_region({"doorbells", 0, VNET_BAR0_DOORBELL, VNET_BAR0_DOORBELL_LEN, nullptr,
              [this](uint64_t off, const uint8_t*, size_t) { kick(unsigned(off) >> VNET_PCI_DEV_DB_STRIDE_LOG); }});
  for (unsigned q = 0; q < num_vqs; ++q) vqs_.push_back(std::make_unique<Vq>(dma(), q));
}

void VnetEndpoint::trace(sc_trace_file* vcd) {
  for (auto& vq : vqs_) sc_trace(vcd, vq->trace_state, std::string(name()) + ".vq" + std::to_string(vq->index) + ".state", 8);
  sc_trace(vcd, trace_rx_fifo_, std::string(name()) + ".rx_fifo", 32);
  sc_trace(vcd, dma().trace_outstanding, std::string(name()) + ".outstanding_np", 32);
}

std::optional<pcie::BarHit> VnetEndpoint::decode(uint64_t address) const {
  const uint64_t base = function().bar_address(0);
  if (base == 0 || address < base || address - base >= VNET_BAR0_SIZE) return std::nullopt;
  return pcie::BarHit{0, address - base};
}

uint64_t VnetEndpoint::bar_size(unsigned bar) const { return bar == 0 ? VNET_BAR0_SIZE : 0; }

void VnetEndpoint::kick(unsigned q) {
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

const char* VnetEndpoint::raise_msix(uint16_t vector) {
  if (vector == virtio::VIRTIO_MSI_NO_VECTOR) return "no_vector";
  return EndpointBase::raise_msix(vector);
}

// ---- the offload engine and its VQs -----------------------------------------------------

void VnetEndpoint::set_state(Vq& vq, VqState s) {
  if (vq.state == s) return;
  vq.state = s;
  vq.trace_state = static_cast<uint8_t>(s);
  ctx_.event(name(), "vq_state").u64("ep", index_).u64("vq", vq.index).str("state", vq_state_name(s));
  if (s == VqState::ENABLED && on_vq_enabled) on_vq_enabled(vq.index);
}

bool VnetEndpoint::running(const Vq& vq) const {
  return started_ && enabled_ && !error_ && vq.state == VqState::ENABLED;
}

void VnetEndpoint::engine_start() {
  started_ = true;
  error_ = false;
  ctx_.event(name(), "engine").str("op", "start");
}

void VnetEndpoint::engine_enable() {
  enabled_ = true;
  ctx_.event(name(), "engine").str("op", "enable");
  for (auto& vq : vqs_)
    if (vq->state == VqState::STARTED) set_state(*vq, VqState::ENABLED);
  for (auto& vq : vqs_)
    if (running(*vq)) service(*vq);
}

void VnetEndpoint::engine_disable() {
  enabled_ = false;
  ctx_.event(name(), "engine").str("op", "disable");
  for (auto& vq : vqs_)
    if (vq->state == VqState::ENABLED) set_state(*vq, VqState::DISABLED);
}

void VnetEndpoint::engine_stop() {
  started_ = enabled_ = error_ = false;
  ctx_.event(name(), "engine").str("op", "stop");
}

void VnetEndpoint::vq_create(unsigned q) {
  Vq& vq = *vqs_[q];
  vq.last_avail = vq.avail_idx = vq.used_idx = 0;
  vq.busy = vq.again = false;
  set_state(vq, VqState::CREATED);
}

void VnetEndpoint::vq_resume(unsigned q) {
  Vq& vq = *vqs_[q];
  vq.last_avail = vq.used_idx;
  vq.busy = vq.again = false;
  set_state(vq, VqState::CREATED);
}

void VnetEndpoint::vq_set_conf(unsigned q, const VqConf& conf) {
  vqs_[q]->ring.set_conf(conf);
  set_state(*vqs_[q], VqState::CONFIGURED);
}

void VnetEndpoint::vq_start(unsigned q) { set_state(*vqs_[q], VqState::STARTED); }

void VnetEndpoint::vq_stop(unsigned q) {
  Vq& vq = *vqs_[q];
  for (size_t i = 0; i < vq.fifo.size(); ++i) ctx_.checker.frame_dropped("rx_queue_stopped");
  vq.fifo.clear();
  trace_rx_fifo_ = uint32_t(frames_in_flight() - rx_in_dma_);
  set_state(vq, VqState::STOPPED);
}

void VnetEndpoint::vq_destroy(unsigned q) {
  if (is_cvq(q)) cvq_unbind();
  set_state(*vqs_[q], VqState::DESTROYED);
}

void VnetEndpoint::vq_group_enable(unsigned first, unsigned last) {
  for (unsigned q = first; q <= last && q < vqs_.size(); ++q) {
    Vq& vq = *vqs_[q];
    if (vq.state == VqState::STARTED || vq.state == VqState::DISABLED) set_state(vq, VqState::ENABLED);
  }
  for (unsigned q = first; q <= last && q < vqs_.size(); ++q)
    if (running(*vqs_[q])) service(*vqs_[q]);
}

void VnetEndpoint::vq_group_disable(unsigned first, unsigned last) {
  for (unsigned q = first; q <= last && q < vqs_.size(); ++q)
    if (vqs_[q]->state == VqState::ENABLED) set_state(*vqs_[q], VqState::DISABLED);
}

void VnetEndpoint::cvq_bind(unsigned q, std::function<void(CtrlReq)> deliver) {
  cvq_ = true;
  cvq_index_ = q;
  deliver_ctrl_ = std::move(deliver);
}

void VnetEndpoint::cvq_unbind() {
  cvq_ = false;
  deliver_ctrl_ = nullptr;
  pending_ctrl_.clear();
}

uint64_t VnetEndpoint::frames_in_flight() const {
  uint64_t n = rx_in_dma_;
  for (const auto& vq : vqs_) n += vq->fifo.size();
  return n;
}

}  // namespace dpusim::vnet
