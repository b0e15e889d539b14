// The application's shutdown at the end of a run (vnet_pci_dev_core.c teardown; the DOCA guide's "Graceful shutdown"): pending
// unplugs waited for (the unplug timeout still fires meanwhile), the workqueue shut down
// (queued items discarded, the running one finished), the MQ threads joined, every controller
// torn down with its engine destroyed, the ACG credits flushed.
#include "vnet/app_process.h"
#include "vnet/cleanup.h"
#include "vnet/dsp_msi.h"
#include "vnet/mq_start.h"
#include "vnet/slots.h"

namespace dpusim::vnet {

namespace {
constexpr uint64_t UNPLUG_TIMEOUT_SEC = 30;
}

void AppProcess::shutdown(const std::function<void(const std::function<bool()>&)>& run_until) {
  app_->shutting_down = true;
  invariants_->stop();  // the shutdown may outlast a bound by design
  auto unplug_pending = [this] { return slots_->any_pending_unplug(); };
  if (unplug_pending()) {
    app_->log.info(kMainThread, "Shutdown requested - waiting for pending hot-unplug slots to complete");
    const uint64_t deadline = app_->ctx.now_ps() + UNPLUG_TIMEOUT_SEC * 1000000000000ull;
    app_->later.at(sc_core::sc_time::from_value(deadline - app_->ctx.now_ps()), [] {});  // the loop keeps running
    run_until([&] { return !unplug_pending() || app_->ctx.now_ps() >= deadline; });
    if (unplug_pending())
      app_->log.warn(kMainThread, "Shutdown wait timed out after %lds - proceeding with cleanup", long(UNPLUG_TIMEOUT_SEC));
  }
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
