#include "vnet/sriov/vf_function.h"

#include "tlm/completer.h"
#include "vnet/virtio/virtio_spec.h"
#include "vnet/virtio/vnet_layout.h"
#include "vnet/app/vnet_timing.h"

namespace dpusim::vnet {

namespace {
// A VF_BRINGUP item's stage and the VF's reset generation it was queued at, in arg2.
enum VfStage : unsigned { VF_STAGE_TEARDOWN = 0, VF_STAGE_FEATURES_OK = 1, VF_STAGE_DRIVER_OK = 2 };
uint32_t vf_stage_arg(unsigned stage, uint32_t gen) { return stage | gen << 2; }
// The representor identities the engine-create line prints (deterministic stand-ins).
constexpr unsigned kVfVhcaIdBase = 0x0100, kVfIfindexBase = 1000;
}  // namespace

// ---- MMIO and the lifecycle -------------------------------------------------------------------

void VfFunctions::mmio_read(VfSlot& vf, uint64_t off, const tlp::Header& h,
                            const std::function<void(pcie::Tlp*)>& send_up) {
  const unsigned len = h.length_dw;
  // The firmware's regions (MSI-X table, PBA, doorbells) go to the PF's endpoint (vf_firmware_at).
  if (len == 0 || len > 2 || off >= VNET_BAR0_MSIX_TABLE) {
    env_.log.debug(kMainThread, "SR-IOV: VF[vf_index=%u] mmio read at 0x%lx (%u DW) not served", vf.g,
                   static_cast<unsigned long>(off), len);
    return send_up(pcie::make_error_completion(env_.ctx.pool, h, vf_rid(devs_, vf), tlp::CplStatus::UR));
  }
  auto read_dw = [&](unsigned k, uint8_t) {
    const uint64_t dw_off = off + 4 * k;
    if (dw_off < virtio::VIRTIO_PCI_COMMON_CFG_SIZE) return vf.dev->common(uint16_t(dw_off), 4);
    if (dw_off >= VNET_BAR0_DEVICE_CFG && dw_off + 4 <= VNET_BAR0_DEVICE_CFG + virtio::VIRTIO_NET_CFG_SIZE)
      return bytes::get_le32(vf.dev->net_config() + (dw_off - VNET_BAR0_DEVICE_CFG));
    return VNET_MMIO_UNSUPPORTED_PATTERN;
  };
  const pcie::Function& pf = devs_.devices[vf.pf]->images.virtio();
  pcie::complete_register_read(env_.ctx.pool, h, vf_rid(devs_, vf), pf.max_payload_size(), pf.read_completion_boundary(),
                               read_dw, send_up);
}

void VfFunctions::mmio_write(VfSlot& vf, uint64_t off, const tlp::Header& h, const uint8_t* data) {
  for (unsigned k = 0; k < h.length_dw && k < 2; ++k) {
    const uint64_t dw_off = off + 4 * k;
    // Device config is read-only; the firmware regions are the PF endpoint's (vf_firmware_at).
    if (dw_off >= virtio::VIRTIO_PCI_COMMON_CFG_SIZE) continue;
    function_.common_write(vf.g, *vf.dev, uint16_t(dw_off), bytes::get_le32(data + 4 * k), k == 0 ? h.first_be : h.last_be);
  }
}

void VfFunctions::status_written(unsigned g, uint8_t old_status, uint8_t new_status) {
  function_.status_edges(g, old_status, new_status);
}

void VfFunctions::device_reset(unsigned g) {
  VfSlot& vf = vfs_[g];
  env_.log.info(kMainThread, "SR-IOV: VF[slot=%u, vf_index=%u] device reset", vf.slot, vf.g);
  const bool had_engine = vf.engine_started;
  quiesce(vf);  // the device uses no ring after its reset (virtio 1.2 §2.4)
  vf.dev->reset_registers();
  ++vf.generation;
  if (had_engine) queue_stage(vf, VF_STAGE_TEARDOWN);
}

void VfFunctions::features_ok(unsigned g) {
  VfSlot& vf = vfs_[g];
  vf.dev->latch_negotiated();
  const bool mq = vf.dev->negotiated_features() & virtio::bit(virtio::VIRTIO_NET_F_MQ);
  env_.log.info(kMainThread, "SR-IOV: VF[slot=%u, vf_index=%u] FEATURES_OK - queueing engine bring-up (mq=%d)", vf.slot,
                vf.g, int(mq));
  queue_stage(vf, VF_STAGE_FEATURES_OK);
}

void VfFunctions::driver_ok(unsigned g) {
  VfSlot& vf = vfs_[g];
  env_.log.info(kMainThread, "SR-IOV: VF[slot=%u, vf_index=%u] DRIVER_OK - queueing engine enable", vf.slot, vf.g);
  queue_stage(vf, VF_STAGE_DRIVER_OK);
}

// ---- the two-stage bring-up -------------------------------------------------------------------

void VfFunctions::queue_stage(VfSlot& vf, unsigned stage) {
  WorkItem it;
  it.type = WorkType::VF_BRINGUP;
  it.arg = vf.g;
  it.arg2 = vf_stage_arg(stage, vf.generation);
  if (!work_.wq.submit(it) && !work_.wq.shut_down())
    env_.log.error(kMainThread, "SR-IOV: failed to queue bring-up stage %u for VF[vf_index=%u]", stage, vf.g);
}

// The two-stage lazy bring-up (vf_engine_create+start, vf_vqs_create, vf_io_context at
// FEATURES_OK; vf_start_and_enable at DRIVER_OK) and the engine's destruction at a device reset.
void VfFunctions::bringup(unsigned g, uint32_t stage_gen, pcie::Activity& w) {
  VfSlot& vf = vfs_[g];
  const unsigned stage = stage_gen & 3, gen = stage_gen >> 2;
  if (gen != vf.generation || !vf.active) {
    env_.log.info(kWorkerThread, "SR-IOV: VF[vf_index=%u] stale bring-up stage %u skipped (generation %u, now %u)", g,
                  stage, gen, vf.generation);
    return;
  }
  const unsigned q = unsigned(env_.opt.max_queue_pairs), nvq = VNET_TOTAL_VQS(q);
  // Each step checks the generation again: a reset or an FLR between steps leaves the rest.
  auto live = [&vf, gen] { return gen == vf.generation && vf.active; };
  if (stage == VF_STAGE_TEARDOWN) {
    destroy_engine(vf, w, "device reset");
  } else if (stage == VF_STAGE_FEATURES_OK) {
    if (vf.engine_started) return;
    w.then(env_.cost(timing::work_engine_start_ps), [this, &vf, nvq, live] {
      if (!live()) return;
      create_engine(vf);
      vf.engine->vqs().engine_start();
      vf.engine_started = true;
      env_.log.info(kWorkerThread, "SR-IOV: VF[vf_index=%u] offload engine created (idle, %u VQs, MTU=%d)", vf.g,
                    nvq, env_.opt.mtu);
      env_.log.info(kWorkerThread,
                    "SR-IOV: VF[vf_index=%u] engine representor: vhca_id=0x%04x ifindex=%u (add to OVS bridge for RX)",
                    vf.g, kVfVhcaIdBase + vf.g, kVfIfindexBase + vf.g);
    });
    for (unsigned k = 0; k < nvq; ++k)
      w.then(env_.cost(timing::work_vq_create_ps), [&vf, k, live] {
        if (live() && vf.engine) vf.engine->vqs().vq_create(k);
      });
    w.then([this, &vf, q, live] {
      if (!live() || !vf.engine) return;
      vf.vqs_created = true;
      env_.log.info(kWorkerThread, "SR-IOV: VF[vf_index=%u] created %u queue pair(s) + CVQ", vf.g, q);
    });
    w.then(env_.cost(timing::work_io_ctx_create_ps), [this, &vf, q, live] {
      if (!live() || !vf.engine) return;
      vf.engine->cvq().bind(2 * q, [this, &vf](CtrlReq req) { ctrl_req_arrived(vf, std::move(req)); });
      vf.io_ctx_started = true;
      env_.log.info(kWorkerThread, "SR-IOV: VF[vf_index=%u] CVQ IO context started", vf.g);
    });
  } else {
    if (!vf.io_ctx_started || vf.engine_enabled) return;
    // The queues the driver enabled, configured from the register file's shadows and started.
    for (unsigned k = 0; k < nvq; ++k)
      w.then(env_.cost(timing::work_vq_start_ps), [&vf, k, live] {
        if (!live() || !vf.engine) return;
        const VqShadow& sh = vf.dev->shadow(k);
        if (!sh.enable) return;
        vf.engine->vqs().vq_set_conf(k, VqConf{sh.size, sh.msix, sh.desc, sh.driver, sh.device});
        vf.engine->vqs().vq_start(k);
      });
    w.then(env_.cost(timing::work_vq_group_enable_ps), [&vf, nvq, live] {
      if (live() && vf.engine) vf.engine->vqs().vq_group_enable(0, nvq - 1);
    });
    w.then(env_.cost(timing::work_engine_enable_ps), [this, &vf, q, live] {
      if (!live() || !vf.engine) return;
      vf.engine->vqs().engine_enable();
      vf.engine_enabled = true;
      vf.num_active_qps = q;
      env_.log.info(kWorkerThread, "SR-IOV: VF[vf_index=%u] datapath operational (engine enabled, %u queue pair(s))",
                    vf.g, q);
    });
  }
}

void VfFunctions::destroy_engine(VfSlot& vf, pcie::Activity& w, const char* why) {
  if (!vf.engine_started) return;
  w.then(env_.cost(timing::work_engine_destroy_ps), [this, &vf, why] {
    drop_engine(vf);
    vf.engine_started = vf.vqs_created = vf.engine_enabled = vf.io_ctx_started = false;
    vf.num_active_qps = 0;
    env_.log.info(kWorkerThread, "SR-IOV: VF[vf_index=%u] engine destroyed (%s)", vf.g, why);
  });
}

void VfFunctions::stop_datapath(VfSlot& vf) {
  drop_engine(vf);
  vf.engine_started = vf.vqs_created = vf.engine_enabled = vf.io_ctx_started = false;
  vf.num_active_qps = 0;
  ++vf.generation;
  if (vf.dev) {
    vf.dev->reset_registers();
    vf.dev->set_status(0);
  }
}

// ---- the CVQ ------------------------------------------------------------------------------------

void VfFunctions::ctrl_req_arrived(VfSlot& vf, CtrlReq req) {
  vf.ctrl.push_back(std::move(req));
  WorkItem it;
  it.type = WorkType::VF_CTRL_REQ;
  it.arg = vf.g;
  it.arg2 = vf.generation;
  if (!work_.wq.submit(it) && !work_.wq.shut_down())
    env_.log.error(kMainThread, "SR-IOV: failed to queue a control request of VF[vf_index=%u]", vf.g);
}

void VfFunctions::ctrl_reqs(unsigned g, uint32_t gen, pcie::Activity& w) {
  VfSlot& vf = vfs_[g];
  if (gen != vf.generation || !vf.engine) return;  // the engine that took them is gone
  while (!vf.ctrl.empty()) {
    CtrlReq req = std::move(vf.ctrl.front());
    vf.ctrl.pop_front();
    env_.log.info(kWorkerThread, "ctrl_req received: cls=%u, cmd=%u, controller=VF[vf_index=%u]", unsigned(req.cls),
                  unsigned(req.cmd), g);
    w.then(env_.cost(timing::work_vq_group_enable_ps), [this, &vf, gen, req] {
      if (gen != vf.generation || !vf.engine) return;
      uint8_t status = virtio::VIRTIO_NET_ERR;
      switch (VirtioFunction::ctrl_kind(req)) {
        case VirtioFunction::CtrlKind::BACKEND: status = virtio::VIRTIO_NET_OK; break;  // as for a PF
        case VirtioFunction::CtrlKind::MQ_VQ_PAIRS_SET: status = vq_pairs_set(vf, req); break;
        default:
          env_.log.warn(kWorkerThread, "SR-IOV: VF[vf_index=%u] unsupported ctrl class %u cmd %u", vf.g,
                        unsigned(req.cls), unsigned(req.cmd));
      }
      vf.engine->ctrl_req_complete(req.head, status);
    });
  }
}

uint8_t VfFunctions::vq_pairs_set(VfSlot& vf, const CtrlReq& req) {
  const unsigned max = unsigned(env_.opt.max_queue_pairs);
  const unsigned n = VirtioFunction::vq_pairs(req).value_or(0);
  if (!VirtioFunction::vq_pairs_valid(n, max)) {
    env_.log.error(kWorkerThread, "SR-IOV: VF[vf_index=%u] invalid num_qps: %u (valid: 1-%u)", vf.g, n, max);
    return virtio::VIRTIO_NET_ERR;
  }
  env_.log.info(kWorkerThread, "SR-IOV: VF[vf_index=%u] MQ_VQ_PAIRS_SET: %u -> %u QPs", vf.g, vf.num_active_qps, n);
  if (n < max) vf.engine->vqs().vq_group_disable(2 * n, 2 * max - 1);
  vf.engine->vqs().vq_group_enable(0, 2 * n - 1);
  vf.num_active_qps = n;
  return virtio::VIRTIO_NET_OK;
}

}  // namespace dpusim::vnet
