// What one common-config MMIO write sets in motion (vnet-app.md §5.1), on PE1, and the device
// reset it may start (§5.2 a-e).
#include "vnet/vnet_app.h"

namespace dpusim::vnet {

using namespace dpusim::virtio;

void VnetApp::release_reset_hold(unsigned i) {
  VirtioPciDevice& dev = *devices_[i];
  if (dev.reset_status_state != ResetStatusState::RELEASE_PENDING) return;
  dev.reset_status_state = ResetStatusState::IDLE;
  if (dev.status() == VIRTIO_CONFIG_S_NEEDS_RESET) {
    dev.set_status(0);
    dev.prev_status = 0;
    trace_status_[i] = 0;
    log_.info(kMainThread, "RESET: TLP thread released host-visible reset hold");
  }
  dev.cancel_in_progress = false;
}

void VnetApp::submit_vq_config(unsigned i, unsigned q) {
  const Controller& c = controllers_[i];
  if (wq_.reset_in_progress()) {
    log_.debug(kMainThread, "VQ%d config dropped - device reset in progress", int(q));
    return;
  }
  // A data VQ whose queue pair is not active yet (or all of them, while the first-stage data
  // QPs are deferred) is configured later, from the shadow, by the MQ start.
  const bool cvq = c.mq_negotiated && q == 2 * devices_[i]->max_queue_pairs();
  if (!cvq && q < 2 * devices_[i]->max_queue_pairs() && (q / 2 >= c.num_active_qps || c.initial_data_qps_deferred))
    return;
  submit(WorkType::VQ_CONFIG, i, q);
}

void VnetApp::common_write(unsigned i, uint16_t dw_off, uint32_t data, uint8_t be) {
  VirtioPciDevice& dev = *devices_[i];
  release_reset_hold(i);  // step 1
  const CommonWriteEffect e = dev.write_common_dw(dw_off, data, be);
  if (e.rolled_back) {
    log_.error(kMainThread, "pci_cfg: attempt to overwrite RO field: ROLLBACK");
    return;
  }
  if (e.version_1_visible) log_.info(kMainThread, "VIRTIO_F_VERSION_1 now visible to driver (bit 32)");
  if (e.vq_config) {
    if (e.vq_enabled_edge)
      log_.debug(kMainThread, "VQ%d enabled (0\u21921) - applying configuration to hardware", int(*e.vq_config));
    else
      log_.info(kMainThread, "VQ%d addresses now complete - re-submitting vq_config", int(*e.vq_config));
    submit_vq_config(i, *e.vq_config);
  }
  trace_status_[i] = dev.status();
  if (!e.status_changed) return after_common_write(i);
  log_.info(kMainThread, "VIRTIO STATUS CHANGE: 0x%02x -> 0x%02x", e.old_status, e.new_status);
  if (e.new_status != 0) {
    log_status_change(i, e.old_status, e.new_status);
    return after_common_write(i);
  }
  // §5.2: the device reset, synchronous on the main thread.
  log_.info(kMainThread, "VirtIO Driver: DEVICE RESET - reinitializing device");
  dev.cancel_in_progress = true;
  ++dev.reset_generation;
  ctx_.event(name(), "reset_generation").u64("ep", i).u64("gen", dev.reset_generation);
  wq_.raise_reset_barrier();
  // The per-device barrier waits only for a running item that carries this device (an
  // earlier global barrier deadlocked against a hotplug create_device on the worker).
  pe1_.then([this, i] {
    const auto& running = wq_.executing();
    if (!running || !running->blocks_reset_of(int(i))) return;
    ctx_.event(kMainThread, "reset_barrier_wait").u64("ep", i).u64("item", running->id);
    pe1_.suspend();
    wq_.when_item_done([this] { pe1_.resume(); });
  });
  pe1_.then([this, i] {
    VirtioPciDevice& d = *devices_[i];
    d.reset_registers();
    log_.info(kMainThread, "VirtIO device reset [finished]");
    wq_.lower_reset_barrier();
    trace_status_[i] = d.status();
    after_common_write(i);
  });
}

void VnetApp::log_status_change(unsigned i, uint8_t old_status, uint8_t new_status) {
  VirtioPciDevice& dev = *devices_[i];
  const uint8_t newly = uint8_t(new_status & ~old_status);
  switch (newly) {
    case VIRTIO_CONFIG_S_ACKNOWLEDGE:
      log_.info(kMainThread, "VirtIO Driver: ACKNOWLEDGE - driver detected VirtIO device");
      break;
    case VIRTIO_CONFIG_S_DRIVER:
      log_.info(kMainThread, "VirtIO Driver: DRIVER loaded - OS driver attached to device");
      break;
    case VIRTIO_CONFIG_S_FEATURES_OK:
      dev.latch_negotiated();
      log_.info(kMainThread, "VirtIO Driver: FEATURES_OK - feature negotiated (=0x%lx)",
                static_cast<unsigned long>(dev.negotiated_features()));
      break;
    case VIRTIO_CONFIG_S_DRIVER_OK: {
      log_.info(kMainThread, "VirtIO Driver: DRIVER_OK - device should already be live!");
      dev.save_selected_queue();
      const Mac& m = dev.mac();
      log_.info(kMainThread, "Final State: features=0x%lx, queues=%d, MAC=%02x:%02x:%02x:%02x:%02x:%02x",
                static_cast<unsigned long>(dev.negotiated_features()), int(dev.num_queues()), m[0], m[1], m[2], m[3],
                m[4], m[5]);
      break;
    }
    case VIRTIO_CONFIG_S_FAILED:
      log_.error(kMainThread, "VirtIO Driver: FAILED - driver encountered an error");
      break;
    default:
      log_.debug(kMainThread, "??? unknown device status: 0x%02x", new_status);
  }
}

void VnetApp::after_common_write(unsigned i) {
  VirtioPciDevice& dev = *devices_[i];
  status_callback(i);  // step 9: after every common-config write
  trace_status_[i] = dev.status();
  // Step 10.
  if (dev.cancel_in_progress && dev.status() != VIRTIO_CONFIG_S_NEEDS_RESET &&
      dev.reset_status_state == ResetStatusState::IDLE)
    dev.cancel_in_progress = false;
}

void VnetApp::device_needs_reset(unsigned i, const std::string& reason) {
  // Firmware found the driver's ring malformed (virtio 1.2 §2.1.2): DEVICE_NEEDS_RESET is
  // ORed into the status the driver set and, the driver being past DRIVER_OK, the
  // configuration change is notified on config_msix_vector. It stays until the driver resets.
  VirtioPciDevice& dev = *devices_[i];
  dev.set_status(uint8_t(dev.status() | VIRTIO_CONFIG_S_NEEDS_RESET));
  trace_status_[i] = dev.status();
  const uint16_t vector = dev.config_msix_vector();
  const char* outcome = controllers_[i].engine ? controllers_[i].engine->raise_msix(vector) : "no_engine";
  ctx_.event(name(), "device_needs_reset")
      .u64("ep", i)
      .str("reason", reason)
      .hex("status", dev.status())
      .u64("config_vector", vector)
      .str("msix", outcome);
}

}  // namespace dpusim::vnet
