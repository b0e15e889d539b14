#include "vnet/sriov/sriov.h"

#include "tlm/completer.h"
#include "tlm/pci_regs.h"
#include "vnet/virtio/ep_image.h"
#include "vnet/sriov/sriov_limits.h"
#include "vnet/sriov/vf_image.h"
#include "vnet/virtio/virtio_spec.h"
#include "vnet/virtio/vnet_endpoint.h"
#include "vnet/virtio/vnet_layout.h"
#include "vnet/app/vnet_timing.h"

namespace dpusim::vnet {

using namespace dpusim::pci;
using namespace dpusim::virtio;

Sriov::Sriov(AppEnv& env, AppDevices& devs, AppWork& work)
    : env_(env), devs_(devs), work_(work), total_vfs_(unsigned(env.opt.total_vfs)), functions_(env, devs, work, vfs_) {
  const unsigned n = total_vfs_, pfs = devs_.num_ep();
  const unsigned per_vf = vnet_vf_num_msix(unsigned(env_.opt.max_queue_pairs));
  vfs_.resize(size_t(pfs) * n);
  env_.log.info(kMainThread, "SR-IOV: dynamic SR-IOV supported (max_total_vfs=%u, pool_size=%u)",
                VNET_SRIOV_MAX_TOTAL_VFS, pfs * n);
  for (unsigned pf = 0; pf < pfs; ++pf) {
    for (unsigned s = 0; s < n; ++s) {
      VfSlot& vf = vfs_[pf * n + s];
      vf.pf = pf;
      vf.slot = s;
      vf.g = pf * n + s;
      vf.port = std::make_unique<VfNetPort>(functions_, vf.g);
    }
    env_.log.info(kMainThread, "SR-IOV: pool reserved range [%u, %u)", pf * n, pf * n + n);
    env_.log.info(kMainThread, "SR-IOV: PF representor created with VF range [%u, %u) (vf_num_msix=%u, vf_num_db=%u)",
                  pf * n, pf * n + n, per_vf, per_vf);
    env_.log.info(kMainThread, "SR-IOV: opened all %u VF reps for this PF", n);
    devs_.devices[pf]->images.sriov()->on_control = [this, pf](const pcie::SriovState& b, const pcie::SriovState& a) {
      on_control(pf, b, a);
    };
  }
}

void Sriov::on_control(unsigned pf, const pcie::SriovState& before, const pcie::SriovState& after) {
  if (before.vfe == after.vfe) return;
  env_.log.info(kMainThread, "SR-IOV VFE: %d -> %d (NumVFs=%u, TotalVFs=%u)", int(before.vfe), int(after.vfe),
                unsigned(after.num_vfs), total_vfs_);
  WorkItem it;
  it.type = WorkType::VF_FAN_OUT;
  it.arg = pf;
  it.arg2 = after.vfe ? 1 : 0;
  if (!work_.wq.submit(it) && !work_.wq.shut_down())
    env_.log.error(kMainThread, "SR-IOV: failed to queue VFE %d -> %d for PF[%u]", int(before.vfe), int(after.vfe), pf);
}

void Sriov::start_slot(VfSlot& vf) {
  if (!vf.fn) {
    vf.fn = std::make_unique<pcie::Function>("ep" + std::to_string(vf.pf) + ".vf" + std::to_string(vf.slot), env_.ctx);
    init_vf_image(*vf.fn, unsigned(env_.opt.max_queue_pairs));
    vf.fn->on_flr = [this, &vf] { handle_vf_flr(vf); };
    VnetOptions vf_opt = env_.opt;
    vf_opt.total_vfs = 0;  // a VF has no SR-IOV capability of its own
    vf.dev = std::make_unique<VirtioPciDevice>(vf.pf, vf_opt, env_.ctx, env_.log);
    vf.dev->set_mac(env_.opt.vf_mac(vf.g));
    functions_.create_msix(vf);
  } else {
    vf.fn->cfg.reset();
    vf.msix->reset();
  }
  vf.active = true;
}

bool Sriov::serve_memory(const tlp::Header& h, const uint8_t* data, const std::function<void(pcie::Tlp*)>& send_up) {
  for (unsigned pf = 0; pf < devs_.num_ep(); ++pf) {
    if (!devs_.controllers[pf].device_present) continue;
    const pcie::SriovState& st = devs_.devices[pf]->images.sriov()->state();
    const int k = st.vf_at(h.address);
    if (k < 0) continue;
    VfSlot& vf = vfs_[pf * total_vfs_ + unsigned(k)];
    const uint64_t off = h.address - st.vf_bar_base(unsigned(k));
    if (!vf.active) {  // no tlp_dev: nobody completes it
      if (h.type == tlp::Type::MRd) send_up(pcie::make_error_completion(env_.ctx.pool, h, rid(vf), tlp::CplStatus::UR));
      return true;
    }
    if (h.type == tlp::Type::MRd) functions_.mmio_read(vf, off, h, send_up);
    else functions_.mmio_write(vf, off, h, data);
    return true;
  }
  return false;
}

void Sriov::fan_out(unsigned pf, bool enable, pcie::Activity& w) {
  const unsigned n = total_vfs_;
  for (unsigned s = 0; s < n; ++s) {
    VfSlot& vf = vfs_[pf * n + s];
    if (enable) {
      if (vf.active) continue;
      w.then(env_.cost(timing::work_vf_tlp_dev_start_ps), [this, &vf] {
        start_slot(vf);
        env_.log.info(kWorkerThread, "SR-IOV: VF[vf_index=%u] tlp_dev started", vf.g);
      });
    } else {
      if (!vf.active) continue;
      functions_.destroy_engine(vf, w, "VF disable");
      w.then(env_.cost(timing::work_vf_tlp_dev_stop_ps), [this, &vf] {
        // stop_vf_slot: engine destroy (when the guest brought one up), then tlp_dev stop.
        functions_.stop_datapath(vf);
        vf.active = false;
        env_.log.info(kWorkerThread, "SR-IOV: VF[vf_index=%u] tlp_dev stopped", vf.g);
      });
    }
  }
  w.then([this, pf, enable, n] {
    unsigned active = 0;
    for (unsigned s = 0; s < n; ++s) active += vfs_[pf * n + s].active ? 1 : 0;
    if (enable)
      env_.log.info(kWorkerThread, "SR-IOV VFE 0->1 fan-out: %u/%u slots started (%u failed)", active, n, n - active);
    else
      env_.log.info(kWorkerThread, "SR-IOV VFE 1->0: %u/%u slots stopped", n - active, n);
  });
}

VfSlot* Sriov::route(unsigned pf, uint8_t devfn) {
  if (devfn < VNET_SRIOV_FIRST_VF_OFFSET || devfn >= VNET_SRIOV_FIRST_VF_OFFSET + total_vfs_) return nullptr;
  VfSlot& vf = vfs_[pf * total_vfs_ + (devfn - VNET_SRIOV_FIRST_VF_OFFSET) / VNET_SRIOV_VF_STRIDE];
  return vf.active ? &vf : nullptr;
}

uint32_t Sriov::config_read(const VfSlot& vf, uint16_t offset, uint8_t first_be) const {
  return vf.fn->config_read(offset, first_be);
}

void Sriov::config_write(VfSlot& vf, uint16_t offset, uint32_t data, uint8_t first_be, uint16_t target) {
  vf.fn->config_write(offset, data, first_be, target);  // an FLR calls handle_vf_flr (on_flr)
}

// vnet_pci_device_handle_vf_flr on PE1.
void Sriov::handle_vf_flr(VfSlot& vf) {
  if (vf.flr_in_progress) {
    env_.log.info(kMainThread, "SR-IOV: VF[slot=%u, vf_index=%u] FLR coalesced (reset already in progress)", vf.slot,
                  vf.g);
    return;
  }
  vf.flr_in_progress = true;
  ++vf.generation;     // a queued bring-up stage is stale now
  vf.fn->cfg.reset();  // the host reads a clean config space at once
  vf.msix->reset();
  functions_.quiesce(vf);  // no DMA or interrupt of the VF's continues past its FLR (PCIe r5.0 §6.6.2)
  env_.log.info(kMainThread, "SR-IOV: VF[slot=%u, vf_index=%u] FLR - config space reset, queueing VF_FLR_RESET",
                vf.slot, vf.g);
  WorkItem it;
  it.type = WorkType::VF_FLR_RESET;
  it.arg = vf.g;
  if (!work_.wq.submit(it)) {
    vf.flr_in_progress = false;  // nobody else would clear it
    if (!work_.wq.shut_down()) env_.log.error(kMainThread, "SR-IOV: failed to queue VF_FLR_RESET for VF[vf_index=%u]", vf.g);
  }
}

// vnet_sriov_reset_vf_slot on the worker: tlp_dev stop then start (the representor stays).
void Sriov::flr_reset(unsigned g, pcie::Activity& w) {
  VfSlot& vf = vfs_[g];
  if (!vf.active) {
    vf.flr_in_progress = false;
    env_.log.warn(kWorkerThread, "SR-IOV: VF[vf_index=%u] FLR reset skipped - slot stopped", g);
    return;
  }
  functions_.destroy_engine(vf, w, "FLR");
  w.then(env_.cost(timing::work_vf_tlp_dev_stop_ps), [this, &vf] {
    functions_.stop_datapath(vf);
    env_.log.info(kWorkerThread, "SR-IOV: VF[vf_index=%u] tlp_dev stopped (FLR)", vf.g);
  });
  w.then(env_.cost(timing::work_vf_tlp_dev_start_ps), [this, &vf] {
    vf.flr_in_progress = false;
    env_.log.info(kWorkerThread, "SR-IOV: VF[vf_index=%u] tlp_dev started", vf.g);
    env_.log.info(kWorkerThread, "SR-IOV: VF[slot=%u, vf_index=%u] FLR complete", vf.slot, vf.g);
  });
}

Sriov::~Sriov() {
  // What the engines left on their PF's time runs nothing once they are gone.
  for (VfSlot& vf : vfs_)
    if (vf.alive) *vf.alive = false;
}

std::optional<std::pair<unsigned, uint64_t>> Sriov::vf_firmware_at(unsigned pf, uint64_t address) const {
  if (pf >= devs_.num_ep() || !devs_.controllers[pf].device_present) return std::nullopt;
  const pcie::SriovState& st = devs_.devices[pf]->images.sriov()->state();
  const int k = st.vf_at(address);
  if (k < 0 || !vfs_[pf * total_vfs_ + unsigned(k)].active) return std::nullopt;
  const uint64_t off = address - st.vf_bar_base(unsigned(k));
  // Below: the application's registers; past the doorbells: nothing (PE1's, which answer UR).
  if (off < VNET_BAR0_MSIX_TABLE || off >= VNET_BAR0_DOORBELL + VNET_BAR0_DOORBELL_LEN) return std::nullopt;
  return std::make_pair(unsigned(k), off);
}

void Sriov::attach_endpoint(unsigned pf, VnetEndpoint& ep) {
  ep.serve_vf_firmware({[this, pf](uint64_t address) { return vf_firmware_at(pf, address); },
                        [this, pf](unsigned k, uint64_t off, uint8_t* out, size_t n) {
                          functions_.firmware_read(vfs_[pf * total_vfs_ + k], off, unsigned(n), out);
                        },
                        [this, pf](unsigned k, uint64_t off, const uint8_t* in, size_t n) {
                          functions_.firmware_write(vfs_[pf * total_vfs_ + k], off, unsigned(n), in);
                        },
                        [this, pf](unsigned k) { return rid(vfs_[pf * total_vfs_ + k]); }});
}

VfNetPort* Sriov::network_port(unsigned pf, unsigned slot) {
  if (pf >= devs_.num_ep() || slot >= total_vfs_) return nullptr;
  return vfs_[pf * total_vfs_ + slot].port.get();
}

unsigned Sriov::live_datapaths(unsigned pf) const {
  unsigned live = 0;
  for (unsigned s = 0; s < total_vfs_; ++s) {
    const VfSlot& vf = vfs_[pf * total_vfs_ + s];
    live += vf.engine && vf.engine->vqs().engine_enabled() ? 1 : 0;
  }
  return live;
}

std::string Sriov::unplug_refusal(unsigned pf) const {
  const bool vfe = devs_.devices[pf]->images.sriov()->state().vfe;
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
