#include "vnet/app/app_process.h"

#include "tlm/pci_regs.h"
#include "vnet/switch/bridge_image.h"
#include "vnet/app/cleanup.h"
#include "vnet/app/command.h"
#include "vnet/app/cvq_handler.h"
#include "vnet/switch/dsp_msi.h"
#include "vnet/lu/live_update.h"
#include "vnet/app/mq_start.h"
#include "vnet/app/pe1.h"
#include "vnet/switch/slots.h"
#include "vnet/sriov/sriov.h"
#include "vnet/app/status_machine.h"
#include "vnet/virtio/vnet_layout.h"
#include "vnet/app/work_items.h"

namespace dpusim::vnet {

using namespace dpusim::pci;

AppProcess::AppProcess(AppShared& shared, unsigned pid, const AcgSpec& acg)
    : shared_(shared), pid_(pid), acg_(acg), log_(shared.ctx, pid), lu_(std::make_unique<LiveUpdate>(*this)) {}

AppProcess::~AppProcess() = default;

void AppProcess::log_banner(AppLog& log, const VnetOptions& o) {
  log.info(kMainThread, "Starting DOCA VirtIO Net PCI Device application");
  log.info(kMainThread, "Configuration:");
  log.info(kMainThread, "  Max Queue Pairs: %u (Total VQs: %u)", unsigned(o.max_queue_pairs),
           VNET_TOTAL_VQS(unsigned(o.max_queue_pairs)));
}

void AppProcess::build(const VnetOptions& options, bool channel_setup) {
  app_ = std::make_unique<AppState>(shared_.ctx, options, shared_.path, shared_.later, pid_);
  // Each component takes the parts of the state it uses (app_state.h).
  AppEnv& env = *app_;
  AppPorts& ports = *app_;
  AppDevices& devs = *app_;
  AppWork& work = *app_;
  invariants_ = std::make_unique<AppInvariants>(env, devs);
  const unsigned n = unsigned(app_->opt.num_ep);
  AppLog& log = app_->log;
  status_ = std::make_unique<StatusMachine>(env, devs, work, *invariants_);
  msi_ = std::make_unique<DspMsi>(env, ports, acg_, shared_.send_up);
  // vnet_pci_dev_start: the channel takes ACG in hotplug mode only; init_acg_queue either way.
  if (channel_setup) {
    if (!app_->opt.static_mode()) log.info(kMainThread, "ACG enabled for MSI interrupts");
    msi_->init();
  }

  const std::string base = shared_.path;
  app_->usp = std::make_unique<sw::Bridge>(base + ".usp", shared_.ctx);
  init_usp_image(*app_->usp, log);
  app_->usp->cfg.on_write(PCI_PRIMARY_BUS, 4, [this](uint16_t, uint32_t before, uint32_t after, uint8_t) {
    pe1_->on_bus_config(-1, before, after);
  });
  for (unsigned i = 0; i < n; ++i) {
    auto dsp = std::make_unique<sw::Bridge>(base + ".dsp" + std::to_string(i), shared_.ctx);
    init_dsp_image(*dsp, i, log,
                   SlotEvents{[this, i](bool on) { slots_->slot_power(i, on); },
                              [this, i] { slots_->slot_command_completed(i); }},
                   app_->opt.sriov());
    dsp->cfg.on_write(PCI_PRIMARY_BUS, 4, [this, i](uint16_t, uint32_t before, uint32_t after, uint8_t) {
      pe1_->on_bus_config(int(i), before, after);
    });
    app_->dsps.push_back(std::move(dsp));
    app_->devices.push_back(std::make_unique<VirtioPciDevice>(i, app_->opt, shared_.ctx, log));
    app_->controllers.emplace_back();
    app_->controllers.back().index = i;
  }
  app_->links.assign(n, nullptr);
  app_->trace_status.assign(n, 0);
  for (unsigned i = 0; i < n; ++i) app_->note_status(i);

  if (app_->opt.sriov()) {
    sriov_ = std::make_unique<Sriov>(env, devs, work);
    app_->sriov = sriov_.get();
  }
  pe1_ = std::make_unique<Pe1>(env, ports, devs, *status_, shared_.send_up);
  cleanup_ = std::make_unique<Cleanup>(env, devs, work, *status_);
  slots_ = std::make_unique<Slots>(env, ports, devs, work, *msi_, *cleanup_);
  mq_ = std::make_unique<MqStart>(env, devs, work);
  cvq_ = std::make_unique<CvqHandler>(env, devs, work, *mq_);
  items_ = std::make_unique<WorkItems>(env, devs, work, *cleanup_, *cvq_, *mq_, *slots_);
  console_ = std::make_unique<Console>(env, devs, work);
  pe1_->after_service = [this] { slots_->refresh_traces(); };
  slots_->refresh_traces();

  app_->wq.execute = [this](const WorkItem& it, pcie::Activity& w) {
    console_->item_started(it);
    items_->execute(it, w);
  };
  app_->wq.generation_of = [this](int dev) { return app_->devices[unsigned(dev)]->reset_generation; };
  app_->wq.progress_pes = [this](pcie::Activity& w) { cvq_->progress_pes(w); };
  app_->wq.after_item = [this](const WorkItem& it, bool skipped) {
    items_->check_reset_hold_liveness(it, skipped);
    console_->item_done(it, skipped);
  };

  log.info(kMainThread, "Initialized topology: %u bridges (1 USP + %u DSP), %u endpoints", n + 1, n, n);
  log.info(kMainThread, "  - %u Single-PF devices (function 0 each)", n);
  log.info(kMainThread, "Bus numbers will be configured by Host during PCI enumeration");
  log.info(kMainThread, "Host will write bus numbers via Type 1 config write to bridges");
}

void AppProcess::attach(unsigned i) {
  app_->controllers[i].engine = shared_.engines[i];
  app_->links[i] = shared_.links[i];
}

void AppProcess::create_static_devices(bool links) {
  for (unsigned i = 0; i < app_->num_ep(); ++i) {
    slots_->set_device_present(i, true);
    dsp_static_power_on(*app_->dsps[i], i, app_->log);
    if (links) app_->links[i]->set_up(true);
  }
  slots_->refresh_traces();
}

bool AppProcess::submit_work(WorkType type, int ep, uint32_t arg, uint32_t arg2) {
  WorkItem it;
  it.type = type;
  it.device = ep;
  it.generation = ep >= 0 && type != WorkType::DELAYED_DESTROY && type != WorkType::HOTPLUG_EVENT
                      ? app_->devices[unsigned(ep)]->reset_generation
                      : 0;
  it.arg = arg;
  it.arg2 = arg2;
  return app_->wq.submit(it);
}

uint64_t AppProcess::command(const std::string& line) { return console_->command(line); }

}  // namespace dpusim::vnet
