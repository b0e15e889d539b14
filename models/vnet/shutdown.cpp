// The application's shutdown at the end of a run (§6.4, §8.5, the guide's §7.8): pending
// unplugs waited for (the unplug timeout still fires meanwhile), the workqueue shut down
// (queued items discarded, the running one finished), the MQ threads joined, every controller
// torn down with its engine destroyed, the ACG credits flushed.
#include "vnet/vnet_app.h"

namespace dpusim::vnet {

namespace {
constexpr uint64_t UNPLUG_TIMEOUT_SEC = 30;
}

void VnetApp::shutdown(const std::function<void(const std::function<bool()>&)>& run_until) {
  shutting_down_ = true;
  auto unplug_pending = [this] {
    for (const Controller& c : controllers_)
      if (c.pending_unplug) return true;
    return false;
  };
  if (unplug_pending()) {
    log_.info(kMainThread, "Shutdown requested - waiting for pending hot-unplug slots to complete");
    const uint64_t deadline = ctx_.now_ps() + UNPLUG_TIMEOUT_SEC * 1000000000000ull;
    later_.at(sc_core::sc_time::from_value(deadline - ctx_.now_ps()), [] {});  // the loop keeps running
    run_until([&] { return !unplug_pending() || ctx_.now_ps() >= deadline; });
    if (unplug_pending())
      log_.warn(kMainThread, "Shutdown wait timed out after %lds - proceeding with cleanup", long(UNPLUG_TIMEOUT_SEC));
  }
  wq_.shutdown();
  run_until([this] { return wq_.idle(); });
  log_.info(kWorkerThread, "PCI config workqueue worker thread exiting (processed %lu, dropped %lu)",
            static_cast<unsigned long>(wq_.processed()), static_cast<unsigned long>(wq_.dropped()));
  const unsigned threads = unsigned(mq_threads_.size());
  run_until([this] {
    for (const auto& t : mq_threads_)
      if (!t->done || !t->activity.idle()) return false;
    return true;
  });
  log_.info(kMainThread, "Joined %u MQ start thread(s)", threads);
  log_.info(kMainThread, "PCI config workqueue shutdown complete (processed: %lu, dropped: %lu)",
            static_cast<unsigned long>(wq_.processed()), static_cast<unsigned long>(wq_.dropped()));
  // cleanup_virtio_network_device: each controller's full teardown, on the main thread.
  for (unsigned i = 0; i < num_ep(); ++i) {
    Controller& c = controllers_[i];
    if (!c.device_present || !c.has_resources()) continue;
    controller_cleanup(i, true, pe1_, kMainThread);
    run_until([this] { return pe1_.idle(); });
  }
  log_.info(kMainThread, "PCI config workqueue destroyed");
  if (acg_.allocated()) log_.debug(kMainThread, "Flushed %u ACG credits", acg_.flush());
  trace_acg_credits_ = 0;
}

}  // namespace dpusim::vnet
