#include "vnet/switch/slots.h"

#include "tlm/pci_regs.h"
#include "vnet/switch/bridge_image.h"
#include "vnet/app/cleanup.h"
#include "vnet/switch/dsp_msi.h"
#include "vnet/app/vnet_timing.h"

namespace dpusim::vnet {

using namespace dpusim::pci;

namespace {
constexpr unsigned UNPLUG_PLUG_ACK_WAIT_MS = 2000;
constexpr uint16_t kExp = TLP_BRIDGE_EXP_CAP;  // the DSP's Express capability
}  // namespace

Slots::Slots(AppEnv& env, AppPorts& ports, AppDevices& devs, AppWork& work, DspMsi& msi, Cleanup& cleanup)
    : env_(env), ports_(ports), devs_(devs), work_(work), msi_(msi), cleanup_(cleanup), timers_(devs.num_ep()) {
  const unsigned n = devs.num_ep();
  trace_slot_ctl.assign(n, 0);
  trace_slot_sta.assign(n, 0);
  trace_dllla.assign(n, false);
  trace_pending_unplug.assign(n, false);
}

void Slots::refresh_traces() {
  for (unsigned i = 0; i < devs_.num_ep(); ++i) {
    const pcie::ConfigSpace& cfg = ports_.dsps[i]->cfg;
    trace_slot_ctl[i] = uint16_t(cfg.get(kExp + PCI_EXP_SLTCTL, 2));
    trace_slot_sta[i] = uint16_t(cfg.get(kExp + PCI_EXP_SLTSTA, 2));
    trace_dllla[i] = cfg.get(kExp + PCI_EXP_LNKSTA, 2) & PCI_EXP_LNKSTA_DLLLA;
    trace_pending_unplug[i] = devs_.controllers[i].pending_unplug;
  }
}

bool Slots::any_pending_unplug() const {
  for (const Controller& c : devs_.controllers)
    if (c.pending_unplug) return true;
  return false;
}

void Slots::set_device_present(unsigned i, bool present) {
  Controller& c = devs_.controllers[i];
  c.device_present = present;
  if (!present) {
    // Destroy: the internal BARs are zeroed; the VirtIO image is kept as it is.
    pcie::ConfigSpace& internal = devs_.devices[i]->images.internal();
    internal.set(PCI_BASE_ADDRESS_0, 4, 0);
    internal.set(PCI_BASE_ADDRESS_0 + 4, 4, 0);
  }
  env_.event("device_present").u64("ep", i).boolean("present", present);
}

void Slots::slot_power(unsigned i, bool on) {
  pcie::ConfigSpace& cfg = ports_.dsps[i]->cfg;
  if (on) {
    // Only with a card present (PDS): otherwise the edge changes nothing.
    if (!(cfg.get(kExp + PCI_EXP_SLTSTA, 2) & PCI_EXP_SLTSTA_PDS)) return;
    cfg.set_bits(kExp + PCI_EXP_LNKSTA, 2, PCI_EXP_LNKSTA_DLLLA);
    env_.log.info(kMainThread, "Power ON (bit10: 1->0): DLActive set, link_status=0x%04X", cfg.get(kExp + PCI_EXP_LNKSTA, 2));
    if (ports_.links[i] && devs_.controllers[i].device_present) ports_.links[i]->set_up(true);
    return;
  }
  cfg.clear_bits(kExp + PCI_EXP_LNKSTA, 2, PCI_EXP_LNKSTA_DLLLA);
  env_.log.info(kMainThread, "Power OFF (bit10: 0->1): DLActive cleared, link_status=0x%04X", cfg.get(kExp + PCI_EXP_LNKSTA, 2));
  if (ports_.links[i]) ports_.links[i]->set_up(false);
  // Only this real edge destroys (a fixed bug destroyed on any write with DLActive = 0).
  const Controller& c = devs_.controllers[i];
  if (!c.pending_unplug || !c.device_present) return;
  env_.log.info(kMainThread, "DSP[%u] power off (DLActive=0) - triggering endpoint destroy", i);
  submit_delayed_destroy(i, kMainThread);
}

void Slots::slot_command_completed(unsigned i) {
  pcie::ConfigSpace& cfg = ports_.dsps[i]->cfg;
  cfg.set_bits(kExp + PCI_EXP_SLTSTA, 2, PCI_EXP_SLTSTA_CC);
  env_.log.debug(kMainThread, "Command Completed: control=0x%04X, status=0x%04X", cfg.get(kExp + PCI_EXP_SLTCTL, 2),
             cfg.get(kExp + PCI_EXP_SLTSTA, 2));
  if (!(cfg.get(kExp + PCI_EXP_SLTCTL, 2) & PCI_EXP_SLTCTL_CCIE)) return;
  // Never retried: a host waiting on this interrupt falls back to its own timeout.
  if (const char* err = msi_.send(i, kMainThread))
    env_.log.debug(kMainThread, "Failed to send Command Completed MSI: %s", err);
  else env_.log.info(kMainThread, "Command Completed MSI sent");
}

bool Slots::submit_delayed_destroy(unsigned i, const char* thread) {
  Controller& c = devs_.controllers[i];
  if (!c.pending_unplug) {
    env_.log.debug(thread, "No pending unplug, skipping delayed destroy");
    return false;
  }
  if (c.pending_destroy) {  // a compare-and-swap in the source
    env_.log.debug(thread, "Delayed destroy already queued, skipping");
    return false;
  }
  c.pending_destroy = true;
  WorkItem it;
  it.type = WorkType::DELAYED_DESTROY;
  it.arg = i;
  if (!work_.wq.submit(it)) {
    env_.log.error(thread, "Failed to alloc work item for delayed destroy");
    c.pending_destroy = false;
    return false;
  }
  env_.log.info(thread, "Delayed device destroy queued");
  return true;
}

// ---- the worker's HOTPLUG_EVENT (trigger_hotplug_event) -------------------------------------

void Slots::hotplug_event(unsigned i, bool plug, pcie::Activity& w) {
  const char* op = plug ? "plug" : "unplug";
  env_.log.info(kWorkerThread, "Executing async hotplug: DSP[%u] %s", i, op);
  work_.item_result = nullptr;
  if (hotplug_allowed(i, plug)) {
    if (plug) plug_device(i, w);
    else unplug_device(i, w);
  }
  // The worker's own line for the outcome, once the item's steps are done.
  w.then([this, i, op] {
    const char* r = work_.item_result;
    if (r && std::string(r) == "DOCA_ERROR_AGAIN")
      env_.log.warn(kWorkerThread, "Async hotplug DSP[%u] %s: transient, retry later", i, op);
    else if (r) env_.log.error(kWorkerThread, "Async hotplug failed: %s", r);
    else env_.log.info(kWorkerThread, "Async hotplug DSP[%u] %s completed", i, op);
  });
}

bool Slots::hotplug_allowed(unsigned i, bool plug) {
  if (i >= devs_.num_ep()) {
    env_.log.error(kWorkerThread, "Invalid DSP index: %u (max: %u)", i, devs_.num_ep() - 1);
    work_.item_result = "DOCA_ERROR_INVALID_VALUE";
    return false;
  }
  const Controller& c = devs_.controllers[i];
  // pending_unplug before HPIE: the host clears HPIE during its power-off sequence, and a plug
  // then would otherwise report the wrong reason.
  if (plug && c.pending_unplug) {
    env_.log.warn(kWorkerThread, "DSP[%u] plug rejected: unplug still in progress", i);
    work_.item_result = "DOCA_ERROR_IN_PROGRESS";
    return false;
  }
  if (ports_.dsps[i]->cfg.get(kExp + PCI_EXP_SLTCTL, 2) & PCI_EXP_SLTCTL_HPIE) return true;
  if (plug && !c.device_present) {
    env_.log.warn(kWorkerThread,
              "DSP[%u] plug: HP interrupt not enabled - host pciehp may still be completing power off sequence, "
              "retry later", i);
    work_.item_result = "DOCA_ERROR_AGAIN";  // nothing retries it by itself
    return false;
  }
  env_.log.error(kWorkerThread, "HP interrupt not enabled for DSP[%u], hotplug not supported", i);
  work_.item_result = "DOCA_ERROR_NOT_SUPPORTED";
  return false;
}

void Slots::plug_device(unsigned i, pcie::Activity& w) {
  Controller& c = devs_.controllers[i];
  if (c.device_present) {
    env_.log.warn(kWorkerThread, "DSP[%u] already has device, cannot plug again", i);
    work_.item_result = "DOCA_ERROR_ALREADY_EXIST";
    return;
  }
  msi_.clear_retry(i);
  env_.log.info(kWorkerThread, "Creating device for DSP[%u]", i);
  // create_device (representor, TLP device, controller with its offload engine): one cost.
  w.then(env_.cost(vnet::timing::work_create_device_ps), [this, i] {
    Controller& c = devs_.controllers[i];
    c.pending_unplug = c.pending_destroy = false;
    // vnet_pci_dev_vnet_controller_create starts a fresh controller on the same engine.
    c.cleanup_running = c.initialization_in_progress = c.deferred_init_pending = false;
    c.first_ctrl_req_delay_done = c.initial_data_qps_deferred = false;
    c.deferred_mq.reset();
    c.max_queue_pairs = devs_.devices[i]->max_queue_pairs();
    devs_.devices[i]->reset_status_state = ResetStatusState::IDLE;
    set_device_present(i, true);
    env_.log.info(kWorkerThread, "Device created: VHCA ID=0x%x", 0x100 + i);
    notify_slot_event(i, true);
  });
}

void Slots::unplug_device(unsigned i, pcie::Activity& w) {
  const Controller& c = devs_.controllers[i];
  if (!c.device_present) {
    env_.log.error(kWorkerThread, "DSP[%u] has no device, cannot unplug", i);
    work_.item_result = "DOCA_ERROR_NOT_FOUND";
    return;
  }
  if (c.pending_unplug) {
    env_.log.warn(kWorkerThread, "DSP[%u] already pending unplug", i);
    work_.item_result = "DOCA_ERROR_IN_PROGRESS";
    return;
  }
  // Plug-ack wait: DLActive polled every 1 ms, at most 2000 times (pciehp coalesces a plug's
  // and an unplug's MSIs and loses the unplug's attention button otherwise).
  auto waited = std::make_shared<unsigned>(0);
  w.wait_until([this, i, waited] {
    const bool up = ports_.dsps[i]->cfg.get(kExp + PCI_EXP_LNKSTA, 2) & PCI_EXP_LNKSTA_DLLLA;
    return up || ++*waited > UNPLUG_PLUG_ACK_WAIT_MS;
  }, sc_core::sc_time(1, sc_core::SC_MS));
  w.then([this, i, waited] {
    const bool up = ports_.dsps[i]->cfg.get(kExp + PCI_EXP_LNKSTA, 2) & PCI_EXP_LNKSTA_DLLLA;
    if (!up)
      env_.log.warn(kWorkerThread, "DSP[%u] unplug: host did not ACK plug within %dms (DLActive=0); proceeding - "
                "UNPLUG_TIMEOUT_SEC safety net will force-destroy if host also ignores ABP", i, int(UNPLUG_PLUG_ACK_WAIT_MS));
    else if (*waited > 0)
      env_.log.info(kWorkerThread, "DSP[%u] unplug: waited %dms for host plug-ack", i, int(*waited));
    env_.log.info(kWorkerThread, "Initiating unplug for DSP[%u] - waiting for host power off", i);
    devs_.controllers[i].pending_unplug = true;
    arm_unplug_timeout(i);
    notify_slot_event(i, false);
  });
}

void Slots::update_dsp_slot_status(unsigned i, bool plug) {
  // ABP mode: a plug sets ABP + PDC + PDS and waits for the host's Power ON (DLActive stays 0);
  // an unplug sets ABP only (PDS stays 1, DLActive is cleared by the host's Power OFF).
  pcie::ConfigSpace& cfg = ports_.dsps[i]->cfg;
  cfg.set_bits(kExp + PCI_EXP_SLTSTA, 2,
               plug ? PCI_EXP_SLTSTA_ABP | PCI_EXP_SLTSTA_PDC | PCI_EXP_SLTSTA_PDS : PCI_EXP_SLTSTA_ABP);
  if (plug) env_.log.info(kWorkerThread, "Device plugged (ABP mode): ABP=1, PDC=1, PDS=1, DLActive=0");
  else env_.log.info(kWorkerThread, "Device unplugged (ABP mode): ABP=1, waiting for Host Power OFF");
  env_.log.debug(kWorkerThread, "DSP Slot Status updated: present=%d, status=0x%04X, link_status=0x%04X", plug ? 1 : 0,
             cfg.get(kExp + PCI_EXP_SLTSTA, 2), cfg.get(kExp + PCI_EXP_LNKSTA, 2));
  refresh_traces();
}

void Slots::notify_slot_event(unsigned i, bool plug) {
  const char* op = plug ? "plug" : "unplug";
  update_dsp_slot_status(i, plug);
  // Without a credit the main loop retries; without host MSI set-up the host must poll.
  if (const char* err = msi_.send(i, kWorkerThread)) {
    if (std::string(err) == "DOCA_ERROR_AGAIN") msi_.schedule_retry(i, op);
    else env_.log.debug(kWorkerThread, "DSP[%u] %s: MSI not sent (%s) - host will poll Slot Status", i, op, err);
  }
  env_.log.info(kWorkerThread, "Hotplug: DSP[%u] %s%s", i, op, plug ? "" : " (pending host reset)");
}

// ---- DELAYED_DESTROY (vnet_pci_dev_destroy_device) -------------------------------------------

void Slots::delayed_destroy(unsigned i, pcie::Activity& w) {
  env_.log.info(kWorkerThread, "Executing delayed destroy after host reset");
  env_.log.debug(kWorkerThread, "Destroying device: vhca_id=0x%x", 0x100 + i);
  // Under the endpoint's write lock: undiscoverable at once, later TLPs get UR.
  set_device_present(i, false);
  msi_.clear_retry(i);
  refresh_traces();
  // vnet_pci_dev_vnet_controller_destroy: the full teardown, engine destroyed.
  const Controller& c = devs_.controllers[i];
  env_.log.info(kWorkerThread, "Beginning device shutdown (vqs_initialized=%d, engine_started=%d, engine_enabled=%d)...",
            c.vqs_created ? 1 : 0, c.offload_engine_started ? 1 : 0, c.engine_enabled ? 1 : 0);
  cleanup_.controller_cleanup(i, true, w, kWorkerThread);
  w.then([this] { env_.log.info(kWorkerThread, "VNet controller destroyed successfully"); });
  // The TLP device stopped and destroyed, the representor destroyed: one cost.
  w.then(env_.cost(vnet::timing::work_destroy_device_ps), [this, i] {
    env_.log.debug(kWorkerThread, "TLP device stopped");
    env_.log.debug(kWorkerThread, "TLP device destroyed");
    Controller& c = devs_.controllers[i];
    c.pending_unplug = c.pending_destroy = false;
    env_.log.info(kWorkerThread, "Device destroyed successfully (delayed)");
    refresh_traces();
  });
}

// ---- the unplug timeout (run_progress_loop) --------------------------------------------------

void Slots::arm_unplug_timeout(unsigned i) {
  // The main loop compares whole seconds of the monotonic clock on each iteration
  // (now.tv_sec - start.tv_sec >= UNPLUG_TIMEOUT_SEC): the removal comes 29 to 30 s after the
  // start, at the first iteration of the 30th second boundary (app_state.h, docs/fidelity.md).
  UnplugTimer& s = timers_[i];
  s.start_ps = env_.ctx.now_ps();
  check_unplug_timeout_at(i, env_.loop_iteration_after_seconds(s.start_ps, kUnplugTimeoutSec));
}

void Slots::check_unplug_timeout_at(unsigned i, uint64_t at_ps) {
  const uint64_t timer = ++timers_[i].current;
  env_.later.at(sc_core::sc_time::from_value(at_ps - env_.ctx.now_ps()), [this, i, timer] {
    if (timers_[i].current == timer) unplug_timeout(i);
  });
}

void Slots::unplug_timeout(unsigned i) {
  Controller& c = devs_.controllers[i];
  if (!env_.loop_running) return;  // the application left its main loop: no more checks
  if (!c.pending_unplug || c.pending_destroy) return;
  const long elapsed = long(AppEnv::app_seconds(env_.ctx.now_ps()) - AppEnv::app_seconds(timers_[i].start_ps));
  env_.log.warn(kMainThread, "DSP[%u] unplug timeout (%lds) - forcing device removal from DPU", i, elapsed);
  // vnet_pci_dev_force_reset: the host sees RESET if it touches the device again.
  VirtioPciDevice& dev = *devs_.devices[i];
  dev.set_status(0);
  dev.prev_status = 0;
  env_.log.info(kMainThread, "Forced VirtIO RESET on pf_index=%d (device_status=0)", int(i));
  // Link down and slot empty, PDC set: but no MSI is sent.
  pcie::ConfigSpace& cfg = ports_.dsps[i]->cfg;
  cfg.clear_bits(kExp + PCI_EXP_LNKSTA, 2, PCI_EXP_LNKSTA_DLLLA);
  cfg.clear_bits(kExp + PCI_EXP_SLTSTA, 2, PCI_EXP_SLTSTA_PDS);
  cfg.set_bits(kExp + PCI_EXP_SLTSTA, 2, PCI_EXP_SLTSTA_PDC);
  if (ports_.links[i]) ports_.links[i]->set_up(false);
  refresh_traces();
  submit_delayed_destroy(i, kMainThread);
  if (c.pending_destroy) {
    arm_unplug_timeout(i);  // the timer restarts: a failed destroy is retried after it
    env_.log.info(kMainThread, "DSP[%u] forced unplug: delayed_destroy submitted", i);
    return;
  }
  env_.log.warn(kMainThread, "DSP[%u] forced unplug: failed to enqueue destroy, will retry next loop", i);
  check_unplug_timeout_at(i, env_.loop_iteration_at(env_.ctx.now_ps() + 1));
}

}  // namespace dpusim::vnet
