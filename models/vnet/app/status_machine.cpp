#include "vnet/app/status_machine.h"

#include "vnet/app/app_invariants.h"

namespace dpusim::vnet {

using namespace dpusim::virtio;

void StatusMachine::release_reset_hold(unsigned i) {
  VirtioPciDevice& dev = *devs_.devices[i];
  if (dev.reset_status_state != ResetStatusState::RELEASE_PENDING) return;
  dev.reset_status_state = ResetStatusState::IDLE;
  invariants_.watch_reset_hold(i, false);
  if (dev.status() == VIRTIO_CONFIG_S_NEEDS_RESET) {
    dev.set_status(0);
    dev.prev_status = 0;
    devs_.note_status(i);
    env_.log.info(kMainThread, "RESET: TLP thread released host-visible reset hold");
  }
  dev.cancel_in_progress = false;
}

void StatusMachine::rolled_back(unsigned) {
  env_.log.error(kMainThread, "pci_cfg: attempt to overwrite RO field: ROLLBACK");
}

void StatusMachine::version_1_visible(unsigned) {
  env_.log.info(kMainThread, "VIRTIO_F_VERSION_1 now visible to driver (bit 32)");
}

void StatusMachine::vq_config(unsigned i, unsigned q, bool enabled_edge) {
  if (enabled_edge)
    env_.log.debug(kMainThread, "VQ%d enabled (0\u21921) - applying configuration to hardware", int(q));
  else
    env_.log.info(kMainThread, "VQ%d addresses now complete - re-submitting vq_config", int(q));
  const Controller& c = devs_.controllers[i];
  if (work_.wq.reset_in_progress()) {
    env_.log.debug(kMainThread, "VQ%d config dropped - device reset in progress", int(q));
    return;
  }
  // A data VQ whose queue pair is not active yet (or all of them, while the first-stage data
  // QPs are deferred) is configured later, from the shadow, by the MQ start.
  const bool cvq = c.mq_negotiated && q == 2 * devs_.devices[i]->max_queue_pairs();
  if (!cvq && q < 2 * devs_.devices[i]->max_queue_pairs() && (q / 2 >= c.num_active_qps || c.initial_data_qps_deferred))
    return;
  work_.submit(WorkType::VQ_CONFIG, i, q);
}

void StatusMachine::status_written(unsigned i, uint8_t old_status, uint8_t new_status) {
  env_.log.info(kMainThread, "VIRTIO STATUS CHANGE: 0x%02x -> 0x%02x", old_status, new_status);
  if (new_status == 0) return synchronous_reset(i);
  log_status_change(i, old_status, new_status);
  after_common_write(i);
}

// The device reset, synchronous on the main thread: the next TLP waits behind it.
void StatusMachine::synchronous_reset(unsigned i) {
  VirtioPciDevice& dev = *devs_.devices[i];
  env_.log.info(kMainThread, "VirtIO Driver: DEVICE RESET - reinitializing device");
  dev.cancel_in_progress = true;
  ++dev.reset_generation;
  env_.event("reset_generation").u64("ep", i).u64("gen", dev.reset_generation);
  env_.ctx.checker.generation_bumped(work_.wq.device_path(int(i)), dev.reset_generation);
  work_.wq.raise_reset_barrier();
  // The per-device barrier waits only for a running item that carries this device: a global
  // one would wait on a hotplug's create_device on the worker, which waits on this thread.
  env_.main_thread.then([this, i] {
    const auto& running = work_.wq.executing();
    if (!running || !running->blocks_reset_of(int(i))) return;
    env_.ctx.event(env_.log.thread_path(kMainThread), "reset_barrier_wait").u64("ep", i).u64("item", running->id);
    env_.main_thread.suspend();
    work_.wq.when_item_done([this] { env_.main_thread.resume(); });
  });
  env_.main_thread.then([this, i] {
    VirtioPciDevice& d = *devs_.devices[i];
    d.reset_registers();
    devs_.controllers[i].reset_since_driver_ok = true;
    env_.log.info(kMainThread, "VirtIO device reset [finished]");
    work_.wq.lower_reset_barrier();
    devs_.note_status(i);
    after_common_write(i);
  });
}

void StatusMachine::log_status_change(unsigned i, uint8_t old_status, uint8_t new_status) {
  VirtioPciDevice& dev = *devs_.devices[i];
  const uint8_t newly = uint8_t(new_status & ~old_status);
  switch (newly) {
    case VIRTIO_CONFIG_S_ACKNOWLEDGE:
      env_.log.info(kMainThread, "VirtIO Driver: ACKNOWLEDGE - driver detected VirtIO device");
      break;
    case VIRTIO_CONFIG_S_DRIVER:
      env_.log.info(kMainThread, "VirtIO Driver: DRIVER loaded - OS driver attached to device");
      break;
    case VIRTIO_CONFIG_S_FEATURES_OK:
      dev.latch_negotiated();
      env_.log.info(kMainThread, "VirtIO Driver: FEATURES_OK - feature negotiated (=0x%lx)",
                static_cast<unsigned long>(dev.negotiated_features()));
      break;
    case VIRTIO_CONFIG_S_DRIVER_OK: {
      env_.log.info(kMainThread, "VirtIO Driver: DRIVER_OK - device should already be live!");
      dev.save_selected_queue();
      const Mac& m = dev.mac();
      env_.log.info(kMainThread, "Final State: features=0x%lx, queues=%d, MAC=%02x:%02x:%02x:%02x:%02x:%02x",
                static_cast<unsigned long>(dev.negotiated_features()), int(dev.num_queues()), m[0], m[1], m[2], m[3],
                m[4], m[5]);
      break;
    }
    case VIRTIO_CONFIG_S_FAILED:
      env_.log.error(kMainThread, "VirtIO Driver: FAILED - driver encountered an error");
      break;
    default:
      env_.log.debug(kMainThread, "??? unknown device status: 0x%02x", new_status);
  }
}

void StatusMachine::after_common_write(unsigned i) {
  VirtioPciDevice& dev = *devs_.devices[i];
  status_callback(i);  // after every common-config write
  devs_.note_status(i);
  // The cancel flag a reset raised falls once the reset is over and no hold remains.
  if (dev.cancel_in_progress && dev.status() != VIRTIO_CONFIG_S_NEEDS_RESET &&
      dev.reset_status_state == ResetStatusState::IDLE)
    dev.cancel_in_progress = false;
}

void StatusMachine::device_needs_reset(unsigned i, const std::string& reason) {
  // Firmware found the driver's ring malformed (virtio 1.2 §2.1.2): DEVICE_NEEDS_RESET is
  // ORed into the status the driver set and, the driver being past DRIVER_OK, the
  // configuration change is notified on config_msix_vector. It stays until the driver resets.
  VirtioPciDevice& dev = *devs_.devices[i];
  dev.set_status(uint8_t(dev.status() | VIRTIO_CONFIG_S_NEEDS_RESET));
  devs_.note_status(i);
  const uint16_t vector = dev.config_msix_vector();
  const char* outcome = devs_.controllers[i].engine ? devs_.controllers[i].engine->raise_msix(vector) : "no_engine";
  env_.event("device_needs_reset")
      .u64("ep", i)
      .str("reason", reason)
      .hex("status", dev.status())
      .u64("config_vector", vector)
      .str("msix", outcome);
}

void StatusMachine::status_callback(unsigned i) {
  VirtioPciDevice& dev = *devs_.devices[i];
  const uint8_t s = dev.status(), before = dev.prev_status;
  // Edges against the callback's own copy: while that is still 0xFF (the first probe after
  // power-on) nothing counts as newly set, so that probe's ACK line is silent. A status of 0
  // leaves the copy to the reset handling.
  if (s != 0) dev.prev_status = s;
  function_.status_edges(i, before, s);
}

void StatusMachine::acknowledge(unsigned i) {
  env_.log.info(kMainThread, "%s:VirtIO Status: <ACKNOWLEDGE> bit set", devs_.bdf_of(i).c_str());
}

void StatusMachine::driver(unsigned i) {
  env_.log.info(kMainThread, "%s:VirtIO Status: <DRIVER> bit set", devs_.bdf_of(i).c_str());
}

void StatusMachine::device_reset(unsigned i) {
  VirtioPciDevice& dev = *devs_.devices[i];
  Controller& c = devs_.controllers[i];
  if (dev.reset_status_state == ResetStatusState::HELD) {
    // A previous reset is still being cleaned up: only the host-visible hold is reasserted.
    dev.set_status(VIRTIO_CONFIG_S_NEEDS_RESET);
    env_.log.info(kMainThread, "RESET cleanup pending - reasserting device_status=0x40");
    dev.prev_status = 0;
    return;
  }
  if (dev.prev_status == 0 || dev.prev_status == 0xff) return;
  env_.log.info(kMainThread, "VNet device %s: RESET detected - performing cleanup", devs_.bdf_of(i).c_str());
  dev.prev_status = 0;
  if (env_.shutting_down) {
    env_.log.debug(kMainThread, "Ignoring reset during application shutdown");
    return;
  }
  if (!c.has_resources()) {
    env_.log.debug(kMainThread, "RESET: no controller resources to tear down, completing immediately");
    return;
  }
  dev.reset_status_state = ResetStatusState::HELD;
  invariants_.watch_reset_hold(i, true);
  dev.set_status(VIRTIO_CONFIG_S_NEEDS_RESET);
  env_.log.info(kMainThread, "RESET: holding device_status=0x40 until controller cleanup completes");
  // destroy_engine = false: true once misclassified a fresh rebind as an unplug and wedged
  // virtnet_probe.
  work_.submit(WorkType::CONTROLLER_CLEANUP, i, 0);
  if (c.pending_unplug)
    env_.log.info(kMainThread, "Pending unplug: host reset - keeping engine alive until Power OFF");
  else
    env_.log.info(kMainThread, "RESET cleanup queued - ready for fresh start on FEATURES_OK");
}

void StatusMachine::negotiate_mq(unsigned i, bool deferred_init) {
  VirtioPciDevice& dev = *devs_.devices[i];
  Controller& c = devs_.controllers[i];
  // Only bits 17 and 22 decide, so the never-latched high half does not matter here.
  const uint64_t f = dev.negotiated_features();
  const bool ctrl_vq = f & bit(VIRTIO_NET_F_CTRL_VQ), mq = f & bit(VIRTIO_NET_F_MQ);
  c.mq_negotiated = ctrl_vq && mq;
  c.num_active_qps = 1;
  if (c.mq_negotiated) {
    c.max_queue_pairs = dev.max_queue_pairs();
    c.initial_data_qps_deferred = env_.opt.static_mode() && devs_.num_ep() > 1;
    if (deferred_init) env_.log.info(kWorkerThread, "Deferred init: MQ features negotiated (CVQ+MQ)");
    else env_.log.info(kMainThread, "MQ features negotiated: F_CTRL_VQ + F_MQ -- CVQ + MQ support enabled");
  } else {
    c.max_queue_pairs = 1;
    if (deferred_init) env_.log.info(kWorkerThread, "Deferred init: MQ NOT negotiated - single QP mode");
    else
      env_.log.info(kMainThread, "MQ features NOT negotiated (CTRL_VQ=%d, MQ=%d) - single QP mode", ctrl_vq ? 1 : 0,
                mq ? 1 : 0);
  }
}

void StatusMachine::features_ok(unsigned i) {
  Controller& c = devs_.controllers[i];
  const std::string bdf = devs_.bdf_of(i);
  env_.log.info(kMainThread, "%s:VirtIO Status: <FEATURES_OK> bit set - starting hardware preparation", bdf.c_str());
  // The driver's feature set is not checked: FEATURES_OK is never refused.
  if (c.pending_unplug)
    env_.log.info(kMainThread, "FEATURES_OK: pending_unplug set on DSP[%d] - proceeding with init (host driver is active)",
              int(i));
  if (c.cleanup_running) {
    env_.log.info(kMainThread, "FEATURES_OK: Cleanup in progress - deferring init");
    c.deferred_init_pending = true;
    return;
  }
  c.initialization_in_progress = true;
  negotiate_mq(i, false);
  work_.wq.log_status(kMainThread);
  env_.log.info(kMainThread, "FEATURES_OK: About to queue async work (engine_started=%d)", c.offload_engine_started ? 1 : 0);
  if (!c.offload_engine_started) {
    env_.log.info(kMainThread, "FEATURES_OK: Submitting engine_start work item");
    work_.submit(WorkType::ENGINE_START, i);
    env_.log.info(kMainThread, "FEATURES_OK: engine_start submitted");
  }
  env_.log.info(kMainThread, "FEATURES_OK: MQ mode=%s, max_qps=%d, active_qps=%d", c.mq_negotiated ? "enabled" : "disabled",
            int(c.max_queue_pairs), int(c.num_active_qps));
  env_.log.info(kMainThread, "FEATURES_OK: Submitting initialize_vqs work item");
  work_.submit(WorkType::INITIALIZE_VQS, i);
  env_.log.info(kMainThread, "FEATURES_OK: initialize_vqs submitted");
  env_.log.info(kMainThread, "FEATURES_OK: Submitting initialize_io_context work item");
  work_.submit(WorkType::INITIALIZE_IO_CTX, i);
  env_.log.info(kMainThread, "FEATURES_OK: initialize_io_context submitted");
  env_.log.info(kMainThread, "FEATURES_OK: All async work items submitted, handler complete");
}

void StatusMachine::driver_ok(unsigned i) {
  VirtioPciDevice& dev = *devs_.devices[i];
  Controller& c = devs_.controllers[i];
  const std::string bdf = devs_.bdf_of(i);
  c.reset_since_driver_ok = false;
  if (c.pending_unplug)
    env_.log.info(kMainThread, "%s: DRIVER_OK with pending_unplug on DSP[%d] - proceeding (host driver needs working CVQ)",
              bdf.c_str(), int(i));
  if (!c.engine_enabled) {
    env_.log.info(kMainThread, "%s: DRIVER_OK set - starting VQs and enabling engine", bdf.c_str());
    work_.submit(WorkType::START_AND_ENABLE, i);
  }
  const Mac& m = dev.mac();
  env_.log.info(kMainThread, "%s: VNet: now OPERATIONAL - MAC %02x:%02x:%02x:%02x:%02x:%02x", bdf.c_str(), m[0], m[1], m[2],
            m[3], m[4], m[5]);
  int configured = 0;
  for (unsigned q = 0; q < dev.num_queues(); ++q) configured += dev.shadow(q).enable ? 1 : 0;
  env_.log.info(kMainThread, "  Configured VQs: %d, Active QPs: %d/%d", configured, int(c.num_active_qps),
            int(c.max_queue_pairs));
  env_.log.info(kMainThread, "  CVQ: %s", c.mq_negotiated ? "started" : "not present");
  env_.log.info(kMainThread, "%s: VirtIO DRIVER_OK detected - device is live now", bdf.c_str());
}

}  // namespace dpusim::vnet
