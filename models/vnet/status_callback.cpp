// The core status callback (vnet-app.md §5.2 f, §5.3), called on PE1 after every
// common-config write: the reset decision, FEATURES_OK and DRIVER_OK.
#include "vnet/vnet_app.h"

namespace dpusim::vnet {

using namespace dpusim::virtio;

bool VnetApp::submit(WorkType type, unsigned i, uint32_t arg) {
  WorkItem it;
  it.type = type;
  it.device = int(i);
  it.generation = devices_[i]->reset_generation;
  it.arg = arg;
  return wq_.submit(it);
}

void VnetApp::status_callback(unsigned i) {
  VirtioPciDevice& dev = *devices_[i];
  const uint8_t s = dev.status();
  if (s == 0) return on_reset_status(i);
  if (s == dev.prev_status) return;
  // Newly set bits against the callback's own copy: while that is still 0xFF (the first
  // probe after power-on) nothing counts as newly set, so that probe's ACK line is silent.
  const uint8_t newly = uint8_t(s & ~dev.prev_status);
  const std::string bdf = bdf_of(i);
  if (newly & VIRTIO_CONFIG_S_ACKNOWLEDGE) log_.info(kMainThread, "%s:VirtIO Status: <ACKNOWLEDGE> bit set", bdf.c_str());
  if (newly & VIRTIO_CONFIG_S_DRIVER) log_.info(kMainThread, "%s:VirtIO Status: <DRIVER> bit set", bdf.c_str());
  dev.prev_status = s;
  if (newly & VIRTIO_CONFIG_S_FEATURES_OK) on_features_ok(i);
  if (newly & VIRTIO_CONFIG_S_DRIVER_OK) on_driver_ok(i);
}

void VnetApp::on_reset_status(unsigned i) {
  VirtioPciDevice& dev = *devices_[i];
  Controller& c = controllers_[i];
  if (dev.reset_status_state == ResetStatusState::HELD) {
    // A previous reset is still being cleaned up: only the host-visible hold is reasserted.
    dev.set_status(VIRTIO_CONFIG_S_NEEDS_RESET);
    log_.info(kMainThread, "RESET cleanup pending - reasserting device_status=0x40");
    dev.prev_status = 0;
    return;
  }
  if (dev.prev_status == 0 || dev.prev_status == 0xff) return;
  log_.info(kMainThread, "VNet device %s: RESET detected - performing cleanup", bdf_of(i).c_str());
  dev.prev_status = 0;
  if (shutting_down_) {
    log_.debug(kMainThread, "Ignoring reset during application shutdown");
    return;
  }
  if (!c.has_resources()) {
    log_.debug(kMainThread, "RESET: no controller resources to tear down, completing immediately");
    return;
  }
  dev.reset_status_state = ResetStatusState::HELD;
  dev.set_status(VIRTIO_CONFIG_S_NEEDS_RESET);
  log_.info(kMainThread, "RESET: holding device_status=0x40 until controller cleanup completes");
  // destroy_engine = false: true once misclassified a fresh rebind as an unplug and wedged
  // virtnet_probe.
  submit(WorkType::CONTROLLER_CLEANUP, i, 0);
  if (c.pending_unplug)
    log_.info(kMainThread, "Pending unplug: host reset - keeping engine alive until Power OFF");
  else
    log_.info(kMainThread, "RESET cleanup queued - ready for fresh start on FEATURES_OK");
}

void VnetApp::negotiate_mq(unsigned i, bool deferred_init) {
  VirtioPciDevice& dev = *devices_[i];
  Controller& c = controllers_[i];
  // Only bits 17 and 22 decide, so the never-latched high half does not matter here.
  const uint64_t f = dev.negotiated_features();
  const bool ctrl_vq = f & bit(VIRTIO_NET_F_CTRL_VQ), mq = f & bit(VIRTIO_NET_F_MQ);
  c.mq_negotiated = ctrl_vq && mq;
  c.num_active_qps = 1;
  if (c.mq_negotiated) {
    c.max_queue_pairs = dev.max_queue_pairs();
    c.initial_data_qps_deferred = opt_.static_mode() && num_ep() > 1;
    if (deferred_init) log_.info(kWorkerThread, "Deferred init: MQ features negotiated (CVQ+MQ)");
    else log_.info(kMainThread, "MQ features negotiated: F_CTRL_VQ + F_MQ -- CVQ + MQ support enabled");
  } else {
    c.max_queue_pairs = 1;
    if (deferred_init) log_.info(kWorkerThread, "Deferred init: MQ NOT negotiated - single QP mode");
    else
      log_.info(kMainThread, "MQ features NOT negotiated (CTRL_VQ=%d, MQ=%d) - single QP mode", ctrl_vq ? 1 : 0,
                mq ? 1 : 0);
  }
}

void VnetApp::on_features_ok(unsigned i) {
  Controller& c = controllers_[i];
  const std::string bdf = bdf_of(i);
  log_.info(kMainThread, "%s:VirtIO Status: <FEATURES_OK> bit set - starting hardware preparation", bdf.c_str());
  // The driver's feature set is not checked: FEATURES_OK is never refused.
  if (c.pending_unplug)
    log_.info(kMainThread, "FEATURES_OK: pending_unplug set on DSP[%d] - proceeding with init (host driver is active)",
              int(i));
  if (c.cleanup_running) {
    log_.info(kMainThread, "FEATURES_OK: Cleanup in progress - deferring init");
    c.deferred_init_pending = true;
    return;
  }
  c.initialization_in_progress = true;
  negotiate_mq(i, false);
  wq_.log_status(kMainThread);
  log_.info(kMainThread, "FEATURES_OK: About to queue async work (engine_started=%d)", c.offload_engine_started ? 1 : 0);
  if (!c.offload_engine_started) {
    log_.info(kMainThread, "FEATURES_OK: Submitting engine_start work item");
    submit(WorkType::ENGINE_START, i);
    log_.info(kMainThread, "FEATURES_OK: engine_start submitted");
  }
  log_.info(kMainThread, "FEATURES_OK: MQ mode=%s, max_qps=%d, active_qps=%d", c.mq_negotiated ? "enabled" : "disabled",
            int(c.max_queue_pairs), int(c.num_active_qps));
  log_.info(kMainThread, "FEATURES_OK: Submitting initialize_vqs work item");
  submit(WorkType::INITIALIZE_VQS, i);
  log_.info(kMainThread, "FEATURES_OK: initialize_vqs submitted");
  log_.info(kMainThread, "FEATURES_OK: Submitting initialize_io_context work item");
  submit(WorkType::INITIALIZE_IO_CTX, i);
  log_.info(kMainThread, "FEATURES_OK: initialize_io_context submitted");
  log_.info(kMainThread, "FEATURES_OK: All async work items submitted, handler complete");
}

void VnetApp::on_driver_ok(unsigned i) {
  VirtioPciDevice& dev = *devices_[i];
  Controller& c = controllers_[i];
  const std::string bdf = bdf_of(i);
  if (c.pending_unplug)
    log_.info(kMainThread, "%s: DRIVER_OK with pending_unplug on DSP[%d] - proceeding (host driver needs working CVQ)",
              bdf.c_str(), int(i));
  if (!c.engine_enabled) {
    log_.info(kMainThread, "%s: DRIVER_OK set - starting VQs and enabling engine", bdf.c_str());
    submit(WorkType::START_AND_ENABLE, i);
  }
  const Mac& m = dev.mac();
  log_.info(kMainThread, "%s: VNet: now OPERATIONAL - MAC %02x:%02x:%02x:%02x:%02x:%02x", bdf.c_str(), m[0], m[1], m[2],
            m[3], m[4], m[5]);
  int configured = 0;
  for (unsigned q = 0; q < dev.num_queues(); ++q) configured += dev.shadow(q).enable ? 1 : 0;
  log_.info(kMainThread, "  Configured VQs: %d, Active QPs: %d/%d", configured, int(c.num_active_qps),
            int(c.max_queue_pairs));
  log_.info(kMainThread, "  CVQ: %s", c.mq_negotiated ? "started" : "not present");
  log_.info(kMainThread, "%s: VirtIO DRIVER_OK detected - device is live now", bdf.c_str());
}

}  // namespace dpusim::vnet
