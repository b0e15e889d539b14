// A VF's firmware (sriov.h): its MSI-X table and PBA, its doorbells, its offload engine on its
// PF's requester with its own Requester ID, its network end, and its CVQ requests on the worker.
#include "vnet/sriov.h"

#include "net/wire.h"
#include "vnet/ep_image.h"
#include "vnet/vf_image.h"
#include "vnet/virtio_spec.h"
#include "vnet/vnet_endpoint.h"
#include "vnet/vnet_layout.h"
#include "vnet/vnet_timing.h"

namespace dpusim::vnet {

using namespace dpusim::virtio;

// ---- the network end ------------------------------------------------------------------------

void VfNetPort::frame_arrived(net::Frame frame) { sriov_.frame_arrived(g_, std::move(frame)); }
uint64_t VfNetPort::line_rate_mbps() const { return sriov_.line_rate_mbps(sriov_.vf(g_).pf); }
std::string VfNetPort::end_name() const {
  const VfSlot& vf = sriov_.vf(g_);
  return "ep" + std::to_string(vf.pf) + ".vf" + std::to_string(vf.slot);
}

VfNetPort* Sriov::network_port(unsigned pf, unsigned slot) {
  if (pf >= app_.num_ep() || slot >= total_vfs_) return nullptr;
  return vfs_[pf * total_vfs_ + slot].port.get();
}

uint64_t Sriov::line_rate_mbps(unsigned pf) const {
  return uint64_t(le32(app_.devices[pf]->net_config() + VIRTIO_NET_CFG_SPEED));
}

void Sriov::frame_arrived(unsigned g, net::Frame frame) {
  VfSlot& vf = vfs_[g];
  if (vf.engine) return vf.engine->frame_arrived(std::move(frame));
  ++vf.rx_dropped_without_engine;
  app_.ctx.checker.frame_dropped("rx_queue_not_ready");
  app_.ctx.event(vf.port->end_name(), datapath_event::rx_drop).u64("frame", frame.id).str("reason", "rx_queue_not_ready");
}

uint64_t Sriov::frames_in_flight() const {
  uint64_t n = 0;
  for (const VfSlot& vf : vfs_) n += vf.engine ? vf.engine->frames_in_flight() : 0;
  return n;
}

// ---- MSI-X and the firmware regions -----------------------------------------------------------

void Sriov::create_msix(VfSlot& vf) {
  const unsigned vectors = vnet_vf_num_msix(unsigned(app_.opt.max_queue_pairs));
  vf.msix = std::make_unique<pcie::Msix>(vf.fn->cfg, VNET_EP_MSIX_CAP, vectors, [this, &vf](uint64_t addr, uint32_t data, unsigned) {
    const uint8_t bytes[4] = {uint8_t(data), uint8_t(data >> 8), uint8_t(data >> 16), uint8_t(data >> 24)};
    app_.controllers[vf.pf].engine->requester().write(addr, bytes, 4, rid(vf));
  });
  vf.msix->bus_master_enabled = [&vf] { return vf.fn->bus_master(); };
}

std::optional<std::pair<unsigned, uint64_t>> Sriov::vf_firmware_at(unsigned pf, uint64_t address) const {
  if (pf >= app_.num_ep() || !app_.controllers[pf].device_present) return std::nullopt;
  const SriovPfState& st = app_.devices[pf]->images.sriov()->state();
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
                          firmware_read(vfs_[pf * total_vfs_ + k], off, unsigned(n), out);
                        },
                        [this, pf](unsigned k, uint64_t off, const uint8_t* in, size_t n) {
                          firmware_write(vfs_[pf * total_vfs_ + k], off, unsigned(n), in);
                        },
                        [this, pf](unsigned k) { return rid(vfs_[pf * total_vfs_ + k]); }});
}

// The MSI-X table and PBA answer from the VF's start; the doorbells and what lies past them
// read 0.
void Sriov::firmware_read(VfSlot& vf, uint64_t off, unsigned len, uint8_t* out) {
  const std::string path = vf.port->end_name();
  if (off >= VNET_BAR0_MSIX_TABLE && off < VNET_BAR0_MSIX_PBA) {
    if (!vf.msix->table_read(uint32_t(off - VNET_BAR0_MSIX_TABLE), len, out))
      app_.ctx.event(path, "msix_bad_access").hex("offset", off).u64("len", len);
  } else if (off >= VNET_BAR0_MSIX_PBA && off < VNET_BAR0_DOORBELL) {
    if (!vf.msix->pba_read(uint32_t(off - VNET_BAR0_MSIX_PBA), len, out))
      app_.ctx.event(path, "msix_bad_access").hex("offset", off).u64("len", len);
  }
}

void Sriov::firmware_write(VfSlot& vf, uint64_t off, unsigned len, const uint8_t* in) {
  const std::string path = vf.port->end_name();
  if (off >= VNET_BAR0_MSIX_TABLE && off < VNET_BAR0_MSIX_PBA) {
    if (!vf.msix->table_write(uint32_t(off - VNET_BAR0_MSIX_TABLE), len, in))
      app_.ctx.event(path, "msix_bad_access").hex("offset", off).u64("len", len);
    return;
  }
  if (off >= VNET_BAR0_DOORBELL && off < VNET_BAR0_DOORBELL + VNET_BAR0_DOORBELL_LEN) {
    const unsigned q = unsigned(off - VNET_BAR0_DOORBELL) >> VNET_PCI_DEV_DB_STRIDE_LOG;
    if (vf.engine) return vf.engine->kick(q);
    ++vf.doorbells_without_engine;
    app_.ctx.event(path, datapath_event::doorbell).u64("vq", q).boolean("ignored", true).str("state", "no engine");
    return;
  }
  // The PBA is read-only; past the doorbells nothing is emulated.
  app_.ctx.event(path, "write_ignored").hex("offset", off).u64("len", len);
}

