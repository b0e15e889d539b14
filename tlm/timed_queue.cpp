#include "tlm/timed_queue.h"

namespace dpusim::pcie {

using namespace sc_core;

TimedQueue::TimedQueue(sc_module_name name, Explorer* explorer, InvariantChecker* checker)
    : sc_module(name), explorer_(explorer), checker_(checker) {
  SC_METHOD(run);
  sensitive << wake_;
  dont_initialize();
}

TimedQueue::Key TimedQueue::at(const sc_time& delay, std::function<void()> fn, uint64_t tie) {
  const uint64_t when = (sc_time_stamp() + delay).value();
  const Key key = queue_.push(when, std::move(fn), tie);
  wake_.notify(delay);  // an earlier pending notification wins, as it should
  return key;
}

void TimedQueue::cancel(const Key& key) {
  const bool was_front = !queue_.empty() && queue_.next_key() == key;
  queue_.cancel(key);
  if (!was_front) return;
  wake_.cancel();
  if (!queue_.empty()) wake_.notify(sc_time::from_value(queue_.next_time() - sc_time_stamp().value()));
}

void TimedQueue::run() {
  const uint64_t now = sc_time_stamp().value();
  if (halted_) return;
  if (now != instant_ps_) instant_ps_ = now, at_instant_ = 0;
  while (!queue_.empty() && queue_.next_time() <= now) {
    if (checker_ && ++at_instant_ > kMaxCallbacksPerInstant) {
      checker_->violation(now, name(), "zero_time_spin",
                          std::to_string(at_instant_ - 1) + " callbacks ran at this instant and more are due: a loop "
                          "that never lets simulated time pass");
      halted_ = true;
      return;
    }
    queue_.pop().second();
  }
  if (!queue_.empty()) wake_.notify(sc_time::from_value(queue_.next_time() - now));
}

}  // namespace dpusim::pcie
