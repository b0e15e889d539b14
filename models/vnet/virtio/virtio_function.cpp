#include "vnet/virtio/virtio_function.h"

#include "vnet/virtio/virtio_spec.h"

namespace dpusim::vnet {

void VirtioFunction::common_write(unsigned fn, VirtioPciDevice& dev, uint16_t dw_off, uint32_t data, uint8_t be) {
  lc_.common_access(fn);
  const CommonWriteEffect e = dev.write_common_dw(dw_off, data, be);
  if (e.rolled_back) return lc_.rolled_back(fn);
  if (e.version_1_visible) lc_.version_1_visible(fn);
  if (e.vq_config) lc_.vq_config(fn, *e.vq_config, e.vq_enabled_edge);
  lc_.registers_written(fn);
  if (!e.status_changed) return lc_.write_done(fn);
  lc_.status_written(fn, e.old_status, e.new_status);
}

void VirtioFunction::status_edges(unsigned fn, uint8_t before, uint8_t now) {
  if (now == 0) return lc_.device_reset(fn);
  const uint8_t newly = uint8_t(now & ~before);
  if (newly & virtio::VIRTIO_CONFIG_S_ACKNOWLEDGE) lc_.acknowledge(fn);
  if (newly & virtio::VIRTIO_CONFIG_S_DRIVER) lc_.driver(fn);
  if (newly & virtio::VIRTIO_CONFIG_S_FEATURES_OK) lc_.features_ok(fn);
  if (newly & virtio::VIRTIO_CONFIG_S_DRIVER_OK) lc_.driver_ok(fn);
}

VirtioFunction::CtrlKind VirtioFunction::ctrl_kind(const CtrlReq& req) {
  switch (req.cls) {
    case virtio::VIRTIO_NET_CTRL_RX:
    case virtio::VIRTIO_NET_CTRL_MAC:
    case virtio::VIRTIO_NET_CTRL_VLAN:
      return CtrlKind::BACKEND;
    case virtio::VIRTIO_NET_CTRL_MQ:
      return req.cmd == virtio::VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET ? CtrlKind::MQ_VQ_PAIRS_SET : CtrlKind::UNSUPPORTED_MQ;
    default:
      return CtrlKind::UNSUPPORTED_CLASS;
  }
}

std::optional<unsigned> VirtioFunction::vq_pairs(const CtrlReq& req) {
  if (req.data.size() < 2) return std::nullopt;
  return bytes::get_le16(req.data.data());
}

}  // namespace dpusim::vnet
