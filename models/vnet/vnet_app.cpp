#include "vnet/vnet_app.h"

#include "switch/switch_timing.h"
#include "tlm/pci_regs.h"
#include "vnet/bridge_image.h"
#include "vnet/vnet_layout.h"

namespace dpusim::vnet {

using namespace sc_core;
using namespace dpusim::pci;
using pcie::Tlp;

VnetApp::VnetApp(sc_module_name name, pcie::SimContext& ctx, const VnetOptions& options, const AcgSpec& acg)
    : sc_module(name), up("up"), app_(ctx, options, this->name()), invariants_(app_) {
  const unsigned n = unsigned(app_.opt.num_ep);
  AppLog& log = app_.log;
  status_ = std::make_unique<StatusMachine>(app_, invariants_);
  msi_ = std::make_unique<DspMsi>(app_, acg, [this](Tlp* t) { send_up(t); });
  log.info(kMainThread, "Starting DOCA VirtIO Net PCI Device application");
  log.info(kMainThread, "Configuration:");
  log.info(kMainThread, "  Max Queue Pairs: %u (Total VQs: %u)", unsigned(app_.opt.max_queue_pairs),
           VNET_TOTAL_VQS(unsigned(app_.opt.max_queue_pairs)));
  // vnet_pci_dev_start: the channel takes ACG in hotplug mode only; init_acg_queue either way.
  if (!app_.opt.static_mode()) log.info(kMainThread, "ACG enabled for MSI interrupts");
  msi_->init();

  const std::string base = this->name();
  app_.usp = std::make_unique<sw::Bridge>(base + ".usp", ctx);
  init_usp_image(*app_.usp, log);
  app_.usp->cfg.on_write(PCI_PRIMARY_BUS, 4, [this](uint16_t, uint32_t before, uint32_t after, uint8_t) {
    pe1_->on_bus_config(-1, before, after);
  });
  up.set_receiver([this](Tlp& t) { receive_up(t); });
  for (unsigned i = 0; i < n; ++i) {
    down.push_back(std::make_unique<pcie::Port>(("down" + std::to_string(i)).c_str()));
    down.back()->set_receiver([this](Tlp& t) { receive_down(t); });
    auto dsp = std::make_unique<sw::Bridge>(base + ".dsp" + std::to_string(i), ctx);
    init_dsp_image(*dsp, i, log,
                   SlotEvents{[this, i](bool on) { slots_->slot_power(i, on); },
                              [this, i] { slots_->slot_command_completed(i); }},
                   app_.opt.sriov());
    dsp->cfg.on_write(PCI_PRIMARY_BUS, 4, [this, i](uint16_t, uint32_t before, uint32_t after, uint8_t) {
      pe1_->on_bus_config(int(i), before, after);
    });
    app_.dsps.push_back(std::move(dsp));
    app_.devices.push_back(std::make_unique<VirtioPciDevice>(i, app_.opt, ctx, log));
    app_.controllers.emplace_back();
    app_.controllers.back().index = i;
  }
  app_.links.assign(n, nullptr);
  app_.trace_status.assign(n, 0);
  for (unsigned i = 0; i < n; ++i) app_.note_status(i);

  if (app_.opt.sriov()) {
    sriov_ = std::make_unique<Sriov>(app_);
    app_.sriov = sriov_.get();
  }
  pe1_ = std::make_unique<Pe1>(app_, *status_, [this](Tlp* t) { send_up(t); });
  cleanup_ = std::make_unique<Cleanup>(app_, *status_);
  slots_ = std::make_unique<Slots>(app_, *msi_, *cleanup_);
  mq_ = std::make_unique<MqStart>(app_);
  cvq_ = std::make_unique<CvqHandler>(app_, *mq_);
  items_ = std::make_unique<WorkItems>(app_, *cleanup_, *cvq_, *mq_, *slots_);
  console_ = std::make_unique<Console>(app_);
  pe1_->after_service = [this] { slots_->refresh_traces(); };
  slots_->refresh_traces();

  app_.wq.execute = [this](const WorkItem& it, pcie::Activity& w) {
    console_->item_started(it);
    items_->execute(it, w);
  };
  app_.wq.generation_of = [this](int dev) { return app_.devices[unsigned(dev)]->reset_generation; };
  app_.wq.progress_pes = [this](pcie::Activity& w) { cvq_->progress_pes(w); };
  app_.wq.after_item = [this](const WorkItem& it, bool skipped) {
    items_->check_reset_hold_liveness(it, skipped);
    console_->item_done(it, skipped);
  };

  log.info(kMainThread, "Initialized topology: %u bridges (1 USP + %u DSP), %u endpoints", n + 1, n, n);
  log.info(kMainThread, "  - %u Single-PF devices (function 0 each)", n);
  log.info(kMainThread, "Bus numbers will be configured by Host during PCI enumeration");
  log.info(kMainThread, "Host will write bus numbers via Type 1 config write to bridges");
}

void VnetApp::attach(unsigned i, VnetEndpoint* engine, pcie::Link* link) {
  app_.controllers[i].engine = engine;
  app_.links[i] = link;
  link->set_up(false);
  engine->on_device_error = [this, i](const std::string& reason) { status_->device_needs_reset(i, reason); };
  engine->on_vq_enabled = [this, i](unsigned q) { invariants_.check_vq_enabled(i, q); };
}

void VnetApp::create_static_devices() {
  for (unsigned i = 0; i < num_ep(); ++i) {
    slots_->set_device_present(i, true);
    dsp_static_power_on(*app_.dsps[i], i, app_.log);
    app_.links[i]->set_up(true);
  }
  slots_->refresh_traces();
}

bool VnetApp::submit_work(WorkType type, int ep, uint32_t arg, uint32_t arg2) {
  WorkItem it;
  it.type = type;
  it.device = ep;
  it.generation = ep >= 0 && type != WorkType::DELAYED_DESTROY && type != WorkType::HOTPLUG_EVENT
                      ? app_.devices[unsigned(ep)]->reset_generation
                      : 0;
  it.arg = arg;
  it.arg2 = arg2;
  return app_.wq.submit(it);
}

sc_time VnetApp::traversal() const { return app_.ctx.ps(sw::timing::switch_traversal_ps); }

// ---- routing ------------------------------------------------------------------------------

int VnetApp::firmware_target(const tlp::Header& h) const {
  if (h.type != tlp::Type::MRd && h.type != tlp::Type::MWr) return -1;
  for (unsigned i = 0; i < app_.num_ep(); ++i) {
    if (!app_.controllers[i].device_present) continue;
    const uint64_t bar = app_.devices[i]->images.virtio_bar0();
    if (bar != 0 && h.address >= bar + VNET_BAR0_MSIX_TABLE && h.address < bar + VNET_BAR0_DOORBELL + VNET_BAR0_DOORBELL_LEN)
      return int(i);
  }
  return -1;
}

void VnetApp::receive_up(Tlp& t) {
  const tlp::Header& h = pcie::hdr(t);
  if (tlp::is_completion(h.type)) {
    // The completion of an endpoint's DMA read: to the endpoint on the requester's bus.
    const uint8_t bus = uint8_t(h.requester_id >> 8);
    for (unsigned i = 0; i < app_.num_ep(); ++i) {
      if (app_.dsps[i]->secondary() == bus && bus != 0 && app_.links[i]->up()) {
        down[i]->send(t, traversal());
        return;
      }
    }
    app_.ctx.event(pe1_->dummy_path(), "unexpected_completion").u64("tlp", pcie::ext(t).serial)
        .str("requester", tlp::bdf_str(h.requester_id)).u64("tag", h.tag).str("reason", "no endpoint on that bus");
    t.release();
    return;
  }
  const int fw = firmware_target(h);
  if (fw >= 0) {
    down[unsigned(fw)]->send(t, traversal());
    return;
  }
  pe1_->enqueue(t);
}

void VnetApp::receive_down(Tlp& t) {
  // DMA, MSI-X messages and firmware's completions go up the DPU's link as they are.
  up.send(t, traversal());
}

void VnetApp::trace(sc_trace_file* vcd) {
  const std::string base = name();
  sc_trace(vcd, pe1_->trace_queue, base + ".pe1_queue", 32);
  sc_trace(vcd, app_.wq.trace_pending, base + ".workqueue_pending", 32);
  sc_trace(vcd, app_.wq.trace_busy, base + ".worker_busy");
  sc_trace(vcd, mq_->trace_running, base + ".mq_running", 32);
  sc_trace(vcd, msi_->trace_credits, base + ".acg_credits", 32);
  for (unsigned i = 0; i < app_.num_ep(); ++i) {
    sc_trace(vcd, app_.trace_status[i], "ep" + std::to_string(i) + ".device_status", 8);
    const std::string dsp = app_.dsps[i]->path();
    sc_trace(vcd, slots_->trace_dllla[i], dsp + ".dllla");
    sc_trace(vcd, slots_->trace_slot_ctl[i], dsp + ".slot_ctl", 16);
    sc_trace(vcd, slots_->trace_slot_sta[i], dsp + ".slot_sta", 16);
    sc_trace(vcd, slots_->trace_pending_unplug[i], dsp + ".pending_unplug");
    sc_trace(vcd, msi_->trace_retry[i], dsp + ".msi_retry");
  }
}

}  // namespace dpusim::vnet
