#include "vnet/sriov.h"

#include "tlm/pci_regs.h"
#include "vnet/ep_image.h"
#include "vnet/sriov_limits.h"
#include "vnet/vf_image.h"
#include "vnet/vnet_timing.h"

namespace dpusim::vnet {

using namespace dpusim::pci;

Sriov::Sriov(AppState& app) : app_(app), total_vfs_(unsigned(app.opt.total_vfs)) {
  const unsigned n = total_vfs_, pfs = app_.num_ep();
  const unsigned per_vf = vnet_vf_num_msix(unsigned(app_.opt.max_queue_pairs));
  vfs_.resize(size_t(pfs) * n);
  app_.log.info(kMainThread, "SR-IOV: dynamic SR-IOV supported (max_total_vfs=%u, pool_size=%u)",
                VNET_SRIOV_MAX_TOTAL_VFS, pfs * n);
  for (unsigned pf = 0; pf < pfs; ++pf) {
    for (unsigned s = 0; s < n; ++s) {
      VfSlot& vf = vfs_[pf * n + s];
      vf.pf = pf;
      vf.slot = s;
      vf.g = pf * n + s;
    }
    app_.log.info(kMainThread, "SR-IOV: pool reserved range [%u, %u)", pf * n, pf * n + n);
    app_.log.info(kMainThread, "SR-IOV: PF representor created with VF range [%u, %u) (vf_num_msix=%u, vf_num_db=%u)",
                  pf * n, pf * n + n, per_vf, per_vf);
    app_.log.info(kMainThread, "SR-IOV: opened all %u VF reps for this PF", n);
    app_.devices[pf]->images.sriov()->on_control = [this, pf](const SriovPfState& b, const SriovPfState& a) {
      on_control(pf, b, a);
    };
  }
}

void Sriov::on_control(unsigned pf, const SriovPfState& before, const SriovPfState& after) {
  if (before.vfe == after.vfe) return;
  app_.log.info(kMainThread, "SR-IOV VFE: %d -> %d (NumVFs=%u, TotalVFs=%u)", int(before.vfe), int(after.vfe),
                unsigned(after.num_vfs), total_vfs_);
  WorkItem it;
  it.type = WorkType::VF_FAN_OUT;
  it.arg = pf;
  it.arg2 = after.vfe ? 1 : 0;
  if (!app_.wq.submit(it) && !app_.wq.shut_down())
    app_.log.error(kMainThread, "SR-IOV: failed to queue VFE %d -> %d for PF[%u]", int(before.vfe), int(after.vfe), pf);
}

void Sriov::start_slot(VfSlot& vf) {
  if (!vf.fn) {
    vf.fn = std::make_unique<pcie::Function>("ep" + std::to_string(vf.pf) + ".vf" + std::to_string(vf.slot), app_.ctx);
    init_vf_image(*vf.fn, unsigned(app_.opt.max_queue_pairs));
  } else {
    vf.fn->cfg.reset();
  }
  vf.active = true;
}

void Sriov::fan_out(unsigned pf, bool enable, pcie::Activity& w) {
  const unsigned n = total_vfs_;
  for (unsigned s = 0; s < n; ++s) {
    VfSlot& vf = vfs_[pf * n + s];
    if (enable) {
      if (vf.active) continue;
      w.then(app_.cost(timing::work_vf_tlp_dev_start_ps), [this, &vf] {
        start_slot(vf);
        app_.log.info(kWorkerThread, "SR-IOV: VF[vf_index=%u] tlp_dev started", vf.g);
      });
    } else {
      if (!vf.active) continue;
      w.then(app_.cost(timing::work_vf_tlp_dev_stop_ps), [this, &vf] {
        // stop_vf_slot: engine destroy (when the guest brought one up), then tlp_dev stop.
        vf.active = vf.engine_started = vf.vqs_created = vf.engine_enabled = vf.io_ctx_started = false;
        vf.num_active_qps = 0;
        app_.log.info(kWorkerThread, "SR-IOV: VF[vf_index=%u] tlp_dev stopped", vf.g);
      });
    }
  }
  w.then([this, pf, enable, n] {
    unsigned active = 0;
    for (unsigned s = 0; s < n; ++s) active += vfs_[pf * n + s].active ? 1 : 0;
    if (enable)
      app_.log.info(kWorkerThread, "SR-IOV VFE 0->1 fan-out: %u/%u slots started (%u failed)", active, n, n - active);
    else
      app_.log.info(kWorkerThread, "SR-IOV VFE 1->0: %u/%u slots stopped", n - active, n);
  });
}

VfSlot* Sriov::route(unsigned pf, uint8_t devfn) {
  if (devfn < VNET_SRIOV_FIRST_VF_OFFSET || devfn >= VNET_SRIOV_FIRST_VF_OFFSET + total_vfs_) return nullptr;
  VfSlot& vf = vfs_[pf * total_vfs_ + (devfn - VNET_SRIOV_FIRST_VF_OFFSET) / VNET_SRIOV_VF_STRIDE];
  return vf.active ? &vf : nullptr;
}

uint32_t Sriov::config_read(const VfSlot& vf, uint16_t offset, uint8_t first_be) const {
  uint32_t mask = 0;
  for (unsigned i = 0; i < 4; ++i)
    if (first_be & (1u << i)) mask |= 0xffu << (8 * i);
  return vf.fn->cfg.read_dword(offset) & mask;
}

void Sriov::config_write(VfSlot& vf, uint16_t offset, uint32_t data, uint8_t first_be, uint16_t target) {
  vf.fn->config_write(offset, data, first_be, target);
  const bool flr = offset == VNET_EP_PCIE_CAP + PCI_EXP_DEVCTL && (first_be & 2) && (data & PCI_EXP_DEVCTL_BCR_FLR);
  if (flr) handle_vf_flr(vf);
}

// vnet_pci_device_handle_vf_flr on PE1.
void Sriov::handle_vf_flr(VfSlot& vf) {
  if (vf.flr_in_progress) {
    app_.log.info(kMainThread, "SR-IOV: VF[slot=%u, vf_index=%u] FLR coalesced (reset already in progress)", vf.slot,
                  vf.g);
    return;
  }
  vf.flr_in_progress = true;
  vf.fn->cfg.reset();  // the host reads a clean config space at once
  app_.log.info(kMainThread, "SR-IOV: VF[slot=%u, vf_index=%u] FLR - config space reset, queueing VF_FLR_RESET",
                vf.slot, vf.g);
  WorkItem it;
  it.type = WorkType::VF_FLR_RESET;
  it.arg = vf.g;
  if (!app_.wq.submit(it)) {
    vf.flr_in_progress = false;  // nobody else would clear it
    if (!app_.wq.shut_down()) app_.log.error(kMainThread, "SR-IOV: failed to queue VF_FLR_RESET for VF[vf_index=%u]", vf.g);
  }
}

// vnet_sriov_reset_vf_slot on the worker: tlp_dev stop then start (the representor stays).
void Sriov::flr_reset(unsigned g, pcie::Activity& w) {
  VfSlot& vf = vfs_[g];
  if (!vf.active) {
    vf.flr_in_progress = false;
    app_.log.warn(kWorkerThread, "SR-IOV: VF[vf_index=%u] FLR reset skipped - slot stopped", g);
    return;
  }
  w.then(app_.cost(timing::work_vf_tlp_dev_stop_ps), [this, &vf] {
    vf.engine_started = vf.vqs_created = vf.engine_enabled = vf.io_ctx_started = false;
    vf.num_active_qps = 0;
    app_.log.info(kWorkerThread, "SR-IOV: VF[vf_index=%u] tlp_dev stopped (FLR)", vf.g);
  });
  w.then(app_.cost(timing::work_vf_tlp_dev_start_ps), [this, &vf] {
    vf.flr_in_progress = false;
    app_.log.info(kWorkerThread, "SR-IOV: VF[vf_index=%u] tlp_dev started", vf.g);
    app_.log.info(kWorkerThread, "SR-IOV: VF[slot=%u, vf_index=%u] FLR complete", vf.slot, vf.g);
  });
}

unsigned Sriov::live_datapaths(unsigned pf) const {
  unsigned live = 0;
  for (unsigned s = 0; s < total_vfs_; ++s) live += vfs_[pf * total_vfs_ + s].engine_enabled ? 1 : 0;
  return live;
}

std::string Sriov::unplug_refusal(unsigned pf) const {
  const bool vfe = app_.devices[pf]->images.sriov()->state().vfe;
  const unsigned live = live_datapaths(pf);
  if (!vfe && live == 0) return "";
  char buf[200];
  std::snprintf(buf, sizeof buf,
                "UNPLUG rejected for DSP[%u]: SR-IOV active on its PF (VFE=%d, %u live VF datapath(s)); disable it on "
                "the host first",
                pf, int(vfe), live);
  return buf;
}

}  // namespace dpusim::vnet
