// CONTROLLER_CLEANUP (vnet-app.md §6.3), also the full teardown at shutdown (destroy_engine),
// and the deferred initialisation it runs when FEATURES_OK arrived while it was running.
#include "vnet/vnet_app.h"
#include "vnet/vnet_timing.h"

namespace dpusim::vnet {


void VnetApp::controller_cleanup(unsigned i, bool destroy_engine, pcie::Activity& a, const char* thread) {
  Controller& c = controllers_[i];
  if (c.cleanup_running) {
    log_.debug(thread, "Cleanup already in progress, skipping");
    return;
  }
  c.cleanup_running = true;
  c.deferred_mq.reset();
  // A running MQ start sees the cancel flag before its next queue pair: the reset waits at
  // most one VQ-start step for it.
  a.wait_until([this, i] { return controllers_[i].mq_threads == 0; }, cost(vnet::timing::cleanup_poll_ps));
  a.then([this, i, thread, &a, destroy_engine] {
    Controller& c = controllers_[i];
    // Steps 0, 0a, 0b: stats collection stopped, counters and stats list destroyed.
    if (c.counters) a.then(cost(vnet::timing::work_counters_ps), [&c] { c.counters = false; });
    if (c.stats_list) a.then(cost(vnet::timing::work_stats_list_ps), [&c] { c.stats_list = false; });
    if (destroy_engine && c.config_msix) a.then([&c] { c.config_msix.reset(); });  // 0c
    const unsigned n = c.engine->num_vqs();
    a.then([this, i, thread, n, &a] {
      Controller& c = controllers_[i];
      log_.info(thread, "Cleanup Step 1: Disabling VQs (while engine enabled)...");
      if (c.engine_enabled)
        a.then(cost(vnet::timing::work_vq_group_disable_ps), [&c, n] { c.engine->vq_group_disable(0, n - 1); });
      a.then([this, thread, &c, &a] {
        log_.info(thread, "Cleanup Step 2: Disabling engine...");
        if (c.engine_enabled)
          a.then(cost(vnet::timing::work_engine_disable_ps), [&c] {
            c.engine->engine_disable();
            c.engine_enabled = false;
          });
      });
      a.then([this, thread, &c, n, &a] {
        log_.info(thread, "Cleanup Step 3: Stopping VQs...");
        c.engine->cvq_unbind();  // the CVQ is flushed and unbound from the IO context first
        for (unsigned q = 0; q < n; ++q) {
          const VqState s = c.engine->vq_state(q);
          if (s == VqState::STARTED || s == VqState::ENABLED || s == VqState::DISABLED)
            a.then(cost(vnet::timing::work_vq_stop_ps), [&c, q] { c.engine->vq_stop(q); });
        }
      });
      a.then([this, thread, &c, &a] {
        if (!c.io_ctx_started) return;
        log_.info(thread, "Cleaning up IO context using worker PE");
        const int pending = int(c.pe2.size());
        c.pe2.clear();
        if (pending > 0) log_.info(thread, "IO context drained to IDLE after %d PE progress calls", pending);
        else log_.info(thread, "IO context stopped successfully (was already idle)");
        a.then(cost(vnet::timing::work_io_ctx_destroy_ps), [this, thread, &c] {
          c.io_ctx_started = false;
          log_.info(thread, "IO context destroyed");
        });
      });
      a.then([this, thread, &c, n, &a] {
        log_.info(thread, "Cleanup Step 4: Destroying VQs...");
        for (unsigned q = 0; q < n; ++q) {
          const VqState s = c.engine->vq_state(q);
          if (s != VqState::UNCREATED && s != VqState::DESTROYED)
            a.then(cost(vnet::timing::work_vq_destroy_ps), [&c, q] { c.engine->vq_destroy(q); });
        }
        a.then([&c] { c.vqs_created = c.cvq_created = false; });
      });
      a.then([this, thread, &c, &a] {
        log_.info(thread, "Cleanup Step 5: Stopping engine...");
        if (c.offload_engine_started)
          a.then(cost(vnet::timing::work_engine_stop_ps), [&c] {
            c.engine->engine_stop();
            c.offload_engine_started = false;
          });
      });
    });
    if (destroy_engine)
      a.then([this, thread, &a] {
        log_.info(thread, "Cleanup Step 6: Destroying offload engine...");
        a.then(cost(vnet::timing::work_engine_destroy_ps), [] {});
      });
    a.then([this, i, thread] {
      Controller& c = controllers_[i];
      VirtioPciDevice& dev = *devices_[i];
      log_.info(thread, "Controller cleanup completed successfully");
      c.cleanup_running = c.initialization_in_progress = false;
      c.first_ctrl_req_delay_done = c.initial_data_qps_deferred = false;
      if (dev.reset_status_state == ResetStatusState::HELD) {
        dev.reset_status_state = ResetStatusState::RELEASE_PENDING;
        log_.info(thread, "RESET: controller cleanup complete, reset hold release queued");
      }
      if (c.deferred_init_pending) deferred_init(i, thread);
    });
  });
}

void VnetApp::deferred_init(unsigned i, const char* thread) {
  Controller& c = controllers_[i];
  c.deferred_init_pending = false;
  log_.info(thread, "Deferred init: FEATURES_OK was skipped, starting initialization now");
  c.initialization_in_progress = true;
  negotiate_mq(i, true);
  if (!c.offload_engine_started) {
    log_.info(thread, "Deferred init: Submitting engine_start");
    submit(WorkType::ENGINE_START, i);
  }
  log_.info(thread, "Deferred init: Submitting initialize_vqs");
  submit(WorkType::INITIALIZE_VQS, i);
  log_.info(thread, "Deferred init: Submitting initialize_io_context");
  submit(WorkType::INITIALIZE_IO_CTX, i);
  log_.info(thread, "Deferred init: Submitting start_and_enable (DRIVER_OK likely set)");
  submit(WorkType::START_AND_ENABLE, i);
}

}  // namespace dpusim::vnet
