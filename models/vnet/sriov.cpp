#include "vnet/sriov.h"

#include "tlm/completer.h"
#include "tlm/pci_regs.h"
#include "vnet/ep_image.h"
#include "vnet/virtio_spec.h"
#include "vnet/vnet_layout.h"
#include "vnet/sriov_limits.h"
#include "vnet/vf_image.h"
#include "vnet/vnet_timing.h"

namespace dpusim::vnet {

using namespace dpusim::pci;
using namespace dpusim::virtio;

namespace {
// A VF_BRINGUP item's stage and the VF's reset generation it was queued at, in arg2.
enum Stage : unsigned { TEARDOWN = 0, FEATURES_OK = 1, DRIVER_OK = 2 };
uint32_t stage_arg(unsigned stage, uint32_t gen) { return stage | gen << 2; }
// The representor identities the engine-create line prints (deterministic stand-ins).
constexpr unsigned kVfVhcaIdBase = 0x0100, kVfIfindexBase = 1000;
}  // namespace

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
      vf.port = std::make_unique<VfNetPort>(*this, vf.g);
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
    VnetOptions vf_opt = app_.opt;
    vf_opt.total_vfs = 0;  // a VF has no SR-IOV capability of its own
    vf.dev = std::make_unique<VirtioPciDevice>(vf.pf, vf_opt, app_.ctx, app_.log);
    vf.dev->set_mac(app_.opt.vf_mac(vf.g));
    create_msix(vf);
  } else {
    vf.fn->cfg.reset();
    vf.msix->reset();
  }
  vf.active = true;
}

void Sriov::stop_datapath(VfSlot& vf) {
  drop_engine(vf);
  vf.engine_started = vf.vqs_created = vf.engine_enabled = vf.io_ctx_started = false;
  vf.num_active_qps = 0;
  ++vf.generation;
  if (vf.dev) {
    vf.dev->reset_registers();
    vf.dev->set_status(0);
  }
}

void Sriov::queue_stage(VfSlot& vf, unsigned stage) {
  WorkItem it;
  it.type = WorkType::VF_BRINGUP;
  it.arg = vf.g;
  it.arg2 = stage_arg(stage, vf.generation);
  if (!app_.wq.submit(it) && !app_.wq.shut_down())
    app_.log.error(kMainThread, "SR-IOV: failed to queue bring-up stage %u for VF[vf_index=%u]", stage, vf.g);
}

