#include "vnet/app/work_items.h"

#include "vnet/app/cleanup.h"
#include "vnet/app/cvq_handler.h"
#include "vnet/app/mq_start.h"
#include "vnet/switch/slots.h"
#include "vnet/sriov/sriov.h"
#include "vnet/app/vnet_timing.h"
#include "vnet/virtio/vq_config.h"

namespace dpusim::vnet {

using namespace dpusim::virtio;

void WorkItems::execute(const WorkItem& it, pcie::Activity& w) {
  const unsigned i = it.device >= 0 ? unsigned(it.device) : 0;
  switch (it.type) {
    case WorkType::VQ_CONFIG: return vq_config(i, it.arg, w);
    case WorkType::CONTROLLER_CLEANUP: return cleanup_.controller_cleanup(i, it.arg != 0, w, kWorkerThread);
    case WorkType::ENGINE_START: return engine_start(i, w);
    case WorkType::INITIALIZE_VQS: return initialize_vqs(i, w);
    case WorkType::INITIALIZE_IO_CTX: return initialize_io_ctx(i, w);
    case WorkType::START_AND_ENABLE: return start_and_enable(i, w);
    case WorkType::CREATE_STATS_LIST: return create_stats_list(i, w);
    case WorkType::DEVICE_RESET: return device_reset(i, w);
    case WorkType::DELAYED_DESTROY: return slots_.delayed_destroy(it.arg, w);
    case WorkType::HOTPLUG_EVENT: return slots_.hotplug_event(it.arg, it.arg2 != 0, w);
    case WorkType::SPEED_CHANGE: return speed_change(i, it.arg, w);
    case WorkType::VF_FAN_OUT: return devs_.sriov->fan_out(it.arg, it.arg2 != 0, w);
    case WorkType::VF_FLR_RESET: return devs_.sriov->flr_reset(it.arg, w);
    case WorkType::VF_BRINGUP: return devs_.sriov->functions().bringup(it.arg, it.arg2, w);
    case WorkType::VF_CTRL_REQ: return devs_.sriov->functions().ctrl_reqs(it.arg, it.arg2, w);
  }
}

void WorkItems::engine_start(unsigned i, pcie::Activity& w) {
  Controller& c = devs_.controllers[i];
  if (!c.device_present || c.cleanup_running) {
    env_.log.warn(kWorkerThread, "Offload engine destroyed or cleanup in progress - skipping engine start");
    return;
  }
  env_.log.info(kWorkerThread, "Executing offload engine start");
  w.then(env_.cost(vnet::timing::work_engine_start_ps), [this, i] {
    Controller& c = devs_.controllers[i];
    c.engine->vqs().engine_start();
    c.offload_engine_started = true;
    env_.log.info(kWorkerThread, "VNet offload engine started (async)");
  });
}

void WorkItems::initialize_vqs(unsigned i, pcie::Activity& w) {
  Controller& c = devs_.controllers[i];
  if (!c.offload_engine_started || c.vqs_created || c.cleanup_running) return;
  // All RX/TX VQs for the maximum, then the CVQ only when MQ was negotiated.
  for (unsigned q = 0; q < 2 * c.max_queue_pairs; ++q)
    w.then(env_.cost(vnet::timing::work_vq_create_ps), [this, i, q] { devs_.controllers[i].engine->vqs().vq_create(q); });
  w.then([this, i, &w] {
    Controller& c = devs_.controllers[i];
    c.vqs_created = true;
    env_.log.info(kWorkerThread, "Created %d queue pairs (VQ0-VQ%d)", int(c.max_queue_pairs), int(2 * c.max_queue_pairs - 1));
    if (!c.mq_negotiated) {
      env_.log.info(kWorkerThread, "CVQ not created - MQ feature not negotiated (single-QP mode)");
      env_.log.info(kWorkerThread, "VQ initialization complete - ready for host configuration");
      return;
    }
    const unsigned cvq = 2 * devs_.devices[i]->max_queue_pairs();
    w.then(env_.cost(vnet::timing::work_vq_create_ps), [this, i, cvq] {
      Controller& c = devs_.controllers[i];
      c.engine->vqs().vq_create(cvq);
      c.cvq_created = true;
      env_.log.info(kWorkerThread, "Created CVQ (VQ%d)", int(cvq));
      env_.log.info(kWorkerThread, "VQ initialization complete - ready for host configuration");
    });
  });
}

void WorkItems::initialize_io_ctx(unsigned i, pcie::Activity& w) {
  Controller& c = devs_.controllers[i];
  // Single-QP mode returns early and leaves initialization_in_progress set, so the
  // diagnostics never run for such a device.
  if (!c.mq_negotiated || c.cleanup_running || !c.vqs_created) return;
  env_.log.info(kWorkerThread, "Initializing IO context for CVQ command handling");
  w.then(env_.cost(vnet::timing::work_io_ctx_create_ps), [this, i] {
    Controller& c = devs_.controllers[i];
    const std::string io = object_id("io_ctx", i), pe = object_id("worker_pe", i), ctrl = object_id("controller", i);
    env_.log.info(kWorkerThread, "IO context created: %s", io.c_str());
    env_.log.info(kWorkerThread, "IO context attached to worker PE=%s, controller=%s", pe.c_str(), ctrl.c_str());
    env_.log.info(kWorkerThread, "ctrl_req handler registered for io_ctx=%s", io.c_str());
    env_.log.info(kWorkerThread, "IO context started, io_ctx=%s", io.c_str());
    c.io_ctx_started = true;
    c.initialization_in_progress = false;
    env_.log.info(kWorkerThread, "IO context initialization complete");
  });
}

void WorkItems::vq_config(unsigned i, unsigned q, pcie::Activity& w) {
  Controller& c = devs_.controllers[i];
  VirtioPciDevice& dev = *devs_.devices[i];
  if (!c.device_present || !c.vqs_created) return;
  const VqShadow sh = dev.shadow(q);  // a snapshot: a reset cannot change it under the worker
  if (!sh.fully_configured()) return;
  const unsigned cvq = 2 * dev.max_queue_pairs();
  if (q > cvq) {
    env_.log.error(kWorkerThread, "Invalid VQ index %d (cvq_index=%d)", int(q), int(cvq));
    return;
  }
  if (q == cvq && c.mq_negotiated) {
    if (!c.cvq_created) {
      env_.log.error(kWorkerThread, "CVQ not created but VQ%d configuration received", int(q));
      return;
    }
  } else {
    const unsigned qp = q / 2;
    if (qp >= c.max_queue_pairs) {
      if (q % 2 == 0) env_.log.error(kWorkerThread, "Invalid RX VQ index %d (QP%d, max_qp=%d)", int(q), int(qp), int(c.max_queue_pairs));
      else env_.log.error(kWorkerThread, "Invalid VQ index %d (cvq_index=%d)", int(q), int(cvq));
      return;
    }
    if (qp >= c.num_active_qps || c.initial_data_qps_deferred) return;
  }
  configure_vq(env_, devs_, i, q, sh, w);
  w.then([this, i] {
    const Controller& c = devs_.controllers[i];
    if ((devs_.devices[i]->status() & VIRTIO_CONFIG_S_DRIVER_OK) && !c.engine_enabled) work_.submit(WorkType::START_AND_ENABLE, i);
  });
}

void WorkItems::start_and_enable(unsigned i, pcie::Activity& w) {
  Controller& c = devs_.controllers[i];
  VirtioPciDevice& dev = *devs_.devices[i];
  if (!(dev.status() & VIRTIO_CONFIG_S_DRIVER_OK) || c.engine_enabled || !c.vqs_created || c.cleanup_running) return;
  env_.log.info(kWorkerThread, "Executing VQs start and engine enable");
  const unsigned cvq = 2 * dev.max_queue_pairs();
  if (c.initial_data_qps_deferred) {
    if (!dev.shadow(cvq).fully_configured()) {
      env_.log.debug(kWorkerThread, "start_and_enable deferred until CVQ configuration is complete");
      return;
    }
  } else if (c.engine->vqs().vq_state(0) != VqState::CONFIGURED || c.engine->vqs().vq_state(1) != VqState::CONFIGURED) {
    env_.log.debug(kWorkerThread, "start_and_enable deferred until first QP configuration is complete");
    return;
  }
  // The active data QPs (none while deferred), then the CVQ: set_conf, start, bind.
  const unsigned data_vqs = c.initial_data_qps_deferred ? 0 : 2 * c.num_active_qps;
  for (unsigned q = 0; q < data_vqs; ++q)
    w.then(env_.cost(vnet::timing::work_vq_start_ps), [this, i, q] { devs_.controllers[i].engine->vqs().vq_start(q); });
  if (c.mq_negotiated && c.cvq_created) {
    const VqShadow sh = dev.shadow(cvq);
    w.then(env_.cost(timing::work_vq_set_conf_ps), [this, i, cvq, sh] { set_vq_conf(devs_, i, cvq, sh); });
    w.then(env_.cost(timing::work_vq_start_ps), [this, i, cvq] {
      devs_.controllers[i].engine->vqs().vq_start(cvq);
      env_.log.debug(kWorkerThread, "VQ%d (CVQ) started", int(cvq));
    });
    w.then([this, i, cvq] {
      devs_.controllers[i].engine->cvq().bind(cvq, [this, i](CtrlReq req) { cvq_.ctrl_req_arrived(i, std::move(req)); });
    });
  }
  w.then([this] {
    env_.log.info(kWorkerThread, "All VQs configured and started (engine not yet enabled)");
    env_.log.info(kWorkerThread, "Enabling VNet offload engine");
  });
  w.then(env_.cost(vnet::timing::work_engine_enable_ps), [this, i] {
    Controller& c = devs_.controllers[i];
    c.engine->set_features(devs_.devices[i]->negotiated_features());
    c.engine->vqs().engine_enable();
    c.engine_enabled = true;
    env_.log.info(kWorkerThread, "VNet offload engine enabled successfully");
  });
  // The VNET counters are created and reset only once the enable has finished.
  w.then(env_.cost(vnet::timing::work_counters_ps), [this, i] {
    Controller& c = devs_.controllers[i];
    c.counters = true;
    env_.log.info(kWorkerThread, "VNet offload engine enabled - device ready for DRIVER_OK");
    if (!c.initial_data_qps_deferred) work_.submit(WorkType::CREATE_STATS_LIST, i);
    mq_.release_deferred(kWorkerThread);
  });
}

void WorkItems::create_stats_list(unsigned i, pcie::Activity& w) {
  if (!devs_.controllers[i].engine_enabled || devs_.controllers[i].cleanup_running) return;
  w.then(env_.cost(vnet::timing::work_stats_list_ps), [this, i] {
    Controller& c = devs_.controllers[i];
    c.stats_list = true;
    unsigned queues = 0;
    for (unsigned q = 0; q < c.engine->vqs().num_vqs(); ++q) queues += c.engine->vqs().vq_state(q) == VqState::ENABLED ? 1 : 0;
    env_.log.info(kWorkerThread, "Created stats list for %u queues (async)", queues);
  });
}

void WorkItems::device_reset(unsigned i, pcie::Activity& w) {
  // Defined and handled by the application, never submitted by it: the VirtIO register reset.
  w.then(env_.cost(vnet::timing::work_register_reset_ps), [this, i] { devs_.devices[i]->reset_registers(); });
}

bool WorkItems::ensure_config_msix(unsigned i, const char* thread) {
  Controller& c = devs_.controllers[i];
  const uint16_t vector = devs_.devices[i]->config_msix_vector();
  if (vector == VIRTIO_MSI_NO_VECTOR) {
    env_.log.debug(thread, "Config MSI-X not available (vector=0x%04x)", vector);
    return false;
  }
  if (c.config_msix && *c.config_msix != vector) {
    env_.log.info(thread, "Config MSI-X vector changed (%u -> %u), destroying old MSI-X", unsigned(*c.config_msix), vector);
    c.config_msix.reset();
  }
  if (!c.config_msix) {
    c.config_msix = vector;
    env_.log.info(thread, "Config MSI-X created (vector=%u) - ready for config change notifications", vector);
  }
  return true;
}

void WorkItems::speed_change(unsigned i, uint32_t mbps, pcie::Activity& w) {
  VirtioPciDevice& dev = *devs_.devices[i];
  if (!ensure_config_msix(i, kWorkerThread)) {
    env_.log.error(kWorkerThread, "Speed change: config MSI-X not available: %s", "DOCA_ERROR_BAD_STATE");
    env_.log.error(kWorkerThread, "Speed change failed: %s", "DOCA_ERROR_BAD_STATE");
    work_.item_result = "DOCA_ERROR_BAD_STATE";
    return;
  }
  const uint32_t old = get_le32(dev.net_config() + VIRTIO_NET_CFG_SPEED);
  if (old == mbps) {
    env_.log.info(kWorkerThread, "Speed change: already at %u Mbps, skipping", mbps);
    return;
  }
  env_.log.info(kWorkerThread, "Speed change: %u -> %u Mbps (link bounce + MSI-X)", old, mbps);
  // Linux re-reads the speed only on a LINK_UP transition: the link bounces.
  auto bounce = [this, i](bool up) {
    VirtioPciDevice& d = *devs_.devices[i];
    d.set_common(VIRTIO_PCI_COMMON_CFGGENERATION, 1, uint8_t(d.config_generation() + 1));
    put_le16(d.net_config() + VIRTIO_NET_CFG_STATUS, up ? VIRTIO_NET_S_LINK_UP : 0);
    const char* outcome = devs_.controllers[i].engine->raise_msix(*devs_.controllers[i].config_msix);
    env_.event("config_interrupt").u64("ep", i).boolean("link_up", up).str("msix", outcome);
  };
  bounce(false);
  w.then(env_.cost(vnet::timing::speed_bounce_ps), [this, i, old, mbps, bounce] {
    put_le32(devs_.devices[i]->net_config() + VIRTIO_NET_CFG_SPEED, mbps);
    bounce(true);
    env_.log.info(kWorkerThread, "Speed change: done (%u -> %u Mbps)", old, mbps);
  });
}

void WorkItems::check_reset_hold_liveness(const WorkItem& item, bool skipped) {
  // Liveness of the reset hold: a device held at NEEDS_RESET must have a cleanup of its
  // current generation queued or running, or nothing will ever release the hold. The
  // application's latent double-reset hazard (docs/vnet.md) breaks this: a second status-0 write while
  // the cleanup is still queued makes that cleanup stale, and the callback queues no other.
  if (!skipped || item.type != WorkType::CONTROLLER_CLEANUP || item.device < 0) return;
  const unsigned i = unsigned(item.device);
  const VirtioPciDevice& dev = *devs_.devices[i];
  if (dev.reset_status_state != ResetStatusState::HELD) return;
  if (work_.wq.has_queued(WorkType::CONTROLLER_CLEANUP, int(i), dev.reset_generation) || devs_.controllers[i].cleanup_running)
    return;
  env_.ctx.checker.violation(env_.ctx.now_ps(), env_.path, "reset_hold_never_released",
                         "ep" + std::to_string(i) + " (" + devs_.bdf_of(i) +
                             "): device_status held at 0x40 (reset_status_state HELD) but its only cleanup (gen " +
                             std::to_string(item.generation) + ") was skipped as stale after a second reset (gen " +
                             std::to_string(dev.reset_generation) +
                             ") re-asserted the hold without queuing another: the host reads 0x40 forever "
                             "(the application's double-reset hazard, docs/vnet.md)");
}

}  // namespace dpusim::vnet