// ---- the engine -------------------------------------------------------------------------------

void Sriov::create_engine(VfSlot& vf) {
  drop_engine(vf);  // none: the stages destroy an engine before they create the next
  VnetEndpoint& host = *app_.controllers[vf.pf].engine;
  vf.alive = std::make_shared<bool>(true);
  const unsigned nvq = VNET_TOTAL_VQS(unsigned(app_.opt.max_queue_pairs));
  pcie::FunctionDma dma(host.requester(), [this, &vf] { return rid(vf); }, vf.alive);
  vf.engine = std::make_unique<VnetEngine>(app_.ctx, vf.port->end_name(), vf.pf, nvq, host, std::move(dma), *vf.port,
                                           vf.alive);
  vf.engine->set_msix(vf.msix.get());
  vf.engine->set_features(vf.dev->negotiated_features());
  vf.engine->on_device_error = [this, &vf](const std::string& reason) {
    app_.log.error(kWorkerThread, "SR-IOV: VF[vf_index=%u] device error: %s", vf.g, reason.c_str());
    vf.dev->set_status(uint8_t(vf.dev->status() | VIRTIO_CONFIG_S_NEEDS_RESET));
  };
}

Sriov::~Sriov() {
  // What the engines left on their PF's time runs nothing once they are gone.
  for (VfSlot& vf : vfs_)
    if (vf.alive) *vf.alive = false;
}

void Sriov::quiesce(VfSlot& vf) {
  if (!vf.engine || !*vf.alive) return;
  *vf.alive = false;
  vf.rx_no_queue_at_quiesce = vf.engine->counters().rx_no_queue;
  vf.engine->engine_stop();
}

void Sriov::drop_engine(VfSlot& vf) {
  if (!vf.engine) return;
  quiesce(vf);
  const uint64_t held = vf.engine->frames_in_flight();
  for (uint64_t k = 0; k < held; ++k) app_.ctx.checker.frame_dropped("vf_engine_destroyed");
  const auto& c = vf.engine->counters();
  vf.frames_dropped_at_destroy += held + (c.rx_no_queue - vf.rx_no_queue_at_quiesce);
  vf.retired_tx += c.tx_frames;
  vf.retired_rx += c.rx_frames;
  app_.ctx.event(vf.port->end_name(), "vf_engine_destroyed").u64("frames_dropped", held);
  vf.engine.reset();
  vf.alive.reset();
  vf.ctrl.clear();
}

// ---- the CVQ ------------------------------------------------------------------------------------

void Sriov::ctrl_req_arrived(VfSlot& vf, CtrlReq req) {
  vf.ctrl.push_back(std::move(req));
  WorkItem it;
  it.type = WorkType::VF_CTRL_REQ;
  it.arg = vf.g;
  it.arg2 = vf.generation;
  if (!app_.wq.submit(it) && !app_.wq.shut_down())
    app_.log.error(kMainThread, "SR-IOV: failed to queue a control request of VF[vf_index=%u]", vf.g);
}

void Sriov::ctrl_reqs(unsigned g, uint32_t gen, pcie::Activity& w) {
  VfSlot& vf = vfs_[g];
  if (gen != vf.generation || !vf.engine) return;  // the engine that took them is gone
  while (!vf.ctrl.empty()) {
    CtrlReq req = std::move(vf.ctrl.front());
    vf.ctrl.pop_front();
    app_.log.info(kWorkerThread, "ctrl_req received: cls=%u, cmd=%u, controller=VF[vf_index=%u]", unsigned(req.cls),
                  unsigned(req.cmd), g);
    w.then(app_.cost(timing::work_vq_group_enable_ps), [this, &vf, gen, req] {
      if (gen != vf.generation || !vf.engine) return;
      uint8_t status = VIRTIO_NET_ERR;
      if (req.cls == VIRTIO_NET_CTRL_RX || req.cls == VIRTIO_NET_CTRL_MAC || req.cls == VIRTIO_NET_CTRL_VLAN)
        status = VIRTIO_NET_OK;  // handled by the backend, as for a PF
      else if (req.cls == VIRTIO_NET_CTRL_MQ && req.cmd == VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET)
        status = vq_pairs_set(vf, req);
      else
        app_.log.warn(kWorkerThread, "SR-IOV: VF[vf_index=%u] unsupported ctrl class %u cmd %u", vf.g,
                      unsigned(req.cls), unsigned(req.cmd));
      vf.engine->ctrl_req_complete(req.head, status);
    });
  }
}

uint8_t Sriov::vq_pairs_set(VfSlot& vf, const CtrlReq& req) {
  const unsigned max = unsigned(app_.opt.max_queue_pairs);
  const unsigned n = req.data.size() >= 2 ? le16(req.data.data()) : 0;
  if (n == 0 || n > max) {
    app_.log.error(kWorkerThread, "SR-IOV: VF[vf_index=%u] invalid num_qps: %u (valid: 1-%u)", vf.g, n, max);
    return VIRTIO_NET_ERR;
  }
  app_.log.info(kWorkerThread, "SR-IOV: VF[vf_index=%u] MQ_VQ_PAIRS_SET: %u -> %u QPs", vf.g, vf.num_active_qps, n);
  if (n < max) vf.engine->vq_group_disable(2 * n, 2 * max - 1);
  vf.engine->vq_group_enable(0, 2 * n - 1);
  vf.num_active_qps = n;
  return VIRTIO_NET_OK;
}

}  // namespace dpusim::vnet