// The two-stage lazy bring-up (vf_engine_create+start, vf_vqs_create, vf_io_context at
// FEATURES_OK; vf_start_and_enable at DRIVER_OK) and the engine's destruction at a device reset.
void Sriov::bringup(unsigned g, uint32_t stage_gen, pcie::Activity& w) {
  VfSlot& vf = vfs_[g];
  const unsigned stage = stage_gen & 3, gen = stage_gen >> 2;
  if (gen != vf.generation || !vf.active) {
    app_.log.info(kWorkerThread, "SR-IOV: VF[vf_index=%u] stale bring-up stage %u skipped (generation %u, now %u)", g,
                  stage, gen, vf.generation);
    return;
  }
  const unsigned q = unsigned(app_.opt.max_queue_pairs), nvq = VNET_TOTAL_VQS(q);
  // Each step checks the generation again: a reset or an FLR between steps leaves the rest.
  auto live = [this, &vf, gen] { return gen == vf.generation && vf.active; };
  if (stage == TEARDOWN) {
    destroy_engine(vf, w, "device reset");
  } else if (stage == FEATURES_OK) {
    if (vf.engine_started) return;
    w.then(app_.cost(timing::work_engine_start_ps), [this, &vf, nvq, live] {
      if (!live()) return;
      create_engine(vf);
      vf.engine->engine_start();
      vf.engine_started = true;
      app_.log.info(kWorkerThread, "SR-IOV: VF[vf_index=%u] offload engine created (idle, %u VQs, MTU=%d)", vf.g,
                    nvq, app_.opt.mtu);
      app_.log.info(kWorkerThread,
                    "SR-IOV: VF[vf_index=%u] engine representor: vhca_id=0x%04x ifindex=%u (add to OVS bridge for RX)",
                    vf.g, kVfVhcaIdBase + vf.g, kVfIfindexBase + vf.g);
    });
    for (unsigned k = 0; k < nvq; ++k)
      w.then(app_.cost(timing::work_vq_create_ps), [&vf, k, live] {
        if (live() && vf.engine) vf.engine->vq_create(k);
      });
    w.then([this, &vf, q, live] {
      if (!live() || !vf.engine) return;
      vf.vqs_created = true;
      app_.log.info(kWorkerThread, "SR-IOV: VF[vf_index=%u] created %u queue pair(s) + CVQ", vf.g, q);
    });
    w.then(app_.cost(timing::work_io_ctx_create_ps), [this, &vf, q, live] {
      if (!live() || !vf.engine) return;
      vf.engine->cvq_bind(2 * q, [this, &vf](CtrlReq req) { ctrl_req_arrived(vf, std::move(req)); });
      vf.io_ctx_started = true;
      app_.log.info(kWorkerThread, "SR-IOV: VF[vf_index=%u] CVQ IO context started", vf.g);
    });
  } else {
    if (!vf.io_ctx_started || vf.engine_enabled) return;
    // The queues the driver enabled, configured from the register file's shadows and started.
    for (unsigned k = 0; k < nvq; ++k)
      w.then(app_.cost(timing::work_vq_start_ps), [&vf, k, live] {
        if (!live() || !vf.engine) return;
        const VqShadow& sh = vf.dev->shadow(k);
        if (!sh.enable) return;
        vf.engine->vq_set_conf(k, VqConf{sh.size, sh.msix, sh.desc, sh.driver, sh.device});
        vf.engine->vq_start(k);
      });
    w.then(app_.cost(timing::work_vq_group_enable_ps), [&vf, nvq, live] {
      if (live() && vf.engine) vf.engine->vq_group_enable(0, nvq - 1);
    });
    w.then(app_.cost(timing::work_engine_enable_ps), [this, &vf, q, live] {
      if (!live() || !vf.engine) return;
      vf.engine->engine_enable();
      vf.engine_enabled = true;
      vf.num_active_qps = q;
      app_.log.info(kWorkerThread, "SR-IOV: VF[vf_index=%u] datapath operational (engine enabled, %u queue pair(s))",
                    vf.g, q);
    });
  }
}

void Sriov::destroy_engine(VfSlot& vf, pcie::Activity& w, const char* why) {
  if (!vf.engine_started) return;
  w.then(app_.cost(timing::work_engine_destroy_ps), [this, &vf, why] {
    drop_engine(vf);
    vf.engine_started = vf.vqs_created = vf.engine_enabled = vf.io_ctx_started = false;
    vf.num_active_qps = 0;
    app_.log.info(kWorkerThread, "SR-IOV: VF[vf_index=%u] engine destroyed (%s)", vf.g, why);
  });
}

uint16_t Sriov::rid(const VfSlot& vf) const {
  const uint16_t pf = app_.devices[vf.pf]->images.virtio().id();
  return uint16_t(pf + VNET_SRIOV_FIRST_VF_OFFSET + vf.slot * VNET_SRIOV_VF_STRIDE);
}

bool Sriov::serve_memory(const tlp::Header& h, const uint8_t* data, const std::function<void(pcie::Tlp*)>& send_up) {
  for (unsigned pf = 0; pf < app_.num_ep(); ++pf) {
    if (!app_.controllers[pf].device_present) continue;
    const SriovPfState& st = app_.devices[pf]->images.sriov()->state();
    const int k = st.vf_at(h.address);
    if (k < 0) continue;
    VfSlot& vf = vfs_[pf * total_vfs_ + unsigned(k)];
    const uint64_t off = h.address - st.vf_bar_base(unsigned(k));
    if (!vf.active) {  // no tlp_dev: nobody completes it
      if (h.type == tlp::Type::MRd) send_up(pcie::make_error_completion(app_.ctx.pool, h, rid(vf), tlp::CplStatus::UR));
      return true;
    }
    if (h.type == tlp::Type::MRd) mmio_read(vf, off, h, send_up);
    else mmio_write(vf, off, h, data);
    return true;
  }
  return false;
}

