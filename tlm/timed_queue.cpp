#include "tlm/timed_queue.h"

namespace dpusim::pcie {

using namespace sc_core;

TimedQueue::TimedQueue(sc_module_name name, Explorer* explorer) : sc_module(name), explorer_(explorer) {
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
  while (!queue_.empty() && queue_.next_time() <= now) queue_.pop().second();
  if (!queue_.empty()) wake_.notify(sc_time::from_value(queue_.next_time() - now));
}

}  // namespace dpusim::pcie
