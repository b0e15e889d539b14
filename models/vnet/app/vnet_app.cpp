#include "vnet/app/vnet_app.h"

#include "switch/switch_timing.h"
#include "vnet/switch/dsp_msi.h"
#include "vnet/app/mq_start.h"
#include "vnet/app/pe1.h"
#include "vnet/switch/slots.h"
#include "vnet/app/status_machine.h"
#include "vnet/virtio/vnet_layout.h"

namespace dpusim::vnet {

using namespace sc_core;
using pcie::Tlp;

VnetApp::VnetApp(sc_module_name name, pcie::SimContext& ctx, const VnetOptions& options, const AcgSpec& acg)
    : sc_module(name),
      up("up"),
      later_("later", &ctx.explore, &ctx.checker),  // its threads' same-time steps are an exploration knob ("ties")
      options_(options),
      shared_(ctx, later_, this->name(), [this](Tlp* t) { up.send(*t); }) {
  const unsigned n = unsigned(options.num_ep);
  shared_.engines.assign(n, nullptr);
  shared_.links.assign(n, nullptr);
  shared_.engine_owner.assign(n, nullptr);
  rendezvous_ = std::make_unique<LuRendezvous>(shared_, acg);
  shared_.rendezvous = [this]() -> LuRendezvous& { return *rendezvous_; };
  shared_.process = [this](unsigned pid) -> AppProcess& { return process(pid); };
  // The platform's process: lu-mode none or active (a standby is started beside it).
  rendezvous_->processes().push_back(std::make_unique<AppProcess>(shared_, 1, acg));
  AppProcess& first = *rendezvous_->processes().back();
  AppProcess::log_banner(first.log(), options);
  first.build(options, true);
  up.set_receiver([this](Tlp& t) { receive_up(t); });
  for (unsigned i = 0; i < n; ++i) {
    down.push_back(std::make_unique<pcie::Port>(("down" + std::to_string(i)).c_str()));
    down.back()->set_receiver([this](Tlp& t) { receive_down(t); });
    shared_.engine_owner[i] = &first;
  }
  shared_.serving = &first;
  shared_.channel.set_primary(&first.pe1());
  rendezvous_->adopt(first);
}

VnetApp::~VnetApp() = default;

void VnetApp::start_of_simulation() { process(1).msi().start(); }

AppProcess& VnetApp::primary() { return *shared_.serving; }

unsigned VnetApp::acg_credits() { return primary().msi().credits(); }

void VnetApp::attach(unsigned i, VnetEndpoint* engine, pcie::Link* link) {
  shared_.engines[i] = engine;
  shared_.links[i] = link;
  link->set_up(false);
  // Firmware reports to the process driving the engine now.
  engine->on_device_error = [this, i](const std::string& reason) {
    shared_.engine_owner[i]->status().device_needs_reset(i, reason);
  };
  engine->vqs().on_vq_enabled = [this, i](unsigned q) { shared_.engine_owner[i]->invariants().check_vq_enabled(i, q); };
  process(1).attach(i);
  if (Sriov* s = primary().sriov()) s->attach_endpoint(i, *engine);
}

void VnetApp::create_static_devices() { process(1).create_static_devices(true); }

void VnetApp::shutdown(const std::function<void(const std::function<bool()>&)>& run_until) {
  primary().shutdown(run_until);
}

sc_time VnetApp::traversal() const { return shared_.ctx.ps(sw::timing::switch_traversal_ps); }

// ---- routing ------------------------------------------------------------------------------

int VnetApp::firmware_target(const tlp::Header& h) {
  if (h.type != tlp::Type::MRd && h.type != tlp::Type::MWr) return -1;
  AppState& app = primary().state();
  for (unsigned i = 0; i < app.num_ep(); ++i) {
    if (!app.controllers[i].device_present) continue;
    const uint64_t bar = app.devices[i]->images.virtio_bar0();
    if (bar != 0 && h.address >= bar + VNET_BAR0_MSIX_TABLE && h.address < bar + VNET_BAR0_DOORBELL + VNET_BAR0_DOORBELL_LEN)
      return int(i);
    if (app.sriov && app.sriov->vf_firmware_at(i, h.address)) return int(i);
  }
  return -1;
}

void VnetApp::receive_up(Tlp& t) {
  const tlp::Header& h = pcie::hdr(t);
  if (tlp::is_completion(h.type)) {
    // The completion of an endpoint's DMA read: to the endpoint on the requester's bus.
    AppState& app = primary().state();
    const uint8_t bus = uint8_t(h.requester_id >> 8);
    for (unsigned i = 0; i < app.num_ep(); ++i) {
      if (app.dsps[i]->secondary() == bus && bus != 0 && app.links[i]->up()) {
        down[i]->send(t, traversal());
        return;
      }
    }
    shared_.ctx.event(primary().pe1().dummy_path(), "unexpected_completion").u64("tlp", pcie::ext(t).serial)
        .str("requester", tlp::bdf_str(h.requester_id)).u64("tag", h.tag).str("reason", "no endpoint on that bus");
    t.release();
    return;
  }
  const int fw = firmware_target(h);
  if (fw >= 0) {
    down[unsigned(fw)]->send(t, traversal());
    return;
  }
  shared_.channel.deliver(t, shared_.ctx.now_ps());
}

void VnetApp::receive_down(Tlp& t) {
  // DMA, MSI-X messages and firmware's completions go up the DPU's link as they are.
  up.send(t, traversal());
}

void VnetApp::trace(sc_trace_file* vcd) {
  // The platform's first process: a live update's standby starts after the trace file is
  // open, so its threads appear in the event log only (docs/vnet.md, Live update).
  AppProcess& p = process(1);
  AppState& app = p.state();
  const std::string base = name();
  sc_trace(vcd, p.pe1().trace_queue, base + ".pe1_queue", 32);
  sc_trace(vcd, app.wq.trace_pending, base + ".workqueue_pending", 32);
  sc_trace(vcd, app.wq.trace_busy, base + ".worker_busy");
  sc_trace(vcd, p.mq_start().trace_running, base + ".mq_running", 32);
  sc_trace(vcd, p.msi().trace_credits, base + ".acg_credits", 32);
  for (unsigned i = 0; i < app.num_ep(); ++i) {
    sc_trace(vcd, app.trace_status[i], "ep" + std::to_string(i) + ".device_status", 8);
    const std::string dsp = app.dsps[i]->path();
    sc_trace(vcd, p.slots().trace_dllla[i], dsp + ".dllla");
    sc_trace(vcd, p.slots().trace_slot_ctl[i], dsp + ".slot_ctl", 16);
    sc_trace(vcd, p.slots().trace_slot_sta[i], dsp + ".slot_sta", 16);
    sc_trace(vcd, p.slots().trace_pending_unplug[i], dsp + ".pending_unplug");
    sc_trace(vcd, p.msi().trace_retry[i], dsp + ".msi_retry");
  }
}

}  // namespace dpusim::vnet
