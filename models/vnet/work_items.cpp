// The workqueue's items (vnet-app.md §5.4, §6.1) as the worker runs them, each operation on
// the offload engine taking its cost from the timing profile (vnet.work.*).
#include "vnet/vnet_app.h"
#include "vnet/vnet_timing.h"

namespace dpusim::vnet {

using namespace dpusim::virtio;

void VnetApp::execute(const WorkItem& it, pcie::Activity& w) {
  const unsigned i = it.device >= 0 ? unsigned(it.device) : 0;
  switch (it.type) {
    case WorkType::VQ_CONFIG: return vq_config(i, it.arg, w);
    case WorkType::CONTROLLER_CLEANUP: return controller_cleanup(i, it.arg != 0, w, kWorkerThread);
    case WorkType::ENGINE_START: return engine_start(i, w);
    case WorkType::INITIALIZE_VQS: return initialize_vqs(i, w);
    case WorkType::INITIALIZE_IO_CTX: return initialize_io_ctx(i, w);
    case WorkType::START_AND_ENABLE: return start_and_enable(i, w);
    case WorkType::CREATE_STATS_LIST: return create_stats_list(i, w);
    case WorkType::DEVICE_RESET: return device_reset_work(i, w);
    case WorkType::DELAYED_DESTROY: return delayed_destroy(it.arg, w);
    case WorkType::HOTPLUG_EVENT: return hotplug_event(it.arg, it.arg2 != 0, w);
    case WorkType::SPEED_CHANGE: return speed_change(i, it.arg, w);
  }
}

bool VnetApp::submit_work(WorkType type, int ep, uint32_t arg, uint32_t arg2) {
  WorkItem it;
  it.type = type;
  it.device = ep;
  it.generation = ep >= 0 && type != WorkType::DELAYED_DESTROY && type != WorkType::HOTPLUG_EVENT
                      ? devices_[unsigned(ep)]->reset_generation
                      : 0;
  it.arg = arg;
  it.arg2 = arg2;
  return wq_.submit(it);
}

void VnetApp::engine_start(unsigned i, pcie::Activity& w) {
  Controller& c = controllers_[i];
  if (!c.device_present || c.cleanup_running) {
    log_.warn(kWorkerThread, "Offload engine destroyed or cleanup in progress - skipping engine start");
    return;
  }
  log_.info(kWorkerThread, "Executing offload engine start");
  w.then(cost(vnet::timing::work_engine_start_ps), [this, i] {
    Controller& c = controllers_[i];
    c.engine->engine_start();
    c.offload_engine_started = true;
    log_.info(kWorkerThread, "VNet offload engine started (async)");
  });
}

void VnetApp::initialize_vqs(unsigned i, pcie::Activity& w) {
  Controller& c = controllers_[i];
  if (!c.offload_engine_started || c.vqs_created || c.cleanup_running) return;
  // All RX/TX VQs for the maximum, then the CVQ only when MQ was negotiated.
  for (unsigned q = 0; q < 2 * c.max_queue_pairs; ++q)
    w.then(cost(vnet::timing::work_vq_create_ps), [this, i, q] { controllers_[i].engine->vq_create(q); });
  w.then([this, i, &w] {
    Controller& c = controllers_[i];
    c.vqs_created = true;
    log_.info(kWorkerThread, "Created %d queue pairs (VQ0-VQ%d)", int(c.max_queue_pairs), int(2 * c.max_queue_pairs - 1));
    if (!c.mq_negotiated) {
      log_.info(kWorkerThread, "CVQ not created - MQ feature not negotiated (single-QP mode)");
      log_.info(kWorkerThread, "VQ initialization complete - ready for host configuration");
      return;
    }
    const unsigned cvq = 2 * devices_[i]->max_queue_pairs();
    w.then(cost(vnet::timing::work_vq_create_ps), [this, i, cvq] {
      Controller& c = controllers_[i];
      c.engine->vq_create(cvq);
      c.cvq_created = true;
      log_.info(kWorkerThread, "Created CVQ (VQ%d)", int(cvq));
      log_.info(kWorkerThread, "VQ initialization complete - ready for host configuration");
    });
  });
}

void VnetApp::initialize_io_ctx(unsigned i, pcie::Activity& w) {
  Controller& c = controllers_[i];
  // Single-QP mode returns early and leaves initialization_in_progress set, so the
  // diagnostics never run for such a device.
  if (!c.mq_negotiated || c.cleanup_running || !c.vqs_created) return;
  log_.info(kWorkerThread, "Initializing IO context for CVQ command handling");
  w.then(cost(vnet::timing::work_io_ctx_create_ps), [this, i] {
    Controller& c = controllers_[i];
    const std::string io = object_id("io_ctx", i), pe = object_id("worker_pe", i), ctrl = object_id("controller", i);
    log_.info(kWorkerThread, "IO context created: %s", io.c_str());
    log_.info(kWorkerThread, "IO context attached to worker PE=%s, controller=%s", pe.c_str(), ctrl.c_str());
    log_.info(kWorkerThread, "ctrl_req handler registered for io_ctx=%s", io.c_str());
    log_.info(kWorkerThread, "IO context started, io_ctx=%s", io.c_str());
    c.io_ctx_started = true;
    c.initialization_in_progress = false;
    log_.info(kWorkerThread, "IO context initialization complete");
  });
}

void VnetApp::set_conf_and_start(unsigned i, unsigned q, const VqShadow& sh, pcie::Activity& a, const char* thread,
                                 bool start) {
  a.then(cost(vnet::timing::work_vq_set_conf_ps), [this, i, q, sh, thread] {
    controllers_[i].engine->vq_set_conf(q, VqConf{sh.size, sh.msix, sh.desc, sh.driver, sh.device});
    log_.info(thread, "VQ%d configured: size=%u, msix=%u, desc=0x%lx, driver=0x%lx, device=0x%lx", int(q), sh.size,
              sh.msix, static_cast<unsigned long>(sh.desc), static_cast<unsigned long>(sh.driver),
              static_cast<unsigned long>(sh.device));
  });
  if (start) a.then(cost(vnet::timing::work_vq_start_ps), [this, i, q] { controllers_[i].engine->vq_start(q); });
}

void VnetApp::vq_config(unsigned i, unsigned q, pcie::Activity& w) {
  Controller& c = controllers_[i];
  VirtioPciDevice& dev = *devices_[i];
  if (!c.device_present || !c.vqs_created) return;
  const VqShadow sh = dev.shadow(q);  // a snapshot: a reset cannot change it under the worker
  if (!sh.fully_configured()) return;
  const unsigned cvq = 2 * dev.max_queue_pairs();
  if (q > cvq) {
    log_.error(kWorkerThread, "Invalid VQ index %d (cvq_index=%d)", int(q), int(cvq));
    return;
  }
  if (q == cvq && c.mq_negotiated) {
    if (!c.cvq_created) {
      log_.error(kWorkerThread, "CVQ not created but VQ%d configuration received", int(q));
      return;
    }
  } else {
    const unsigned qp = q / 2;
    if (qp >= c.max_queue_pairs) {
      if (q % 2 == 0) log_.error(kWorkerThread, "Invalid RX VQ index %d (QP%d, max_qp=%d)", int(q), int(qp), int(c.max_queue_pairs));
      else log_.error(kWorkerThread, "Invalid VQ index %d (cvq_index=%d)", int(q), int(cvq));
      return;
    }
    if (qp >= c.num_active_qps || c.initial_data_qps_deferred) return;
  }
  set_conf_and_start(i, q, sh, w, kWorkerThread, false);
  w.then([this, i] {
    const Controller& c = controllers_[i];
    if ((devices_[i]->status() & VIRTIO_CONFIG_S_DRIVER_OK) && !c.engine_enabled) submit(WorkType::START_AND_ENABLE, i);
  });
}

void VnetApp::start_and_enable(unsigned i, pcie::Activity& w) {
  Controller& c = controllers_[i];
  VirtioPciDevice& dev = *devices_[i];
  if (!(dev.status() & VIRTIO_CONFIG_S_DRIVER_OK) || c.engine_enabled || !c.vqs_created || c.cleanup_running) return;
  log_.info(kWorkerThread, "Executing VQs start and engine enable");
  const unsigned cvq = 2 * dev.max_queue_pairs();
  if (c.initial_data_qps_deferred) {
    if (!dev.shadow(cvq).fully_configured()) {
      log_.debug(kWorkerThread, "start_and_enable deferred until CVQ configuration is complete");
      return;
    }
  } else if (c.engine->vq_state(0) != VqState::CONFIGURED || c.engine->vq_state(1) != VqState::CONFIGURED) {
    log_.debug(kWorkerThread, "start_and_enable deferred until first QP configuration is complete");
    return;
  }
  // The active data QPs (none while deferred), then the CVQ: set_conf, start, bind.
  const unsigned data_vqs = c.initial_data_qps_deferred ? 0 : 2 * c.num_active_qps;
  for (unsigned q = 0; q < data_vqs; ++q)
    w.then(cost(vnet::timing::work_vq_start_ps), [this, i, q] { controllers_[i].engine->vq_start(q); });
  if (c.mq_negotiated && c.cvq_created) {
    set_conf_and_start(i, cvq, dev.shadow(cvq), w, kWorkerThread, true);
    w.then([this, i, cvq] {
      controllers_[i].engine->cvq_bind(cvq, [this, i](CtrlReq req) { ctrl_req_arrived(i, std::move(req)); });
    });
  }
  w.then([this] {
    log_.info(kWorkerThread, "All VQs configured and started (engine not yet enabled)");
    log_.info(kWorkerThread, "Enabling VNet offload engine");
  });
  w.then(cost(vnet::timing::work_engine_enable_ps), [this, i] {
    Controller& c = controllers_[i];
    c.engine->set_features(devices_[i]->negotiated_features());
    c.engine->engine_enable();
    c.engine_enabled = true;
    log_.info(kWorkerThread, "VNet offload engine enabled successfully");
  });
  // The VNET counters are created and reset only once the enable has finished.
  w.then(cost(vnet::timing::work_counters_ps), [this, i] {
    Controller& c = controllers_[i];
    c.counters = true;
    log_.info(kWorkerThread, "VNet offload engine enabled - device ready for DRIVER_OK");
    if (!c.initial_data_qps_deferred) submit(WorkType::CREATE_STATS_LIST, i);
    release_deferred_mq(kWorkerThread);
  });
}

void VnetApp::create_stats_list(unsigned i, pcie::Activity& w) {
  if (!controllers_[i].engine_enabled || controllers_[i].cleanup_running) return;
  w.then(cost(vnet::timing::work_stats_list_ps), [this, i] {
    Controller& c = controllers_[i];
    c.stats_list = true;
    unsigned queues = 0;
    for (unsigned q = 0; q < c.engine->num_vqs(); ++q) queues += c.engine->vq_state(q) == VqState::ENABLED ? 1 : 0;
    log_.info(kWorkerThread, "Created stats list for %u queues (async)", queues);
  });
}

void VnetApp::device_reset_work(unsigned i, pcie::Activity& w) {
  // Defined and handled by the application, never submitted by it: the VirtIO register reset.
  w.then(cost(vnet::timing::work_register_reset_ps), [this, i] { devices_[i]->reset_registers(); });
}

bool VnetApp::ensure_config_msix(unsigned i, const char* thread) {
  Controller& c = controllers_[i];
  const uint16_t vector = devices_[i]->config_msix_vector();
  if (vector == VIRTIO_MSI_NO_VECTOR) {
    log_.debug(thread, "Config MSI-X not available (vector=0x%04x)", vector);
    return false;
  }
  if (c.config_msix && *c.config_msix != vector) {
    log_.info(thread, "Config MSI-X vector changed (%u -> %u), destroying old MSI-X", unsigned(*c.config_msix), vector);
    c.config_msix.reset();
  }
  if (!c.config_msix) {
    c.config_msix = vector;
    log_.info(thread, "Config MSI-X created (vector=%u) - ready for config change notifications", vector);
  }
  return true;
}

void VnetApp::speed_change(unsigned i, uint32_t mbps, pcie::Activity& w) {
  VirtioPciDevice& dev = *devices_[i];
  if (!ensure_config_msix(i, kWorkerThread)) {
    log_.error(kWorkerThread, "Speed change: config MSI-X not available: %s", "DOCA_ERROR_BAD_STATE");
    log_.error(kWorkerThread, "Speed change failed: %s", "DOCA_ERROR_BAD_STATE");
    item_result_ = "DOCA_ERROR_BAD_STATE";
    return;
  }
  const uint32_t old = le32(dev.net_config() + VIRTIO_NET_CFG_SPEED);
  if (old == mbps) {
    log_.info(kWorkerThread, "Speed change: already at %u Mbps, skipping", mbps);
    return;
  }
  log_.info(kWorkerThread, "Speed change: %u -> %u Mbps (link bounce + MSI-X)", old, mbps);
  // Linux re-reads the speed only on a LINK_UP transition: the link bounces.
  auto bounce = [this, i](bool up) {
    VirtioPciDevice& d = *devices_[i];
    d.set_common(VIRTIO_PCI_COMMON_CFGGENERATION, 1, uint8_t(d.config_generation() + 1));
    put_le16(d.net_config() + VIRTIO_NET_CFG_STATUS, up ? VIRTIO_NET_S_LINK_UP : 0);
    const char* outcome = controllers_[i].engine->raise_msix(*controllers_[i].config_msix);
    ctx_.event(name(), "config_interrupt").u64("ep", i).boolean("link_up", up).str("msix", outcome);
  };
  bounce(false);
  w.then(cost(vnet::timing::speed_bounce_ps), [this, i, old, mbps, bounce] {
    put_le32(devices_[i]->net_config() + VIRTIO_NET_CFG_SPEED, mbps);
    bounce(true);
    log_.info(kWorkerThread, "Speed change: done (%u -> %u Mbps)", old, mbps);
  });
}

void VnetApp::check_reset_hold_liveness(const WorkItem& item, bool skipped) {
  // Liveness of the reset hold: a device held at NEEDS_RESET must have a cleanup of its
  // current generation queued or running, or nothing will ever release the hold. The
  // application's latent hazard (vnet-app.md §12) breaks this: a second status-0 write while
  // the cleanup is still queued makes that cleanup stale, and the callback queues no other.
  if (!skipped || item.type != WorkType::CONTROLLER_CLEANUP || item.device < 0) return;
  const unsigned i = unsigned(item.device);
  const VirtioPciDevice& dev = *devices_[i];
  if (dev.reset_status_state != ResetStatusState::HELD) return;
  if (wq_.has_queued(WorkType::CONTROLLER_CLEANUP, int(i), dev.reset_generation) || controllers_[i].cleanup_running)
    return;
  ctx_.checker.violation(ctx_.now_ps(), name(), "reset_hold_never_released",
                         "ep" + std::to_string(i) + " (" + bdf_of(i) +
                             "): device_status held at 0x40 (reset_status_state HELD) but its only cleanup (gen " +
                             std::to_string(item.generation) + ") was skipped as stale after a second reset (gen " +
                             std::to_string(dev.reset_generation) +
                             ") re-asserted the hold without queuing another: the host reads 0x40 forever "
                             "(double-reset hazard, vnet-app.md section 12)");
}

}  // namespace dpusim::vnet
