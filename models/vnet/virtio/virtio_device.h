// The application's VirtIO device model of one endpoint (struct vnet_pci_device,
// vnet_pci_device.h): the packed common-config register file, the net device config, the VQ
// shadow array, the driver-feature halves and the per-device guards (reset generation, cancel
// flag, reset-hold state, the status callback's own copy of the status).
//
// This file holds the register-level rules of one common-config DW write (merge, read-only
// rollback, the select registers, queue enable); what a write sets in motion (logs, work items,
// the status callback) is the virtio function's (virtio_function.h).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "vnet/virtio/ep_image.h"
#include "vnet/virtio/virtio_spec.h"
#include "vnet/virtio/vnet_layout.h"
#include "vnet/app/vnet_options.h"

namespace dpusim::vnet {

// One queue's registers as the shadow keeps them (size, msix, enable, notify_off, desc,
// driver, device: the common-config window 0x18..0x37).
struct VqShadow {
  uint16_t size = 0, msix = virtio::VIRTIO_MSI_NO_VECTOR, enable = 0, notify_off = 0;
  uint64_t desc = 0, driver = 0, device = 0;
  bool addresses_complete() const { return desc && driver && device; }
  bool fully_configured() const { return enable && addresses_complete(); }
};

enum class ResetStatusState { IDLE, HELD, RELEASE_PENDING };
const char* reset_status_state_name(ResetStatusState s);

// What a common-config DW write did at the register level.
struct CommonWriteEffect {
  bool rolled_back = false;          // an RO field changed: the whole file restored
  bool version_1_visible = false;    // device_feature_select 1 with VERSION_1 offered
  std::optional<unsigned> vq_config;  // submit VQ_CONFIG for this queue
  bool vq_enabled_edge = false;      // ... because enable went 0 -> 1 (else: addresses completed)
  bool status_changed = false;       // device_status changed: the status callback runs
  uint8_t old_status = 0, new_status = 0;
};

class VirtioPciDevice {
 public:
  VirtioPciDevice(unsigned index, const VnetOptions& options, pcie::SimContext& ctx, AppLog& log);

  const unsigned index;  // pf_index
  EpImages images;

  // Register file access (little-endian, packed).
  uint32_t common(uint16_t off, unsigned width) const;
  void set_common(uint16_t off, unsigned width, uint32_t value);
  uint8_t status() const { return uint8_t(common(virtio::VIRTIO_PCI_COMMON_STATUS, 1)); }
  void set_status(uint8_t s) { set_common(virtio::VIRTIO_PCI_COMMON_STATUS, 1, s); }
  uint16_t num_queues() const { return uint16_t(common(virtio::VIRTIO_PCI_COMMON_NUMQ, 2)); }
  uint16_t queue_select() const { return uint16_t(common(virtio::VIRTIO_PCI_COMMON_Q_SELECT, 2)); }
  uint16_t config_msix_vector() const { return uint16_t(common(virtio::VIRTIO_PCI_COMMON_MSIX, 2)); }
  uint8_t config_generation() const { return uint8_t(common(virtio::VIRTIO_PCI_COMMON_CFGGENERATION, 1)); }
  const uint8_t* net_config() const { return net_.data(); }
  uint8_t* net_config() { return net_.data(); }

  // The register-level effect of a write of `data` with byte enables `be` to the DW at `dw_off`
  // (< 0x40): the enabled bytes merged, then the rules of CommonWriteEffect's fields.
  CommonWriteEffect write_common_dw(uint16_t dw_off, uint32_t data, uint8_t be);
  // The reset: the register file back to its reset state (selects, config vector and generation
  // kept).
  void reset_registers();

  const VqShadow& shadow(unsigned q) const { return shadow_[q]; }
  std::vector<VqShadow> shadows() const { return shadow_; }  // a snapshot, as workers take
  // A live update's standby replays an exported device (live_update.h): the negotiated features
  // and every queue's shadow (selects 0, so queue 0's registers are the live window).
  void restore_for_lu(uint64_t negotiated, const std::vector<VqShadow>& shadows);
  // Copies the selected queue's live registers into its shadow (DRIVER_OK does).
  void save_selected_queue();

  uint64_t negotiated_features() const { return negotiated_; }
  // FEATURES_OK: the negotiated value as the application computes it from the latched halves.
  void latch_negotiated() { negotiated_ = uint64_t(driver_half_[1]) << 32 | driver_half_[0]; }
  uint16_t configured_queue_size() const { return queue_size_; }
  unsigned max_queue_pairs() const { return max_qps_; }
  const Mac& mac() const { return mac_; }
  // Another MAC than the PF rule's (a VF's, sriov.h): the device config's too.
  void set_mac(const Mac& m);

  // Guards (the per-device guard atomics of vnet_pci_device.h).
  uint32_t reset_generation = 1;
  bool cancel_in_progress = false;
  ResetStatusState reset_status_state = ResetStatusState::IDLE;
  uint8_t prev_status = 0xff;  // the core status callback's copy; 0xFF = never set

 private:
  void load_queue(unsigned q);
  VqShadow live_queue() const;
  void store_live(const VqShadow& v);

  std::array<uint8_t, virtio::VIRTIO_PCI_COMMON_CFG_SIZE> regs_{};
  std::array<uint8_t, virtio::VIRTIO_NET_CFG_SIZE> net_{};
  std::vector<VqShadow> shadow_;
  uint32_t driver_half_[2] = {0, 0};
  uint64_t device_features_, negotiated_ = 0;
  uint16_t queue_size_;
  unsigned max_qps_;
  Mac mac_;
};

}  // namespace dpusim::vnet
