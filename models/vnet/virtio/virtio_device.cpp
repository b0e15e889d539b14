#include "vnet/virtio/virtio_device.h"

namespace dpusim::vnet {

using namespace dpusim::virtio;

const char* reset_status_state_name(ResetStatusState s) {
  switch (s) {
    case ResetStatusState::IDLE: return "IDLE";
    case ResetStatusState::HELD: return "HELD";
    case ResetStatusState::RELEASE_PENDING: return "RELEASE_PENDING";
  }
  return "?";
}

VirtioPciDevice::VirtioPciDevice(unsigned idx, const VnetOptions& o, pcie::SimContext& ctx, AppLog& log)
    : index(idx),
      images("ep" + std::to_string(idx), ctx, log, unsigned(o.total_vfs)),
      shadow_(VNET_TOTAL_VQS(unsigned(o.max_queue_pairs))),
      device_features_(o.device_features()),
      queue_size_(uint16_t(o.queue_size)),
      max_qps_(unsigned(o.max_queue_pairs)),
      mac_(o.ep_mac(idx)) {
  set_common(VIRTIO_PCI_COMMON_DF, 4, uint32_t(device_features_));
  set_common(VIRTIO_PCI_COMMON_MSIX, 2, VIRTIO_MSI_NO_VECTOR);
  set_common(VIRTIO_PCI_COMMON_NUMQ, 2, uint16_t(shadow_.size()));
  set_common(VIRTIO_PCI_COMMON_STATUS, 1, VIRTIO_CONFIG_S_NEEDS_RESET);  // until the first driver reset
  set_common(VIRTIO_PCI_COMMON_CFGGENERATION, 1, 1);
  for (unsigned q = 0; q < shadow_.size(); ++q) {
    shadow_[q].size = queue_size_;
    shadow_[q].notify_off = uint16_t(q);
  }
  load_queue(0);
  for (unsigned i = 0; i < 6; ++i) net_[VIRTIO_NET_CFG_MAC + i] = mac_[i];
  put_le16(&net_[VIRTIO_NET_CFG_STATUS], VIRTIO_NET_S_LINK_UP);
  put_le16(&net_[VIRTIO_NET_CFG_MAX_VQ_PAIRS], uint16_t(o.max_queue_pairs));
  put_le16(&net_[VIRTIO_NET_CFG_MTU], uint16_t(o.mtu));
  put_le32(&net_[VIRTIO_NET_CFG_SPEED], uint32_t(o.speed));
  net_[VIRTIO_NET_CFG_DUPLEX] = uint8_t(o.duplex);
  net_[VIRTIO_NET_CFG_RSS_MAX_KEY_SIZE] = 40;
  put_le16(&net_[VIRTIO_NET_CFG_RSS_MAX_INDIRECTION_TABLE_LENGTH], 128);
  put_le32(&net_[VIRTIO_NET_CFG_SUPPORTED_HASH_TYPES], 0x3f);
}

void VirtioPciDevice::set_mac(const Mac& m) {
  mac_ = m;
  for (unsigned i = 0; i < 6; ++i) net_[VIRTIO_NET_CFG_MAC + i] = mac_[i];
}

uint32_t VirtioPciDevice::common(uint16_t off, unsigned width) const {
  return uint32_t(bytes::get_le(&regs_[off], width));
}

void VirtioPciDevice::set_common(uint16_t off, unsigned width, uint32_t value) {
  bytes::put_le(&regs_[off], value, width);
}

VqShadow VirtioPciDevice::live_queue() const {
  VqShadow v;
  v.size = uint16_t(common(VIRTIO_PCI_COMMON_Q_SIZE, 2));
  v.msix = uint16_t(common(VIRTIO_PCI_COMMON_Q_MSIX, 2));
  v.enable = uint16_t(common(VIRTIO_PCI_COMMON_Q_ENABLE, 2));
  v.notify_off = uint16_t(common(VIRTIO_PCI_COMMON_Q_NOFF, 2));
  v.desc = get_le64(&regs_[VIRTIO_PCI_COMMON_Q_DESCLO]);
  v.driver = get_le64(&regs_[VIRTIO_PCI_COMMON_Q_AVAILLO]);
  v.device = get_le64(&regs_[VIRTIO_PCI_COMMON_Q_USEDLO]);
  return v;
}

void VirtioPciDevice::store_live(const VqShadow& v) {
  set_common(VIRTIO_PCI_COMMON_Q_SIZE, 2, v.size);
  set_common(VIRTIO_PCI_COMMON_Q_MSIX, 2, v.msix);
  set_common(VIRTIO_PCI_COMMON_Q_ENABLE, 2, v.enable);
  set_common(VIRTIO_PCI_COMMON_Q_NOFF, 2, v.notify_off);
  put_le64(&regs_[VIRTIO_PCI_COMMON_Q_DESCLO], v.desc);
  put_le64(&regs_[VIRTIO_PCI_COMMON_Q_AVAILLO], v.driver);
  put_le64(&regs_[VIRTIO_PCI_COMMON_Q_USEDLO], v.device);
}

// A queue_select beyond num_queues zeroes the window: queue_size reads 0 for an absent queue.
void VirtioPciDevice::load_queue(unsigned q) { store_live(q < shadow_.size() ? shadow_[q] : VqShadow{0, 0, 0, 0}); }

void VirtioPciDevice::restore_for_lu(uint64_t negotiated, const std::vector<VqShadow>& shadows) {
  negotiated_ = negotiated;
  driver_half_[0] = uint32_t(negotiated);
  driver_half_[1] = uint32_t(negotiated >> 32);
  for (unsigned q = 0; q < shadows.size() && q < shadow_.size(); ++q) shadow_[q] = shadows[q];
  set_common(VIRTIO_PCI_COMMON_Q_SELECT, 2, 0);
  load_queue(0);
}

void VirtioPciDevice::save_selected_queue() {
  const unsigned q = queue_select();
  if (q < shadow_.size()) shadow_[q] = live_queue();
}

CommonWriteEffect VirtioPciDevice::write_common_dw(uint16_t dw_off, uint32_t data, uint8_t be) {
  CommonWriteEffect e;
  const auto saved = regs_;
  // The enabled bytes merged.
  for (unsigned i = 0; i < 4; ++i)
    if (be & (1u << i)) regs_[dw_off + i] = uint8_t(data >> (8 * i));
  // One read-only field changed rolls back the whole file (the whole DW is lost).
  for (const auto& [off, width] : {std::pair{VIRTIO_PCI_COMMON_DF, 4u}, {VIRTIO_PCI_COMMON_NUMQ, 2u},
                                   {VIRTIO_PCI_COMMON_CFGGENERATION, 1u}, {VIRTIO_PCI_COMMON_ADM_Q_IDX, 2u},
                                   {VIRTIO_PCI_COMMON_ADM_Q_NUM, 2u}}) {
    for (unsigned i = 0; i < width; ++i) {
      if (regs_[off + i] != saved[off + i]) {
        regs_ = saved;
        e.rolled_back = true;
        return e;
      }
    }
  }
  auto old16 = [&](uint16_t off) { return uint32_t(saved[off] | saved[off + 1] << 8); };
  auto old32 = [&](uint16_t off) { return get_le32(&saved[off]); };
  // device_feature_select reloads device_feature.
  const uint32_t dfsel = common(VIRTIO_PCI_COMMON_DFSELECT, 4);
  if (dfsel != old32(VIRTIO_PCI_COMMON_DFSELECT)) {
    const uint32_t half = dfsel == 0 ? uint32_t(device_features_) : dfsel == 1 ? uint32_t(device_features_ >> 32) : 0;
    set_common(VIRTIO_PCI_COMMON_DF, 4, half);
    e.version_1_visible = dfsel == 1 && (device_features_ & bit(VIRTIO_F_VERSION_1));
  }
  // driver_feature_select latches the register into the old half (only selects 0 and
  // 1) and reloads it from the new one. With Linux's write order the high half is never latched.
  const uint32_t gfsel = common(VIRTIO_PCI_COMMON_GFSELECT, 4), old_gfsel = old32(VIRTIO_PCI_COMMON_GFSELECT);
  if (gfsel != old_gfsel) {
    if (old_gfsel <= 1) driver_half_[old_gfsel] = old32(VIRTIO_PCI_COMMON_GF);
    set_common(VIRTIO_PCI_COMMON_GF, 4, gfsel <= 1 ? driver_half_[gfsel] : 0);
  }
  // queue_select saves the live window into the old queue's shadow, loads the new one.
  const unsigned qsel = queue_select(), old_qsel = old16(VIRTIO_PCI_COMMON_Q_SELECT);
  if (qsel != old_qsel) {
    VqShadow live;
    live.size = uint16_t(old16(VIRTIO_PCI_COMMON_Q_SIZE));
    live.msix = uint16_t(old16(VIRTIO_PCI_COMMON_Q_MSIX));
    live.enable = uint16_t(old16(VIRTIO_PCI_COMMON_Q_ENABLE));
    live.notify_off = uint16_t(old16(VIRTIO_PCI_COMMON_Q_NOFF));
    live.desc = get_le64(&saved[VIRTIO_PCI_COMMON_Q_DESCLO]);
    live.driver = get_le64(&saved[VIRTIO_PCI_COMMON_Q_AVAILLO]);
    live.device = get_le64(&saved[VIRTIO_PCI_COMMON_Q_USEDLO]);
    if (old_qsel < shadow_.size()) shadow_[old_qsel] = live;
    load_queue(qsel);
  } else if (qsel < shadow_.size()) {
    // Queue enable or address completion, compared with the shadow.
    const VqShadow live = live_queue();
    VqShadow& sh = shadow_[qsel];
    if (live.enable && !sh.enable) {
      e.vq_config = qsel;
      e.vq_enabled_edge = true;
    } else if (live.enable && sh.enable && !sh.addresses_complete() && live.addresses_complete()) {
      e.vq_config = qsel;
    }
    sh = live;
  }
  e.old_status = saved[VIRTIO_PCI_COMMON_STATUS];
  e.new_status = status();
  e.status_changed = e.old_status != e.new_status;
  return e;
}

void VirtioPciDevice::reset_registers() {
  negotiated_ = 0;
  driver_half_[0] = driver_half_[1] = 0;
  set_common(VIRTIO_PCI_COMMON_GF, 4, 0);
  set_common(VIRTIO_PCI_COMMON_GFSELECT, 4, 0);
  set_status(0);
  set_common(VIRTIO_PCI_COMMON_Q_SELECT, 2, 0);
  for (unsigned q = 0; q < shadow_.size(); ++q) {
    shadow_[q] = VqShadow{};
    shadow_[q].size = queue_size_;
    shadow_[q].notify_off = uint16_t(q);
  }
  load_queue(0);
}

}  // namespace dpusim::vnet
