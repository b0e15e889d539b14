#include "tlm/activity.h"

namespace dpusim::pcie {

using namespace sc_core;

void Activity::then(const sc_time& delay, Fn fn) {
  if (running_) {
    inserted_.push_back(Step{delay, std::move(fn)});
    return;
  }
  steps_.push_back(Step{delay, std::move(fn)});
  kick();
}

void Activity::then_if(std::function<bool()> guard, const sc_time& delay, Fn fn) {
  Step s{delay, std::move(fn), std::move(guard)};
  if (running_) {
    inserted_.push_back(std::move(s));
    return;
  }
  steps_.push_back(std::move(s));
  kick();
}

void Activity::resume() {
  suspended_ = false;
  kick();
}

void Activity::wait_until(std::function<bool()> ready, const sc_time& poll) {
  then([this, ready, poll] {
    if (ready()) return;
    then(poll, [this, ready, poll] { wait_until(ready, poll); });
  });
}

void Activity::kick() {
  if (running_ || scheduled_ || suspended_) return;
  // Guarded steps whose guard fails now are skipped here, taking no time.
  while (!steps_.empty() && steps_.front().guard && !steps_.front().guard()) steps_.pop_front();
  if (steps_.empty()) return;
  scheduled_ = true;
  queue_.at(steps_.front().delay, [this] {
    scheduled_ = false;
    run_front();
  }, queue_.tie_key());
}

void Activity::run_front() {
  Step s = std::move(steps_.front());
  steps_.pop_front();
  running_ = true;
  s.fn();
  running_ = false;
  for (auto it = inserted_.rbegin(); it != inserted_.rend(); ++it) steps_.push_front(std::move(*it));
  inserted_.clear();
  kick();
}

}  // namespace dpusim::pcie
