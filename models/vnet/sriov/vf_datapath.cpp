// A VF's firmware (vf_function.h): its MSI-X table and PBA, its doorbells, its offload engine on
// its PF's requester with its own Requester ID, and its network end.
#include "vnet/sriov/vf_function.h"

#include "net/wire.h"
#include "vnet/virtio/ep_image.h"
#include "vnet/sriov/vf_image.h"
#include "vnet/virtio/virtio_spec.h"
#include "vnet/virtio/vnet_endpoint.h"
#include "vnet/virtio/vnet_layout.h"
#include "vnet/app/vnet_timing.h"

namespace dpusim::vnet {

using namespace dpusim::virtio;

// ---- the network end ------------------------------------------------------------------------

void VfNetPort::frame_arrived(net::Frame frame) { fns_.frame_arrived(g_, std::move(frame)); }
uint64_t VfNetPort::line_rate_mbps() const { return fns_.line_rate_mbps(fns_.vf(g_).pf); }
std::string VfNetPort::end_name() const {
  const VfSlot& vf = fns_.vf(g_);
  return "ep" + std::to_string(vf.pf) + ".vf" + std::to_string(vf.slot);
}

uint16_t vf_rid(const AppDevices& devs, const VfSlot& vf) {
  const EpImages& img = devs.devices[vf.pf]->images;
  return img.sriov()->vf_rid(img.virtio().id(), vf.slot);
}

uint64_t VfFunctions::line_rate_mbps(unsigned pf) const {
  return uint64_t(get_le32(devs_.devices[pf]->net_config() + VIRTIO_NET_CFG_SPEED));
}

void VfFunctions::frame_arrived(unsigned g, net::Frame frame) {
  VfSlot& vf = vfs_[g];
  if (vf.engine) return vf.engine->frame_arrived(std::move(frame));
  ++vf.rx_dropped_without_engine;
  env_.ctx.checker.frame_dropped("rx_queue_not_ready");
  env_.ctx.event(vf.port->end_name(), datapath_event::rx_drop).u64("frame", frame.id).str("reason", "rx_queue_not_ready");
}

uint64_t VfFunctions::frames_in_flight() const {
  uint64_t n = 0;
  for (const VfSlot& vf : vfs_) n += vf.engine ? vf.engine->frames_in_flight() : 0;
  return n;
}

// ---- MSI-X and the firmware regions -----------------------------------------------------------

void VfFunctions::create_msix(VfSlot& vf) {
  const unsigned vectors = vnet_vf_num_msix(unsigned(env_.opt.max_queue_pairs));
  vf.msix = std::make_unique<pcie::Msix>(vf.fn->cfg, VNET_EP_MSIX_CAP, vectors, [this, &vf](uint64_t addr, uint32_t data, unsigned) {
    const uint8_t bytes[4] = {uint8_t(data), uint8_t(data >> 8), uint8_t(data >> 16), uint8_t(data >> 24)};
    devs_.controllers[vf.pf].engine->requester().write(addr, bytes, 4, vf_rid(devs_, vf));
  });
  vf.msix->bus_master_enabled = [&vf] { return vf.fn->bus_master(); };
}

// The MSI-X table and PBA answer from the VF's start; the doorbells and what lies past them
// read 0.
void VfFunctions::firmware_read(VfSlot& vf, uint64_t off, unsigned len, uint8_t* out) {
  const std::string path = vf.port->end_name();
  if (off >= VNET_BAR0_MSIX_TABLE && off < VNET_BAR0_MSIX_PBA) {
    if (!vf.msix->table_read(uint32_t(off - VNET_BAR0_MSIX_TABLE), len, out))
      env_.ctx.event(path, "msix_bad_access").hex("offset", off).u64("len", len);
  } else if (off >= VNET_BAR0_MSIX_PBA && off < VNET_BAR0_DOORBELL) {
    if (!vf.msix->pba_read(uint32_t(off - VNET_BAR0_MSIX_PBA), len, out))
      env_.ctx.event(path, "msix_bad_access").hex("offset", off).u64("len", len);
  }
}

void VfFunctions::firmware_write(VfSlot& vf, uint64_t off, unsigned len, const uint8_t* in) {
  const std::string path = vf.port->end_name();
  if (off >= VNET_BAR0_MSIX_TABLE && off < VNET_BAR0_MSIX_PBA) {
    if (!vf.msix->table_write(uint32_t(off - VNET_BAR0_MSIX_TABLE), len, in))
      env_.ctx.event(path, "msix_bad_access").hex("offset", off).u64("len", len);
    return;
  }
  if (off >= VNET_BAR0_DOORBELL && off < VNET_BAR0_DOORBELL + VNET_BAR0_DOORBELL_LEN) {
    const unsigned q = unsigned(off - VNET_BAR0_DOORBELL) >> VNET_PCI_DEV_DB_STRIDE_LOG;
    if (vf.engine) return vf.engine->kick(q);
    ++vf.doorbells_without_engine;
    env_.ctx.event(path, datapath_event::doorbell).u64("vq", q).boolean("ignored", true).str("state", "no engine");
    return;
  }
  // The PBA is read-only; past the doorbells nothing is emulated.
  env_.ctx.event(path, "write_ignored").hex("offset", off).u64("len", len);
}

// ---- the engine -------------------------------------------------------------------------------

void VfFunctions::create_engine(VfSlot& vf) {
  drop_engine(vf);  // none: the stages destroy an engine before they create the next
  VnetEndpoint& host = *devs_.controllers[vf.pf].engine;
  vf.alive = std::make_shared<bool>(true);
  const unsigned nvq = VNET_TOTAL_VQS(unsigned(env_.opt.max_queue_pairs));
  pcie::FunctionDma dma(host.requester(), [this, &vf] { return vf_rid(devs_, vf); }, vf.alive);
  vf.engine = std::make_unique<VnetEngine>(env_.ctx, vf.port->end_name(), vf.pf, nvq, host, std::move(dma), *vf.port,
                                           vf.alive);
  vf.engine->set_msix(vf.msix.get());
  vf.engine->set_features(vf.dev->negotiated_features());
  vf.engine->on_device_error = [this, &vf](const std::string& reason) {
    env_.log.error(kWorkerThread, "SR-IOV: VF[vf_index=%u] device error: %s", vf.g, reason.c_str());
    vf.dev->set_status(uint8_t(vf.dev->status() | VIRTIO_CONFIG_S_NEEDS_RESET));
  };
}

void VfFunctions::quiesce(VfSlot& vf) {
  if (!vf.engine || !*vf.alive) return;
  *vf.alive = false;
  vf.rx_no_queue_at_quiesce = vf.engine->counters().rx_no_queue;
  vf.engine->vqs().engine_stop();
}

void VfFunctions::drop_engine(VfSlot& vf) {
  if (!vf.engine) return;
  quiesce(vf);
  const uint64_t held = vf.engine->frames_in_flight();
  for (uint64_t k = 0; k < held; ++k) env_.ctx.checker.frame_dropped("vf_engine_destroyed");
  const auto& c = vf.engine->counters();
  vf.frames_dropped_at_destroy += held + (c.rx_no_queue - vf.rx_no_queue_at_quiesce);
  vf.retired_tx += c.tx_frames;
  vf.retired_rx += c.rx_frames;
  env_.ctx.event(vf.port->end_name(), "vf_engine_destroyed").u64("frames_dropped", held);
  vf.engine.reset();
  vf.alive.reset();
  vf.ctrl.clear();
}

}  // namespace dpusim::vnet
