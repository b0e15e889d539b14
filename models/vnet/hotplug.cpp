// The downstream ports' slots as the application runs them (vnet-app.md §8; vnet_pci_dev_core.c
// trigger_hotplug_event, update_dsp_slot_status, create_device, vnet_pci_dev_destroy_device,
// run_progress_loop's unplug timeout; vnet_pci_device.c config_space_cap_pcie_write,
// trigger_command_completed): Slot Control power edges and Command Completed, the workqueue's
// hotplug and delayed-destroy items, and the forced removal when the host never powers off.
#include "tlm/pci_regs.h"
#include "vnet/bridge_image.h"
#include "vnet/vnet_app.h"
#include "vnet/vnet_timing.h"

namespace dpusim::vnet {

using namespace dpusim::pci;

namespace {
constexpr unsigned UNPLUG_PLUG_ACK_WAIT_MS = 2000;
constexpr uint64_t UNPLUG_TIMEOUT_SEC = 30;
constexpr uint64_t kPsPerSec = 1000000000000ull;
constexpr uint16_t kExp = TLP_BRIDGE_EXP_CAP;  // the DSP's Express capability
}  // namespace

void VnetApp::set_device_present(unsigned i, bool present) {
  Controller& c = controllers_[i];
  c.device_present = present;
  if (!present) {
    // Destroy: the internal BARs are zeroed; the VirtIO image is kept as it is.
    pcie::ConfigSpace& internal = devices_[i]->images.internal();
    internal.set(PCI_BASE_ADDRESS_0, 4, 0);
    internal.set(PCI_BASE_ADDRESS_0 + 4, 4, 0);
  }
  ctx_.event(name(), "device_present").u64("ep", i).boolean("present", present);
}

void VnetApp::slot_power(unsigned i, bool on) {
  pcie::ConfigSpace& cfg = dsps_[i]->cfg;
  if (on) {
    // Only with a card present (PDS): otherwise the edge changes nothing.
    if (!(cfg.get(kExp + PCI_EXP_SLTSTA, 2) & PCI_EXP_SLTSTA_PDS)) return;
    cfg.set_bits(kExp + PCI_EXP_LNKSTA, 2, PCI_EXP_LNKSTA_DLLLA);
    log_.info(kMainThread, "Power ON (bit10: 1->0): DLActive set, link_status=0x%04X", cfg.get(kExp + PCI_EXP_LNKSTA, 2));
    if (links_[i] && controllers_[i].device_present) links_[i]->set_up(true);
    return;
  }
  cfg.clear_bits(kExp + PCI_EXP_LNKSTA, 2, PCI_EXP_LNKSTA_DLLLA);
  log_.info(kMainThread, "Power OFF (bit10: 0->1): DLActive cleared, link_status=0x%04X", cfg.get(kExp + PCI_EXP_LNKSTA, 2));
  if (links_[i]) links_[i]->set_up(false);
  // Only this real edge destroys (a fixed bug destroyed on any write with DLActive = 0).
  const Controller& c = controllers_[i];
  if (!c.pending_unplug || !c.device_present) return;
  log_.info(kMainThread, "DSP[%u] power off (DLActive=0) - triggering endpoint destroy", i);
  submit_delayed_destroy(i, kMainThread);
}

void VnetApp::slot_command_completed(unsigned i) {
  pcie::ConfigSpace& cfg = dsps_[i]->cfg;
  cfg.set_bits(kExp + PCI_EXP_SLTSTA, 2, PCI_EXP_SLTSTA_CC);
  log_.debug(kMainThread, "Command Completed: control=0x%04X, status=0x%04X", cfg.get(kExp + PCI_EXP_SLTCTL, 2),
             cfg.get(kExp + PCI_EXP_SLTSTA, 2));
  if (!(cfg.get(kExp + PCI_EXP_SLTCTL, 2) & PCI_EXP_SLTCTL_CCIE)) return;
  // Never retried: a host waiting on this interrupt falls back to its own timeout.
  if (const char* err = send_dsp_msi(i, kMainThread))
    log_.debug(kMainThread, "Failed to send Command Completed MSI: %s", err);
  else log_.info(kMainThread, "Command Completed MSI sent");
}

bool VnetApp::submit_delayed_destroy(unsigned i, const char* thread) {
  Controller& c = controllers_[i];
  if (!c.pending_unplug) {
    log_.debug(thread, "No pending unplug, skipping delayed destroy");
    return false;
  }
  if (c.pending_destroy) {  // a compare-and-swap in the source
    log_.debug(thread, "Delayed destroy already queued, skipping");
    return false;
  }
  c.pending_destroy = true;
  WorkItem it;
  it.type = WorkType::DELAYED_DESTROY;
  it.arg = i;
  if (!wq_.submit(it)) {
    log_.error(thread, "Failed to alloc work item for delayed destroy");
    c.pending_destroy = false;
    return false;
  }
  log_.info(thread, "Delayed device destroy queued");
  return true;
}

// ---- the worker's HOTPLUG_EVENT (trigger_hotplug_event) -------------------------------------

void VnetApp::hotplug_event(unsigned i, bool plug, pcie::Activity& w) {
  const char* op = plug ? "plug" : "unplug";
  log_.info(kWorkerThread, "Executing async hotplug: DSP[%u] %s", i, op);
  item_result_ = nullptr;
  if (hotplug_allowed(i, plug)) {
    if (plug) plug_device(i, w);
    else unplug_device(i, w);
  }
  // The worker's own line for the outcome, once the item's steps are done.
  w.then([this, i, op] {
    const char* r = item_result_;
    if (r && std::string(r) == "DOCA_ERROR_AGAIN")
      log_.warn(kWorkerThread, "Async hotplug DSP[%u] %s: transient, retry later", i, op);
    else if (r) log_.error(kWorkerThread, "Async hotplug failed: %s", r);
    else log_.info(kWorkerThread, "Async hotplug DSP[%u] %s completed", i, op);
  });
}

bool VnetApp::hotplug_allowed(unsigned i, bool plug) {
  if (i >= num_ep()) {
    log_.error(kWorkerThread, "Invalid DSP index: %u (max: %u)", i, num_ep() - 1);
    item_result_ = "DOCA_ERROR_INVALID_VALUE";
    return false;
  }
  const Controller& c = controllers_[i];
  // pending_unplug before HPIE: the host clears HPIE during its power-off sequence, and a plug
  // then would otherwise report the wrong reason.
  if (plug && c.pending_unplug) {
    log_.warn(kWorkerThread, "DSP[%u] plug rejected: unplug still in progress", i);
    item_result_ = "DOCA_ERROR_IN_PROGRESS";
    return false;
  }
  if (dsps_[i]->cfg.get(kExp + PCI_EXP_SLTCTL, 2) & PCI_EXP_SLTCTL_HPIE) return true;
  if (plug && !c.device_present) {
    log_.warn(kWorkerThread,
              "DSP[%u] plug: HP interrupt not enabled - host pciehp may still be completing power off sequence, "
              "retry later", i);
    item_result_ = "DOCA_ERROR_AGAIN";  // nothing retries it by itself
    return false;
  }
  log_.error(kWorkerThread, "HP interrupt not enabled for DSP[%u], hotplug not supported", i);
  item_result_ = "DOCA_ERROR_NOT_SUPPORTED";
  return false;
}

void VnetApp::plug_device(unsigned i, pcie::Activity& w) {
  Controller& c = controllers_[i];
  if (c.device_present) {
    log_.warn(kWorkerThread, "DSP[%u] already has device, cannot plug again", i);
    item_result_ = "DOCA_ERROR_ALREADY_EXIST";
    return;
  }
  clear_msi_retry(i);
  log_.info(kWorkerThread, "Creating device for DSP[%u]", i);
  // create_device (representor, TLP device, controller with its offload engine): one cost.
  w.then(cost(vnet::timing::work_create_device_ps), [this, i] {
    Controller& c = controllers_[i];
    c.pending_unplug = c.pending_destroy = false;
    // vnet_pci_dev_vnet_controller_create starts a fresh controller on the same engine.
    c.cleanup_running = c.initialization_in_progress = c.deferred_init_pending = false;
    c.first_ctrl_req_delay_done = c.initial_data_qps_deferred = false;
    c.deferred_mq.reset();
    c.max_queue_pairs = devices_[i]->max_queue_pairs();
    devices_[i]->reset_status_state = ResetStatusState::IDLE;
    set_device_present(i, true);
    log_.info(kWorkerThread, "Device created: VHCA ID=0x%x", 0x100 + i);
    notify_slot_event(i, true);
  });
}

void VnetApp::unplug_device(unsigned i, pcie::Activity& w) {
  const Controller& c = controllers_[i];
  if (!c.device_present) {
    log_.error(kWorkerThread, "DSP[%u] has no device, cannot unplug", i);
    item_result_ = "DOCA_ERROR_NOT_FOUND";
    return;
  }
  if (c.pending_unplug) {
    log_.warn(kWorkerThread, "DSP[%u] already pending unplug", i);
    item_result_ = "DOCA_ERROR_IN_PROGRESS";
    return;
  }
  // Plug-ack wait: DLActive polled every 1 ms, at most 2000 times (pciehp coalesces a plug's
  // and an unplug's MSIs and loses the unplug's attention button otherwise).
  auto waited = std::make_shared<unsigned>(0);
  w.wait_until([this, i, waited] {
    const bool up = dsps_[i]->cfg.get(kExp + PCI_EXP_LNKSTA, 2) & PCI_EXP_LNKSTA_DLLLA;
    return up || ++*waited > UNPLUG_PLUG_ACK_WAIT_MS;
  }, sc_core::sc_time(1, sc_core::SC_MS));
  w.then([this, i, waited] {
    const bool up = dsps_[i]->cfg.get(kExp + PCI_EXP_LNKSTA, 2) & PCI_EXP_LNKSTA_DLLLA;
    if (!up)
      log_.warn(kWorkerThread, "DSP[%u] unplug: host did not ACK plug within %dms (DLActive=0); proceeding - "
                "UNPLUG_TIMEOUT_SEC safety net will force-destroy if host also ignores ABP", i, int(UNPLUG_PLUG_ACK_WAIT_MS));
    else if (*waited > 0)
      log_.info(kWorkerThread, "DSP[%u] unplug: waited %dms for host plug-ack", i, int(*waited));
    log_.info(kWorkerThread, "Initiating unplug for DSP[%u] - waiting for host power off", i);
    controllers_[i].pending_unplug = true;
    arm_unplug_timeout(i);
    notify_slot_event(i, false);
  });
}

void VnetApp::update_dsp_slot_status(unsigned i, bool plug) {
  // ABP mode: a plug sets ABP + PDC + PDS and waits for the host's Power ON (DLActive stays 0);
  // an unplug sets ABP only (PDS stays 1, DLActive is cleared by the host's Power OFF).
  pcie::ConfigSpace& cfg = dsps_[i]->cfg;
  cfg.set_bits(kExp + PCI_EXP_SLTSTA, 2,
               plug ? PCI_EXP_SLTSTA_ABP | PCI_EXP_SLTSTA_PDC | PCI_EXP_SLTSTA_PDS : PCI_EXP_SLTSTA_ABP);
  if (plug) log_.info(kWorkerThread, "Device plugged (ABP mode): ABP=1, PDC=1, PDS=1, DLActive=0");
  else log_.info(kWorkerThread, "Device unplugged (ABP mode): ABP=1, waiting for Host Power OFF");
  log_.debug(kWorkerThread, "DSP Slot Status updated: present=%d, status=0x%04X, link_status=0x%04X", plug ? 1 : 0,
             cfg.get(kExp + PCI_EXP_SLTSTA, 2), cfg.get(kExp + PCI_EXP_LNKSTA, 2));
  refresh_slot_traces();
}

void VnetApp::notify_slot_event(unsigned i, bool plug) {
  const char* op = plug ? "plug" : "unplug";
  update_dsp_slot_status(i, plug);
  // Without a credit the main loop retries; without host MSI set-up the host must poll.
  if (const char* err = send_dsp_msi(i, kWorkerThread)) {
    if (std::string(err) == "DOCA_ERROR_AGAIN") schedule_msi_retry(i, op);
    else log_.debug(kWorkerThread, "DSP[%u] %s: MSI not sent (%s) - host will poll Slot Status", i, op, err);
  }
  log_.info(kWorkerThread, "Hotplug: DSP[%u] %s%s", i, op, plug ? "" : " (pending host reset)");
}

// ---- DELAYED_DESTROY (vnet_pci_dev_destroy_device) -------------------------------------------

void VnetApp::delayed_destroy(unsigned i, pcie::Activity& w) {
  log_.info(kWorkerThread, "Executing delayed destroy after host reset");
  log_.debug(kWorkerThread, "Destroying device: vhca_id=0x%x", 0x100 + i);
  // Under the endpoint's write lock: undiscoverable at once, later TLPs get UR.
  set_device_present(i, false);
  clear_msi_retry(i);
  refresh_slot_traces();
  // vnet_pci_dev_vnet_controller_destroy: the full teardown, engine destroyed.
  const Controller& c = controllers_[i];
  log_.info(kWorkerThread, "Beginning device shutdown (vqs_initialized=%d, engine_started=%d, engine_enabled=%d)...",
            c.vqs_created ? 1 : 0, c.offload_engine_started ? 1 : 0, c.engine_enabled ? 1 : 0);
  controller_cleanup(i, true, w, kWorkerThread);
  w.then([this] { log_.info(kWorkerThread, "VNet controller destroyed successfully"); });
  // The TLP device stopped and destroyed, the representor destroyed: one cost.
  w.then(cost(vnet::timing::work_destroy_device_ps), [this, i] {
    log_.debug(kWorkerThread, "TLP device stopped");
    log_.debug(kWorkerThread, "TLP device destroyed");
    Controller& c = controllers_[i];
    c.pending_unplug = c.pending_destroy = false;
    log_.info(kWorkerThread, "Device destroyed successfully (delayed)");
    refresh_slot_traces();
  });
}

// ---- the unplug timeout (run_progress_loop) --------------------------------------------------

void VnetApp::arm_unplug_timeout(unsigned i) {
  // The main loop compares whole seconds of the monotonic clock; the model fires exactly
  // UNPLUG_TIMEOUT_SEC after the start (docs/fidelity.md).
  SlotState& s = slots_[i];
  s.unplug_start_ps = ctx_.now_ps();
  const uint64_t timer = ++s.unplug_timer;
  later_.at(sc_core::sc_time::from_value(UNPLUG_TIMEOUT_SEC * kPsPerSec), [this, i, timer] {
    if (slots_[i].unplug_timer == timer) unplug_timeout(i);
  });
}

void VnetApp::unplug_timeout(unsigned i) {
  Controller& c = controllers_[i];
  if (!c.pending_unplug || c.pending_destroy) return;
  const long elapsed = long((ctx_.now_ps() - slots_[i].unplug_start_ps) / kPsPerSec);
  log_.warn(kMainThread, "DSP[%u] unplug timeout (%lds) - forcing device removal from DPU", i, elapsed);
  // vnet_pci_dev_force_reset: the host sees RESET if it touches the device again.
  VirtioPciDevice& dev = *devices_[i];
  dev.set_status(0);
  dev.prev_status = 0;
  log_.info(kMainThread, "Forced VirtIO RESET on pf_index=%d (device_status=0)", int(i));
  // Link down and slot empty, PDC set: but no MSI is sent.
  pcie::ConfigSpace& cfg = dsps_[i]->cfg;
  cfg.clear_bits(kExp + PCI_EXP_LNKSTA, 2, PCI_EXP_LNKSTA_DLLLA);
  cfg.clear_bits(kExp + PCI_EXP_SLTSTA, 2, PCI_EXP_SLTSTA_PDS);
  cfg.set_bits(kExp + PCI_EXP_SLTSTA, 2, PCI_EXP_SLTSTA_PDC);
  if (links_[i]) links_[i]->set_up(false);
  refresh_slot_traces();
  submit_delayed_destroy(i, kMainThread);
  if (c.pending_destroy) {
    arm_unplug_timeout(i);  // the timer restarts: a failed destroy is retried after it
    log_.info(kMainThread, "DSP[%u] forced unplug: delayed_destroy submitted", i);
    return;
  }
  log_.warn(kMainThread, "DSP[%u] forced unplug: failed to enqueue destroy, will retry next loop", i);
  later_.at(ctx_.ps(vnet::timing::main_loop_ps), [this, i] { unplug_timeout(i); });
}

}  // namespace dpusim::vnet
