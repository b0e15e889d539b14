// The downstream ports' slots as the application runs them (vnet-app.md §4, §8): Slot
// Control power edges, Command Completed, DSP MSIs over ACG credits, and the workqueue's
// hotplug items. Hotplug scenarios (pciehp on the host, unplug timeouts, MSI retries) build on
// this in their own issue.
#include "bridge_image.h"
#include "pci_regs.h"
#include "vnet_app.h"

namespace dpusim::vnet {

using namespace dpusim::pci;
using pcie::TimingId;

namespace {
constexpr const char* kErrBadState = "DOCA_ERROR_BAD_STATE";
constexpr const char* kErrAgain = "DOCA_ERROR_AGAIN";
constexpr unsigned UNPLUG_PLUG_ACK_WAIT_MS = 2000;
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
  const uint16_t x = TLP_BRIDGE_EXP_CAP;
  if (on) {
    if (!(cfg.get(x + PCI_EXP_SLTSTA, 2) & PCI_EXP_SLTSTA_PDS)) return;
    cfg.set_bits(x + PCI_EXP_LNKSTA, 2, PCI_EXP_LNKSTA_DLLLA);
    log_.info(kMainThread, "Power ON (bit10: 1->0): DLActive set, link_status=0x%04X", cfg.get(x + PCI_EXP_LNKSTA, 2));
    if (links_[i] && controllers_[i].device_present) links_[i]->set_up(true);
    return;
  }
  cfg.clear_bits(x + PCI_EXP_LNKSTA, 2, PCI_EXP_LNKSTA_DLLLA);
  log_.info(kMainThread, "Power OFF (bit10: 0->1): DLActive cleared, link_status=0x%04X", cfg.get(x + PCI_EXP_LNKSTA, 2));
  if (links_[i]) links_[i]->set_up(false);
  Controller& c = controllers_[i];
  if (!c.pending_unplug || !c.device_present) return;
  log_.info(kMainThread, "DSP[%u] power off (DLActive=0) - triggering endpoint destroy", i);
  if (c.pending_destroy) {
    log_.debug(kMainThread, "Delayed destroy already queued, skipping");
    return;
  }
  c.pending_destroy = true;
  WorkItem it;
  it.type = WorkType::DELAYED_DESTROY;
  it.arg = i;
  if (!wq_.submit(it)) {
    log_.error(kMainThread, "Failed to alloc work item for delayed destroy");
    c.pending_destroy = false;
    return;
  }
  log_.info(kMainThread, "Delayed device destroy queued");
}

void VnetApp::slot_command_completed(unsigned i) {
  dsps_[i]->cfg.set_bits(TLP_BRIDGE_EXP_CAP + PCI_EXP_SLTSTA, 2, PCI_EXP_SLTSTA_CC);
  if (!(dsps_[i]->cfg.get(TLP_BRIDGE_EXP_CAP + PCI_EXP_SLTCTL, 2) & PCI_EXP_SLTCTL_CCIE)) return;
  // Never retried: a host waiting on this interrupt falls back to its own timeout.
  if (const char* err = send_dsp_msi(i)) log_.debug(kMainThread, "Failed to send Command Completed MSI: %s", err);
  else log_.info(kMainThread, "Command Completed MSI sent");
}

const char* VnetApp::send_dsp_msi(unsigned i) {
  const pcie::ConfigSpace& cfg = dsps_[i]->cfg;
  const uint16_t m = TLP_BRIDGE_MSI_CAP;
  const uint16_t ctl = uint16_t(cfg.get(m + PCI_MSI_FLAGS, 2));
  if (!(ctl & PCI_MSI_FLAGS_ENABLE)) {
    log_.debug(kMainThread, "MSI not enabled (Message Control=0x%04X)", ctl);
    return kErrBadState;
  }
  const uint64_t addr = uint64_t(cfg.get(m + PCI_MSI_ADDRESS_HI, 4)) << 32 | cfg.get(m + PCI_MSI_ADDRESS_LO, 4);
  if (addr == 0) {
    log_.debug(kMainThread, "MSI address not configured by Host");
    return kErrBadState;
  }
  if (acg_credits_ == 0) {
    log_.debug(kMainThread, "No ACG credit available, Host will poll to detect hotplug");
    return kErrAgain;
  }
  // One credit per MSI: a DW MemWr from the DSP's own ID with the 16-bit data, zero-extended.
  // Firmware grants the credit back once it has emitted the TLP (an estimate).
  const uint32_t data = cfg.get(m + PCI_MSI_DATA_64, 2);
  tlp::Header h;
  h.type = tlp::Type::MWr;
  h.requester_id = uint16_t(dsps_[i]->primary() << 8 | i << 3);
  h.address = addr & ~3ull;
  h.length_dw = 1;
  h.first_be = 0xf;
  h.last_be = 0;
  pcie::Tlp* t = ctx_.pool.alloc(h, 4);
  for (unsigned b = 0; b < 4; ++b) pcie::data(*t)[b] = uint8_t(data >> (8 * b));
  up.send(*t);
  log_.debug(kMainThread, "MSI interrupt sent: bus=0x%02X addr=0x%lX data=0x%X (size: %zu)", dsps_[i]->primary(),
             static_cast<unsigned long>(addr), data, size_t(addr >> 32 ? 20 : 16));
  return nullptr;
}

void VnetApp::hotplug_event(unsigned i, bool plug, pcie::Activity& w) {
  const char* op = plug ? "plug" : "unplug";
  if (i >= num_ep()) {
    log_.error(kWorkerThread, "Invalid DSP index: %u (max: %u)", i, num_ep() - 1);
    return;
  }
  Controller& c = controllers_[i];
  pcie::ConfigSpace& cfg = dsps_[i]->cfg;
  const uint16_t x = TLP_BRIDGE_EXP_CAP;
  const bool hpie = cfg.get(x + PCI_EXP_SLTCTL, 2) & PCI_EXP_SLTCTL_HPIE;
  auto failed = [this](const char* err) { log_.error(kWorkerThread, "Async hotplug failed: %s", err); };
  if (plug) {
    if (c.pending_unplug) {
      log_.warn(kWorkerThread, "DSP[%u] plug rejected: unplug still in progress", i);
      return failed("DOCA_ERROR_IN_PROGRESS");
    }
    if (!hpie && !c.device_present) {
      log_.warn(kWorkerThread,
                "DSP[%u] plug: HP interrupt not enabled - host pciehp may still be completing power off sequence, "
                "retry later", i);
      log_.info(kWorkerThread, "Async hotplug DSP[%u] plug: transient, retry later", i);
      return;
    }
    if (!hpie) {
      log_.error(kWorkerThread, "HP interrupt not enabled for DSP[%u], hotplug not supported", i);
      return failed("DOCA_ERROR_NOT_SUPPORTED");
    }
    if (c.device_present) {
      log_.warn(kWorkerThread, "DSP[%u] already has device, cannot plug again", i);
      return failed("DOCA_ERROR_ALREADY_EXIST");
    }
    log_.info(kWorkerThread, "Creating device for DSP[%u]", i);
    w.then(cost(TimingId::vnet_work_create_device_ps), [this, i] {
      set_device_present(i, true);
      log_.info(kWorkerThread, "Device created: VHCA ID=0x%x", 0x100 + i);
      pcie::ConfigSpace& cfg = dsps_[i]->cfg;
      cfg.set_bits(TLP_BRIDGE_EXP_CAP + PCI_EXP_SLTSTA, 2,
                   PCI_EXP_SLTSTA_ABP | PCI_EXP_SLTSTA_PDC | PCI_EXP_SLTSTA_PDS);
      log_.info(kWorkerThread, "Device plugged (ABP mode): ABP=1, PDC=1, PDS=1, DLActive=0");
      refresh_slot_traces();
      if (const char* err = send_dsp_msi(i)) log_.debug(kWorkerThread, "DSP[%u] plug: MSI not sent (%s) - host will poll Slot Status", i, err);
      log_.info(kWorkerThread, "Hotplug: DSP[%u] plug", i);
      log_.info(kWorkerThread, "Async hotplug DSP[%u] plug completed", i);
    });
    return;
  }
  if (!hpie) {
    log_.error(kWorkerThread, "HP interrupt not enabled for DSP[%u], hotplug not supported", i);
    return failed("DOCA_ERROR_NOT_SUPPORTED");
  }
  if (!c.device_present) {
    log_.error(kWorkerThread, "DSP[%u] has no device, cannot unplug", i);
    return failed("DOCA_ERROR_NOT_FOUND");
  }
  if (c.pending_unplug) {
    log_.warn(kWorkerThread, "DSP[%u] already pending unplug", i);
    return;
  }
  // Plug-ack wait: DLActive polled every 1 ms, at most 2000 times (pciehp coalesces a plug's
  // and an unplug's MSIs and loses the unplug's attention button otherwise).
  auto waited = std::make_shared<unsigned>(0);
  w.wait_until([this, i, waited] {
    const bool up = dsps_[i]->cfg.get(TLP_BRIDGE_EXP_CAP + PCI_EXP_LNKSTA, 2) & PCI_EXP_LNKSTA_DLLLA;
    return up || ++*waited > UNPLUG_PLUG_ACK_WAIT_MS;
  }, sc_core::sc_time(1, sc_core::SC_MS));
  w.then([this, i, waited, op] {
    const bool up = dsps_[i]->cfg.get(TLP_BRIDGE_EXP_CAP + PCI_EXP_LNKSTA, 2) & PCI_EXP_LNKSTA_DLLLA;
    if (!up)
      log_.warn(kWorkerThread, "DSP[%u] unplug: host did not ACK plug within 2000ms (DLActive=0); proceeding - "
                "UNPLUG_TIMEOUT_SEC safety net will force-destroy if host also ignores ABP", i);
    else if (*waited > 0)
      log_.info(kWorkerThread, "DSP[%u] unplug: waited %dms for host plug-ack", i, int(*waited));
    log_.info(kWorkerThread, "Initiating unplug for DSP[%u] - waiting for host power off", i);
    controllers_[i].pending_unplug = true;
    dsps_[i]->cfg.set_bits(TLP_BRIDGE_EXP_CAP + PCI_EXP_SLTSTA, 2, PCI_EXP_SLTSTA_ABP);
    log_.info(kWorkerThread, "Device unplugged (ABP mode): ABP=1, waiting for Host Power OFF");
    refresh_slot_traces();
    if (const char* err = send_dsp_msi(i))
      log_.debug(kWorkerThread, "DSP[%u] %s: MSI not sent (%s) - host will poll Slot Status", i, op, err);
    log_.info(kWorkerThread, "Hotplug: DSP[%u] unplug (pending host reset)", i);
  });
}

void VnetApp::delayed_destroy(unsigned i, pcie::Activity& w) {
  log_.info(kWorkerThread, "Executing delayed destroy after host reset");
  w.then(cost(TimingId::vnet_work_destroy_device_ps), [this, i] {
    set_device_present(i, false);
    Controller& c = controllers_[i];
    c.pending_unplug = c.pending_destroy = false;
    log_.info(kWorkerThread, "Device destroyed successfully (delayed)");
  });
}

}  // namespace dpusim::vnet
