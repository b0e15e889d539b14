#include "tlm/liveness.h"

namespace dpusim::pcie {

void LivenessWatch::hold(const std::string& key, uint64_t bound_ps, const std::string& what) {
  release(key);
  const uint64_t now = sc_core::sc_time_stamp().value();
  const TimedQueue::Key timer = timers_.at(sc_core::sc_time::from_value(bound_ps), [this, key, bound_ps, what] {
    auto it = held_.find(key);
    if (it == held_.end()) return;
    const uint64_t since = it->second.since_ps;
    held_.erase(it);
    if (stopped_) return;
    checker_.violation(sc_core::sc_time_stamp().value(), key, "liveness_stall",
                       what + ": held since " + std::to_string(since) + " ps, longer than its bound of " +
                           std::to_string(bound_ps) + " ps");
  });
  held_[key] = Hold{now, timer};
}

void LivenessWatch::release(const std::string& key) {
  auto it = held_.find(key);
  if (it == held_.end()) return;
  timers_.cancel(it->second.timer);
  held_.erase(it);
}

void LivenessWatch::stop() {
  stopped_ = true;
  for (const auto& [key, h] : held_) timers_.cancel(h.timer);
  held_.clear();
}

}  // namespace dpusim::pcie
