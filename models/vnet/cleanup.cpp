#include "vnet/cleanup.h"

#include "vnet/status_machine.h"
#include "vnet/vnet_timing.h"

namespace dpusim::vnet {

void Cleanup::controller_cleanup(unsigned i, bool destroy_engine, pcie::Activity& a, const char* thread) {
  Controller& c = app_.controllers[i];
  if (c.cleanup_running) {
    app_.log.debug(thread, "Cleanup already in progress, skipping");
    return;
  }
  c.cleanup_running = true;
  c.deferred_mq.reset();
  // A running MQ start sees the cancel flag before its next queue pair: the reset waits at
  // most one VQ-start step for it.
  a.wait_until([this, i] { return app_.controllers[i].mq_threads == 0; }, app_.cost(vnet::timing::cleanup_poll_ps));
  a.then([this, i, thread, &a, destroy_engine] {
    Controller& c = app_.controllers[i];
    // Steps 0, 0a, 0b: stats collection stopped, counters and stats list destroyed.
    if (c.counters) a.then(app_.cost(vnet::timing::work_counters_ps), [&c] { c.counters = false; });
    if (c.stats_list) a.then(app_.cost(vnet::timing::work_stats_list_ps), [&c] { c.stats_list = false; });
    if (destroy_engine && c.config_msix) a.then([&c] { c.config_msix.reset(); });  // 0c
    const unsigned n = c.engine->num_vqs();
    a.then([this, i, thread, n, &a] {
      Controller& c = app_.controllers[i];
      app_.log.info(thread, "Cleanup Step 1: Disabling VQs (while engine enabled)...");
      if (c.engine_enabled)
        a.then(app_.cost(vnet::timing::work_vq_group_disable_ps), [&c, n] { c.engine->vq_group_disable(0, n - 1); });
      a.then([this, thread, &c, &a] {
        app_.log.info(thread, "Cleanup Step 2: Disabling engine...");
        if (c.engine_enabled)
          a.then(app_.cost(vnet::timing::work_engine_disable_ps), [&c] {
            c.engine->engine_disable();
            c.engine_enabled = false;
          });
      });
      a.then([this, thread, &c, n, &a] {
        app_.log.info(thread, "Cleanup Step 3: Stopping VQs...");
        c.engine->cvq_unbind();  // the CVQ is flushed and unbound from the IO context first
        for (unsigned q = 0; q < n; ++q) {
          const VqState s = c.engine->vq_state(q);
          if (s == VqState::STARTED || s == VqState::ENABLED || s == VqState::DISABLED)
            a.then(app_.cost(vnet::timing::work_vq_stop_ps), [&c, q] { c.engine->vq_stop(q); });
        }
      });
      a.then([this, thread, &c, &a] {
        if (!c.io_ctx_started) return;
        app_.log.info(thread, "Cleaning up IO context using worker PE");
        const int pending = int(c.pe2.size());
        c.pe2.clear();
        if (pending > 0) app_.log.info(thread, "IO context drained to IDLE after %d PE progress calls", pending);
        else app_.log.info(thread, "IO context stopped successfully (was already idle)");
        a.then(app_.cost(vnet::timing::work_io_ctx_destroy_ps), [this, thread, &c] {
          c.io_ctx_started = false;
          app_.log.info(thread, "IO context destroyed");
        });
      });
      a.then([this, thread, &c, n, &a] {
        app_.log.info(thread, "Cleanup Step 4: Destroying VQs...");
        for (unsigned q = 0; q < n; ++q) {
          const VqState s = c.engine->vq_state(q);
          if (s != VqState::UNCREATED && s != VqState::DESTROYED)
            a.then(app_.cost(vnet::timing::work_vq_destroy_ps), [&c, q] { c.engine->vq_destroy(q); });
        }
        a.then([&c] { c.vqs_created = c.cvq_created = false; });
      });
      a.then([this, thread, &c, &a] {
        app_.log.info(thread, "Cleanup Step 5: Stopping engine...");
        if (c.offload_engine_started)
          a.then(app_.cost(vnet::timing::work_engine_stop_ps), [&c] {
            c.engine->engine_stop();
            c.offload_engine_started = false;
          });
      });
    });
    if (destroy_engine)
      a.then([this, thread, &a] {
        app_.log.info(thread, "Cleanup Step 6: Destroying offload engine...");
        a.then(app_.cost(vnet::timing::work_engine_destroy_ps), [] {});
      });
    a.then([this, i, thread] {
      Controller& c = app_.controllers[i];
      VirtioPciDevice& dev = *app_.devices[i];
      app_.log.info(thread, "Controller cleanup completed successfully");
      c.cleanup_running = c.initialization_in_progress = false;
      c.first_ctrl_req_delay_done = c.initial_data_qps_deferred = false;
      if (dev.reset_status_state == ResetStatusState::HELD) {
        dev.reset_status_state = ResetStatusState::RELEASE_PENDING;
        app_.log.info(thread, "RESET: controller cleanup complete, reset hold release queued");
      }
      if (c.deferred_init_pending) deferred_init(i, thread);
    });
  });
}

void Cleanup::deferred_init(unsigned i, const char* thread) {
  Controller& c = app_.controllers[i];
  c.deferred_init_pending = false;
  app_.log.info(thread, "Deferred init: FEATURES_OK was skipped, starting initialization now");
  c.initialization_in_progress = true;
  status_.negotiate_mq(i, true);
  if (!c.offload_engine_started) {
    app_.log.info(thread, "Deferred init: Submitting engine_start");
    app_.submit(WorkType::ENGINE_START, i);
  }
  app_.log.info(thread, "Deferred init: Submitting initialize_vqs");
  app_.submit(WorkType::INITIALIZE_VQS, i);
  app_.log.info(thread, "Deferred init: Submitting initialize_io_context");
  app_.submit(WorkType::INITIALIZE_IO_CTX, i);
  app_.log.info(thread, "Deferred init: Submitting start_and_enable (DRIVER_OK likely set)");
  app_.submit(WorkType::START_AND_ENABLE, i);
}

}  // namespace dpusim::vnet
