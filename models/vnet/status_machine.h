// The device status state machine of each endpoint, on the main thread (DOCA vnet_pci_dev's
// common-config write handler and its core status callback): what one common-config MMIO
// write sets in motion — the register-level rules are the device model's (virtio_device.h) —,
// the synchronous device reset with its per-device barrier, the reset hold (status reads 0x40
// until the controller's cleanup releases it), FEATURES_OK (engine start, VQs, IO context
// queued to the worker) and DRIVER_OK (start and enable queued), and DEVICE_NEEDS_RESET when
// firmware finds a ring malformed (virtio 1.2 §2.1.2).
#pragma once

#include <cstdint>
#include <string>

#include "vnet/app_state.h"

namespace dpusim::vnet {

class AppInvariants;

class StatusMachine {
 public:
  StatusMachine(AppState& app, AppInvariants& invariants) : app_(app), invariants_(invariants) {}

  // A DW write of the common config window (< 0x40) with byte enables `be`.
  void common_write(unsigned i, uint16_t dw_off, uint32_t data, uint8_t be);
  // Every common-config access first releases a pending reset hold.
  void release_reset_hold(unsigned i);
  // Firmware found a malformed ring: DEVICE_NEEDS_RESET and the config interrupt.
  void device_needs_reset(unsigned i, const std::string& reason);
  // MQ negotiated (CTRL_VQ and MQ) or not; on the worker when `deferred_init`.
  void negotiate_mq(unsigned i, bool deferred_init);

 private:
  void submit_vq_config(unsigned i, unsigned q);
  void log_status_change(unsigned i, uint8_t old_status, uint8_t new_status);
  void after_common_write(unsigned i);
  void status_callback(unsigned i);
  void on_reset_status(unsigned i);
  void on_features_ok(unsigned i);
  void on_driver_ok(unsigned i);

  AppState& app_;
  AppInvariants& invariants_;
};

}  // namespace dpusim::vnet
