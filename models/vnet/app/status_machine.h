// The PF's lifecycle in the shared virtio function (virtio_function.h), on the main thread (DOCA
// vnet_pci_dev's common-config write handler and its core status callback): the write
// handler's log lines, VQ configuration queued to the worker, the synchronous device reset with
// its per-device barrier, the reset hold (status reads 0x40 until the controller's cleanup
// releases it), the status callback after every write, whose edges are taken against its own
// copy of the status (0xFF until the first probe), FEATURES_OK (engine start, VQs, IO context
// queued to the worker) and DRIVER_OK (start and enable queued), and DEVICE_NEEDS_RESET when
// firmware finds a ring malformed (virtio 1.2 §2.1.2).
#pragma once

#include <cstdint>
#include <string>

#include "vnet/app/app_state.h"
#include "vnet/virtio/virtio_function.h"

namespace dpusim::vnet {

class AppInvariants;

class StatusMachine : private VirtioFunction::Lifecycle {
 public:
  StatusMachine(AppEnv& env, AppDevices& devs, AppWork& work, AppInvariants& invariants)
      : env_(env), devs_(devs), work_(work), invariants_(invariants), function_(*this) {}

  // A DW write of the common config window (< 0x40) with byte enables `be`.
  void common_write(unsigned i, uint16_t dw_off, uint32_t data, uint8_t be) {
    function_.common_write(i, *devs_.devices[i], dw_off, data, be);
  }
  // Every common-config access first releases a pending reset hold.
  void release_reset_hold(unsigned i);
  // Firmware found a malformed ring: DEVICE_NEEDS_RESET and the config interrupt.
  void device_needs_reset(unsigned i, const std::string& reason);
  // MQ negotiated (CTRL_VQ and MQ) or not; on the worker when `deferred_init`.
  void negotiate_mq(unsigned i, bool deferred_init);

 private:
  // The lifecycle (virtio_function.h).
  void common_access(unsigned i) override { release_reset_hold(i); }
  void rolled_back(unsigned i) override;
  void version_1_visible(unsigned i) override;
  void vq_config(unsigned i, unsigned q, bool enabled_edge) override;
  void registers_written(unsigned i) override { devs_.note_status(i); }
  void write_done(unsigned i) override { after_common_write(i); }
  void status_written(unsigned i, uint8_t old_status, uint8_t new_status) override;
  void device_reset(unsigned i) override;  // status 0 seen by the status callback
  void acknowledge(unsigned i) override;
  void driver(unsigned i) override;
  void features_ok(unsigned i) override;
  void driver_ok(unsigned i) override;

  void synchronous_reset(unsigned i);
  void log_status_change(unsigned i, uint8_t old_status, uint8_t new_status);
  void after_common_write(unsigned i);
  void status_callback(unsigned i);

  AppEnv& env_;
  AppDevices& devs_;
  AppWork& work_;
  AppInvariants& invariants_;
  VirtioFunction function_;
};

}  // namespace dpusim::vnet
