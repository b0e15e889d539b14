#include "vnet/app/cleanup.h"

#include "vnet/app/status_machine.h"
#include "vnet/app/vnet_timing.h"

namespace dpusim::vnet {

void Cleanup::controller_cleanup(unsigned i, bool destroy_engine, pcie::Activity& a, const char* thread) {
  Controller& c = devs_.controllers[i];
  if (c.cleanup_running) {
    env_.log.debug(thread, "Cleanup already in progress, skipping");
    return;
  }
  c.cleanup_running = true;
  c.deferred_mq.reset();
  VnetEndpoint& engine = *c.engine;
  const unsigned n = engine.vqs().num_vqs();
  auto line = [this, thread](const char* text) { return [this, thread, text] { env_.log.info(thread, "%s", text); }; };
  auto cost = [this](const pcie::TimingParam& p) { return env_.cost(p); };
  // A guard: VQ q is in one of `states` (a set of VqState bits) when the step is reached.
  auto in_state = [&engine](unsigned q, unsigned states) {
    return [&engine, q, states] { return (states >> unsigned(engine.vqs().vq_state(q))) & 1u; };
  };
  auto bit = [](VqState s) { return 1u << unsigned(s); };

  // A running MQ start sees the cancel flag before its next queue pair: the reset waits at
  // most one VQ-start step for it.
  a.wait_until([&c] { return c.mq_threads == 0; }, cost(timing::cleanup_poll_ps));
  // Stats collection stopped, and its stats and counters drained (the application waits up to
  // 10 s: vnet.cleanup.stats_drain_ps, at most that); the counters destroyed; the stats list
  // destroyed, its mutex taken by a trylock of up to 2 s (vnet.cleanup.stats_mutex_ps); the
  // config MSI-X, on full teardown only. The drain is what can hold the device status at 0x40
  // for seconds after a reset (docs/vnet.md).
  a.then_if([&c] { return c.counters || c.stats_list; }, cost(timing::cleanup_stats_drain_ps), [] {});
  a.then(line("Cleanup Step 0a: Destroying VNET virtqueue counters..."));
  a.then_if([&c] { return c.counters; }, cost(timing::work_counters_ps), [&c] { c.counters = false; });
  a.then(line("Cleanup Step 0b: Destroying stats list..."));
  a.then_if([&c] { return c.stats_list; }, cost(timing::cleanup_stats_mutex_ps), [] {});
  a.then_if([&c] { return c.stats_list; }, cost(timing::work_stats_list_ps), [&c] { c.stats_list = false; });
  a.then_if([&c, destroy_engine] { return destroy_engine && c.config_msix; }, sc_core::SC_ZERO_TIME,
            [&c] { c.config_msix.reset(); });
  a.then(line("Cleanup Step 1: Disabling VQs (while engine enabled)..."));
  a.then_if([&c] { return c.engine_enabled; }, cost(timing::work_vq_group_disable_ps),
            [&engine, n] { engine.vqs().vq_group_disable(0, n - 1); });
  a.then(line("Cleanup Step 2: Disabling engine..."));
  a.then_if([&c] { return c.engine_enabled; }, cost(timing::work_engine_disable_ps), [&c] {
    c.engine->vqs().engine_disable();
    c.engine_enabled = false;
  });
  a.then([this, thread, &engine] {
    env_.log.info(thread, "Cleanup Step 3: Stopping VQs...");
    engine.cvq().unbind();  // the CVQ is flushed and unbound from the IO context first
  });
  for (unsigned q = 0; q < n; ++q)
    a.then_if(in_state(q, bit(VqState::STARTED) | bit(VqState::ENABLED) | bit(VqState::DISABLED)), cost(timing::work_vq_stop_ps),
              [&engine, q] { engine.vqs().vq_stop(q); });
  a.then([this, thread, &c] {
    if (!c.io_ctx_started) return;
    env_.log.info(thread, "Cleaning up IO context using worker PE");
    const int pending = int(c.pe2.size());
    c.pe2.clear();
    if (pending > 0) env_.log.info(thread, "IO context drained to IDLE after %d PE progress calls", pending);
    else env_.log.info(thread, "IO context stopped successfully (was already idle)");
  });
  a.then_if([&c] { return c.io_ctx_started; }, cost(timing::work_io_ctx_destroy_ps), [this, thread, &c] {
    c.io_ctx_started = false;
    env_.log.info(thread, "IO context destroyed");
  });
  a.then(line("Cleanup Step 4: Destroying VQs..."));
  for (unsigned q = 0; q < n; ++q)
    a.then_if([in = in_state(q, bit(VqState::UNCREATED) | bit(VqState::DESTROYED))] { return !in(); },
              cost(timing::work_vq_destroy_ps), [&engine, q] { engine.vqs().vq_destroy(q); });
  a.then([&c] { c.vqs_created = c.cvq_created = false; });
  a.then(line("Cleanup Step 5: Stopping engine..."));
  a.then_if([&c] { return c.offload_engine_started; }, cost(timing::work_engine_stop_ps), [&c] {
    c.engine->vqs().engine_stop();
    c.offload_engine_started = false;
  });
  if (destroy_engine) {
    a.then(line("Cleanup Step 6: Destroying offload engine..."));
    a.then(cost(timing::work_engine_destroy_ps), [] {});
  }
  a.then([this, i, thread] { finished(i, thread); });
}

void Cleanup::finished(unsigned i, const char* thread) {
  Controller& c = devs_.controllers[i];
  VirtioPciDevice& dev = *devs_.devices[i];
  env_.log.info(thread, "Controller cleanup completed successfully");
  c.cleanup_running = c.initialization_in_progress = false;
  c.first_ctrl_req_delay_done = c.initial_data_qps_deferred = false;
  if (dev.reset_status_state == ResetStatusState::HELD) {
    dev.reset_status_state = ResetStatusState::RELEASE_PENDING;
    env_.log.info(thread, "RESET: controller cleanup complete, reset hold release queued");
  }
  if (c.deferred_init_pending) deferred_init(i, thread);
}

void Cleanup::deferred_init(unsigned i, const char* thread) {
  Controller& c = devs_.controllers[i];
  c.deferred_init_pending = false;
  env_.log.info(thread, "Deferred init: FEATURES_OK was skipped, starting initialization now");
  c.initialization_in_progress = true;
  status_.negotiate_mq(i, true);
  if (!c.offload_engine_started) {
    env_.log.info(thread, "Deferred init: Submitting engine_start");
    work_.submit(WorkType::ENGINE_START, i);
  }
  env_.log.info(thread, "Deferred init: Submitting initialize_vqs");
  work_.submit(WorkType::INITIALIZE_VQS, i);
  env_.log.info(thread, "Deferred init: Submitting initialize_io_context");
  work_.submit(WorkType::INITIALIZE_IO_CTX, i);
  env_.log.info(thread, "Deferred init: Submitting start_and_enable (DRIVER_OK likely set)");
  work_.submit(WorkType::START_AND_ENABLE, i);
}

}  // namespace dpusim::vnet
