// The application's per-endpoint controller (struct vnet_pci_dev_controller,
// vnet_pci_dev_core.h): what it has brought up on the offload engine, and its lifecycle guards.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <utility>

#include "vnet/virtio/vnet_endpoint.h"

namespace dpusim::vnet {

struct Controller {
  unsigned index = 0;
  VnetEndpoint* engine = nullptr;  // the offload engine (firmware)
  bool device_present = false;

  // Resources.
  bool offload_engine_started = false, engine_enabled = false, vqs_created = false, cvq_created = false;
  bool io_ctx_started = false, counters = false, stats_list = false;
  std::optional<uint16_t> config_msix;  // the config-change MSI-X object's vector, once created

  // Guards.
  bool cleanup_running = false, initialization_in_progress = false, deferred_init_pending = false;
  bool first_ctrl_req_delay_done = false, initial_data_qps_deferred = false;
  bool pending_unplug = false, pending_destroy = false;
  // The host reset the device (its registers were reset) and has not set DRIVER_OK since:
  // no VQ may be enabled ("vq_enabled_after_reset", app_invariants.cpp).
  bool reset_since_driver_ok = false;

  // Queue pairs: the maximum is -q when MQ was negotiated, 1 otherwise.
  bool mq_negotiated = false;
  unsigned max_queue_pairs = 1, num_active_qps = 1;
  std::optional<std::pair<unsigned, unsigned>> deferred_mq;  // (old, new) start held back
  unsigned mq_threads = 0;  // MQ-start threads alive for this controller

  // Control requests waiting on this controller's PE2 for the worker to progress it.
  std::deque<CtrlReq> pe2;

  bool has_resources() const { return offload_engine_started || vqs_created || engine_enabled || stats_list; }
};

}  // namespace dpusim::vnet
