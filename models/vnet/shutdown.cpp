// The application's stdin commands (vnet-app.md §8.6) and its shutdown at the end of a run
// (§6.4, §8.5, the guide's §7.8): pending unplugs waited for, the workqueue shut down (queued
// items discarded, the running one finished), the MQ threads joined, every controller torn
// down with its engine destroyed, the ACG credits flushed.
#include <cstdio>

#include "vnet_app.h"

namespace dpusim::vnet {

namespace {
constexpr uint64_t UNPLUG_TIMEOUT_SEC = 30;
}

void VnetApp::command(const std::string& text) {
  const std::string line = text.substr(0, 128);
  const size_t start = line.find_first_not_of(" \t");
  if (start == std::string::npos) return;  // an empty line is ignored
  char word[32] = {0};
  unsigned idx = 0;
  int speed = 0;
  const char* s = line.c_str() + start;
  if (std::sscanf(s, "%31s %u %d", word, &idx, &speed) == 3 && std::string(word) == "speed") {
    if (idx >= num_ep()) return log_.error(kMainThread, "EP index %u out of range (max: %u)", idx, num_ep() - 1);
    if (speed <= 0) return log_.error(kMainThread, "Speed value must be greater than 0 Mbps");
    log_.info(kMainThread, "Speed change EP[%u] to %u Mbps (queuing to worker)", idx, unsigned(speed));
    if (!controllers_[idx].device_present) {
      log_.debug(kMainThread, "%s work dropped - no active VirtIO device", work_type_name(WorkType::SPEED_CHANGE));
      return;
    }
    if (!submit(WorkType::SPEED_CHANGE, idx, uint32_t(speed)))
      return log_.error(kMainThread, "Failed to alloc work item for speed change");
    log_.info(kMainThread, "Speed change to %u Mbps queued (async)", unsigned(speed));
    return;
  }
  if (std::sscanf(s, "%31s %u", word, &idx) == 2 && (std::string(word) == "plug" || std::string(word) == "unplug")) {
    if (idx >= num_ep()) return log_.error(kMainThread, "EP index %u out of range (max: %u)", idx, num_ep() - 1);
    if (opt_.static_mode()) return log_.error(kMainThread, "Hotplug commands require --hotplug mode");
    const bool plug = std::string(word) == "plug";
    log_.info(kMainThread, "%s on DSP[%u] (queuing to worker thread)", plug ? "PLUG" : "UNPLUG", idx);
    WorkItem it;
    it.type = WorkType::HOTPLUG_EVENT;
    it.arg = idx;
    it.arg2 = plug ? 1 : 0;
    if (!wq_.submit(it)) return log_.error(kMainThread, "Failed to alloc work item for hotplug event DSP[%u]", idx);
    log_.info(kMainThread, "Hotplug event queued: DSP[%u] %s (async - main thread stays on PE progress)", idx, word);
    return;
  }
  log_.error(kMainThread, "Unknown command. Usage: plug <idx> | unplug <idx> | speed <idx> <mbps>");
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
  log_.debug(kMainThread, "Flushed %u ACG credits", acg_credits_);
  acg_credits_ = 0;
}

}  // namespace dpusim::vnet
