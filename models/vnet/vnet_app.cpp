#include "vnet/vnet_app.h"

#include "tlm/completer.h"
#include "tlm/link.h"
#include "tlm/pci_regs.h"
#include "vnet/bridge_image.h"
#include "vnet/vnet_layout.h"
#include "vnet/vnet_timing.h"

namespace dpusim::vnet {

using namespace sc_core;
using namespace dpusim::pci;
using pcie::Tlp;

VnetApp::VnetApp(sc_module_name name, pcie::SimContext& ctx, const VnetOptions& options, const AcgSpec& acg)
    : sc_module(name),
      up("up"),
      ctx_(ctx),
      opt_(options),
      log_(ctx),
      later_("later"),
      pe1_(later_),
      wq_(ctx, log_, later_),
      dummy_path_(std::string(this->name()) + ".dummy"),
      acg_spec_(acg) {
  const unsigned n = unsigned(opt_.num_ep);
  const std::string base = this->name();
  log_.info(kMainThread, "Starting DOCA VirtIO Net PCI Device application");
  log_.info(kMainThread, "Configuration:");
  log_.info(kMainThread, "  Max Queue Pairs: %u (Total VQs: %u)", unsigned(opt_.max_queue_pairs),
            VNET_TOTAL_VQS(unsigned(opt_.max_queue_pairs)));
  // vnet_pci_dev_start: the channel takes ACG in hotplug mode only; init_acg_queue either way.
  if (!opt_.static_mode()) log_.info(kMainThread, "ACG enabled for MSI interrupts");
  acg_init();

  usp_ = std::make_unique<sw::Bridge>(base + ".usp", ctx);
  init_usp_image(*usp_, log_);
  usp_->cfg.on_write(PCI_PRIMARY_BUS, 4, [this](uint16_t, uint32_t before, uint32_t after, uint8_t) {
    on_bus_config(-1, before, after);
  });
  up.set_receiver([this](Tlp& t) { receive_up(t); });
  for (unsigned i = 0; i < n; ++i) {
    down.push_back(std::make_unique<pcie::Port>(("down" + std::to_string(i)).c_str()));
    down.back()->set_receiver([this](Tlp& t) { receive_down(t); });
    auto dsp = std::make_unique<sw::Bridge>(base + ".dsp" + std::to_string(i), ctx);
    init_dsp_image(*dsp, i, log_,
                   SlotEvents{[this, i](bool on) { slot_power(i, on); }, [this, i] { slot_command_completed(i); }});
    dsp->cfg.on_write(PCI_PRIMARY_BUS, 4, [this, i](uint16_t, uint32_t before, uint32_t after, uint8_t) {
      on_bus_config(int(i), before, after);
    });
    dsps_.push_back(std::move(dsp));
    devices_.push_back(std::make_unique<VirtioPciDevice>(i, opt_, ctx, log_));
    controllers_.emplace_back();
    controllers_.back().index = i;
  }
  links_.assign(n, nullptr);
  recorded_bdf_.assign(2 * n + 2, 0);
  ep_pf_bus_.assign(n, -1);
  trace_status_.assign(n, 0);
  for (unsigned i = 0; i < n; ++i) trace_status_[i] = devices_[i]->status();
  trace_slot_ctl_.assign(n, 0);
  trace_slot_sta_.assign(n, 0);
  trace_dllla_.assign(n, false);
  trace_pending_unplug_.assign(n, false);
  trace_msi_retry_.assign(n, false);
  slots_.assign(n, SlotState{});
  refresh_slot_traces();

  wq_.execute = [this](const WorkItem& it, pcie::Activity& w) {
    command_item_started(it);
    execute(it, w);
  };
  wq_.generation_of = [this](int dev) { return devices_[unsigned(dev)]->reset_generation; };
  wq_.progress_pes = [this](pcie::Activity& w) { progress_pes(w); };
  wq_.after_item = [this](const WorkItem& it, bool skipped) {
    check_reset_hold_liveness(it, skipped);
    command_item_done(it, skipped);
  };

  log_.info(kMainThread, "Initialized topology: %u bridges (1 USP + %u DSP), %u endpoints", n + 1, n, n);
  log_.info(kMainThread, "  - %u Single-PF devices (function 0 each)", n);
  log_.info(kMainThread, "Bus numbers will be configured by Host during PCI enumeration");
  log_.info(kMainThread, "Host will write bus numbers via Type 1 config write to bridges");
  log_.tap = [this](std::string_view thread, const char* level, const char* msg) {
    Command* c = thread == kMainThread ? main_capture_ : thread == kWorkerThread ? worker_capture_ : nullptr;
    if (c) c->lines.push_back(Command::Line{std::string(thread), level, msg});
  };
}

void VnetApp::attach(unsigned i, VnetEndpoint* engine, pcie::Link* link) {
  controllers_[i].engine = engine;
  links_[i] = link;
  link->set_up(false);
  engine->on_device_error = [this, i](const std::string& reason) { device_needs_reset(i, reason); };
}

void VnetApp::create_static_devices() {
  for (unsigned i = 0; i < num_ep(); ++i) {
    set_device_present(i, true);
    dsp_static_power_on(*dsps_[i], i, log_);
    links_[i]->set_up(true);
  }
  refresh_slot_traces();
}

void VnetApp::refresh_slot_traces() {
  const uint16_t x = TLP_BRIDGE_EXP_CAP;
  for (unsigned i = 0; i < dsps_.size(); ++i) {
    trace_slot_ctl_[i] = uint16_t(dsps_[i]->cfg.get(x + PCI_EXP_SLTCTL, 2));
    trace_slot_sta_[i] = uint16_t(dsps_[i]->cfg.get(x + PCI_EXP_SLTSTA, 2));
    trace_dllla_[i] = dsps_[i]->cfg.get(x + PCI_EXP_LNKSTA, 2) & PCI_EXP_LNKSTA_DLLLA;
    trace_pending_unplug_[i] = controllers_[i].pending_unplug;
  }
}

// ---- routing ------------------------------------------------------------------------------

int VnetApp::firmware_target(const tlp::Header& h) const {
  if (h.type != tlp::Type::MRd && h.type != tlp::Type::MWr) return -1;
  for (unsigned i = 0; i < num_ep(); ++i) {
    if (!controllers_[i].device_present) continue;
    const uint64_t bar = devices_[i]->images.virtio_bar0();
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
    for (unsigned i = 0; i < num_ep(); ++i) {
      if (dsps_[i]->secondary() == bus && bus != 0 && links_[i]->up()) {
        down[i]->send(t, traversal());
        return;
      }
    }
    ctx_.event(dummy_path_, "unexpected_completion").u64("tlp", pcie::ext(t).serial)
        .str("requester", tlp::bdf_str(h.requester_id)).u64("tag", h.tag).str("reason", "no endpoint on that bus");
    t.release();
    return;
  }
  const int fw = firmware_target(h);
  if (fw >= 0) {
    down[unsigned(fw)]->send(t, traversal());
    return;
  }
  pe1_enqueue(t);
}

void VnetApp::receive_down(Tlp& t) {
  // DMA, MSI-X messages and firmware's completions go up the DPU's link as they are.
  up.send(t, traversal());
}

// ---- PE1 ----------------------------------------------------------------------------------

void VnetApp::pe1_enqueue(Tlp& t) {
  const tlp::Type type = pcie::hdr(t).type;
  const pcie::TimingParam& cost_id = type == tlp::Type::MRd   ? timing::pe1_mmio_read_ps
                                     : type == tlp::Type::MWr ? timing::pe1_mmio_write_ps
                                                              : timing::pe1_config_ps;
  pe1_fifo_.push_back(Pe1Entry{&t, ctx_.now_ps(), ctx_.timing.get(cost_id)});
  trace_pe1_queue_ = uint32_t(pe1_fifo_.size());
  pe1_.then(cost(cost_id), [this] { pe1_serve(); });
}

void VnetApp::pe1_serve() {
  const Pe1Entry e = pe1_fifo_.front();
  pe1_fifo_.pop_front();
  trace_pe1_queue_ = uint32_t(pe1_fifo_.size());
  Tlp& t = *e.tlp;
  const tlp::Header h = pcie::hdr(t);
  const uint64_t serial = pcie::ext(t).serial;
  // For the trace: PE1 spent the handler's cost on this TLP, up to now.
  ctx_.sink_event(kMainThread, "pe1_service")
      .str("type", tlp::type_name(h.type))
      .u64("tlp", serial)
      .u64("arrival_ps", e.arrival_ps)
      .u64("from_ps", ctx_.now_ps() - e.cost_ps);
  if (tlp::is_config(h.type)) {
    service_config(t);
  } else if (h.type == tlp::Type::MRd || h.type == tlp::Type::MWr) {
    service_memory(t);
  } else {
    // I/O, messages, atomics: INVALID, routed to the dummy.
    t.release();
    dummy_ur(h, recorded_bdf_.back());
  }
  refresh_slot_traces();
  // The bound covers queueing and any wait the handler had (a reset barrier).
  pe1_.then([this, e, h, serial] {
    const uint64_t took = ctx_.now_ps() - e.arrival_ps, bound = ctx_.timing.get(vnet::timing::pe1_bound_ps);
    if (took > bound)
      ctx_.checker.violation(ctx_.now_ps(), kMainThread, "pe1_service_bound",
                             std::string(tlp::type_name(h.type)) + " #" + std::to_string(serial) + " took " +
                                 std::to_string(took) + " ps from arrival to completion, over the bound of " +
                                 std::to_string(bound) + " ps");
  });
}

void VnetApp::trace(sc_trace_file* vcd) {
  const std::string base = name();
  sc_trace(vcd, trace_pe1_queue_, base + ".pe1_queue", 32);
  sc_trace(vcd, wq_.trace_pending, base + ".workqueue_pending", 32);
  sc_trace(vcd, wq_.trace_busy, base + ".worker_busy");
  sc_trace(vcd, trace_mq_running_, base + ".mq_running", 32);
  sc_trace(vcd, trace_acg_credits_, base + ".acg_credits", 32);
  for (unsigned i = 0; i < num_ep(); ++i) {
    sc_trace(vcd, trace_status_[i], "ep" + std::to_string(i) + ".device_status", 8);
    const std::string dsp = dsps_[i]->path();
    sc_trace(vcd, trace_dllla_[i], dsp + ".dllla");
    sc_trace(vcd, trace_slot_ctl_[i], dsp + ".slot_ctl", 16);
    sc_trace(vcd, trace_slot_sta_[i], dsp + ".slot_sta", 16);
    sc_trace(vcd, trace_pending_unplug_[i], dsp + ".pending_unplug");
    sc_trace(vcd, trace_msi_retry_[i], dsp + ".msi_retry");
  }
}

}  // namespace dpusim::vnet
