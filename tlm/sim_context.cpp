#include "tlm/sim_context.h"

namespace dpusim::pcie {

SimContext::SimContext(uint64_t seed) : explore(seed), checker(log), seed_(seed) {
  log.set_watch_callback([this](uint64_t id, const std::string& line) {
    Notification n(notification::kEvent);
    n.token = id;
    n.text = line;
    post(std::move(n));
  });
  checker.set_failure_callback([this](const std::string&, const std::string& message) {
    Notification n(notification::kViolation);
    n.text = message;
    post(std::move(n));
  });
}

void SimContext::post(Notification n) {
  n.time_ps = now_ps();
  notes_.push_back(std::move(n));
  if (sc_core::sc_is_running()) sc_core::sc_pause();
}

std::vector<Notification> SimContext::take_notifications() {
  std::vector<Notification> out;
  out.swap(notes_);
  return out;
}

}  // namespace dpusim::pcie
