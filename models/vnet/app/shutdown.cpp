// The application's shutdown at the end of a run (vnet_pci_dev_core.c's teardown; the DOCA
// guide's "Graceful shutdown"): pending unplugs waited for — the main loop keeps iterating
// (the unplug timeout before the shutdown check in each iteration) until none is pending or
// UNPLUG_TIMEOUT_SEC whole seconds of its clock have passed, then leaves the loop for good —,
// the workqueue shut down (queued items discarded, the running one finished), the MQ threads
// joined, every controller torn down with its engine destroyed, the ACG credits flushed.
#include <memory>

#include "vnet/app/app_process.h"
#include "vnet/app/cleanup.h"
#include "vnet/switch/dsp_msi.h"
#include "vnet/app/mq_start.h"
#include "vnet/switch/slots.h"

namespace dpusim::vnet {

void AppProcess::shutdown(const std::function<void(const std::function<bool()>&)>& run_until) {
  app_->shutting_down = true;
  invariants_->stop();  // the shutdown may outlast a bound by design
  auto unplug_pending = [this] { return slots_->any_pending_unplug(); };
  if (unplug_pending()) {
    app_->log.info(kMainThread, "Shutdown requested - waiting for pending hot-unplug slots to complete");
    const uint64_t start = app_->ctx.now_ps();
    const uint64_t deadline = app_->loop_iteration_after_seconds(start, kUnplugTimeoutSec);
    // The iteration that finds the time up; an unplug timeout due at the same iteration runs
    // first (it was scheduled first), as the source checks it before the shutdown.
    auto expired = std::make_shared<bool>(false);
    app_->later.at(sc_core::sc_time::from_value(deadline - start), [expired] { *expired = true; });
    run_until([&] { return !unplug_pending() || *expired; });
    if (unplug_pending())
      app_->log.warn(kMainThread, "Shutdown wait timed out after %lds - proceeding with cleanup",
                    long(AppState::app_seconds(app_->ctx.now_ps()) - AppState::app_seconds(start)));
  }
  app_->loop_running = false;  // the application leaves its main loop: no more periodic checks
  app_->wq.shutdown();
  run_until([this] { return app_->wq.idle(); });
  app_->log.info(kWorkerThread, "PCI config workqueue worker thread exiting (processed %lu, dropped %lu)",
            static_cast<unsigned long>(app_->wq.processed()), static_cast<unsigned long>(app_->wq.dropped()));
  const unsigned threads = mq_->spawned_threads();
  run_until([this] { return mq_->all_joined(); });
  app_->log.info(kMainThread, "Joined %u MQ start thread(s)", threads);
  app_->log.info(kMainThread, "PCI config workqueue shutdown complete (processed: %lu, dropped: %lu)",
            static_cast<unsigned long>(app_->wq.processed()), static_cast<unsigned long>(app_->wq.dropped()));
  // cleanup_virtio_network_device: each controller's full teardown, on the main thread.
  for (unsigned i = 0; i < app_->num_ep(); ++i) {
    Controller& c = app_->controllers[i];
    if (!c.device_present || !c.has_resources()) continue;
    cleanup_->controller_cleanup(i, true, app_->main_thread, kMainThread);
    run_until([this] { return app_->main_thread.idle(); });
  }
  app_->log.info(kMainThread, "PCI config workqueue destroyed");
  msi_->flush();
}

}  // namespace dpusim::vnet