void Sriov::mmio_read(VfSlot& vf, uint64_t off, const tlp::Header& h, const std::function<void(pcie::Tlp*)>& send_up) {
  const unsigned len = h.length_dw;
  // The firmware's regions (MSI-X table, PBA, doorbells) go to the PF's endpoint (vf_firmware_at).
  if (len == 0 || len > 2 || off >= VNET_BAR0_MSIX_TABLE) {
    app_.log.debug(kMainThread, "SR-IOV: VF[vf_index=%u] mmio read at 0x%lx (%u DW) not served", vf.g,
                   static_cast<unsigned long>(off), len);
    return send_up(pcie::make_error_completion(app_.ctx.pool, h, rid(vf), tlp::CplStatus::UR));
  }
  std::vector<uint8_t> bytes(4 * len, 0);
  for (unsigned k = 0; k < len; ++k) {
    const uint64_t dw_off = off + 4 * k;
    uint32_t value = VNET_MMIO_UNSUPPORTED_PATTERN;
    if (dw_off < VIRTIO_PCI_COMMON_CFG_SIZE) value = vf.dev->common(uint16_t(dw_off), 4);
    else if (dw_off >= VNET_BAR0_DEVICE_CFG && dw_off + 4 <= VNET_BAR0_DEVICE_CFG + VIRTIO_NET_CFG_SIZE)
      value = le32(vf.dev->net_config() + (dw_off - VNET_BAR0_DEVICE_CFG));
    put_le32(&bytes[4 * k], value & tlp::byte_enable_mask(k == 0 ? h.first_be : h.last_be));
  }
  const pcie::Function& pf = app_.devices[vf.pf]->images.virtio();
  pcie::complete_memory_read(app_.ctx.pool, h, rid(vf), bytes.data() + tlp::first_enabled_byte(h.first_be),
                             pf.max_payload_size(), pf.read_completion_boundary(), send_up);
}

void Sriov::mmio_write(VfSlot& vf, uint64_t off, const tlp::Header& h, const uint8_t* data) {
  for (unsigned k = 0; k < h.length_dw && k < 2; ++k) {
    const uint64_t dw_off = off + 4 * k;
    if (dw_off >= VIRTIO_PCI_COMMON_CFG_SIZE) continue;  // device config is read-only; firmware regions not modelled
    const CommonWriteEffect e = vf.dev->write_common_dw(uint16_t(dw_off), le32(data + 4 * k), k == 0 ? h.first_be : h.last_be);
    if (!e.status_changed) continue;
    const uint8_t newly = uint8_t(e.new_status & ~e.old_status);
    if (e.new_status == 0) {
      app_.log.info(kMainThread, "SR-IOV: VF[slot=%u, vf_index=%u] device reset", vf.slot, vf.g);
      const bool had_engine = vf.engine_started;
      quiesce(vf);  // the device uses no ring after its reset (virtio 1.2 §2.4)
      vf.dev->reset_registers();
      ++vf.generation;
      if (had_engine) queue_stage(vf, TEARDOWN);
    }
    if (newly & VIRTIO_CONFIG_S_FEATURES_OK) {
      vf.dev->latch_negotiated();
      const bool mq = vf.dev->negotiated_features() & bit(VIRTIO_NET_F_MQ);
      app_.log.info(kMainThread, "SR-IOV: VF[slot=%u, vf_index=%u] FEATURES_OK - queueing engine bring-up (mq=%d)",
                    vf.slot, vf.g, int(mq));
      queue_stage(vf, FEATURES_OK);
    }
    if (newly & VIRTIO_CONFIG_S_DRIVER_OK) {
      app_.log.info(kMainThread, "SR-IOV: VF[slot=%u, vf_index=%u] DRIVER_OK - queueing engine enable", vf.slot, vf.g);
      queue_stage(vf, DRIVER_OK);
    }
  }
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
      destroy_engine(vf, w, "VF disable");
      w.then(app_.cost(timing::work_vf_tlp_dev_stop_ps), [this, &vf] {
        // stop_vf_slot: engine destroy (when the guest brought one up), then tlp_dev stop.
        stop_datapath(vf);
        vf.active = false;
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
  ++vf.generation;     // a queued bring-up stage is stale now
  vf.fn->cfg.reset();  // the host reads a clean config space at once
  vf.msix->reset();
  quiesce(vf);         // no DMA or interrupt of the VF's continues past its FLR (PCIe r5.0 §6.6.2)
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
  destroy_engine(vf, w, "FLR");
  w.then(app_.cost(timing::work_vf_tlp_dev_stop_ps), [this, &vf] {
    stop_datapath(vf);
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
  for (unsigned s = 0; s < total_vfs_; ++s) {
    const VfSlot& vf = vfs_[pf * total_vfs_ + s];
    live += vf.engine && vf.engine->engine_enabled() ? 1 : 0;
  }
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
