#include "tlm/timed_queue.h"

namespace dpusim::pcie {

using namespace sc_core;

TimedQueue::TimedQueue(sc_module_name name) : sc_module(name) {
  SC_METHOD(run);
  sensitive << wake_;
  dont_initialize();
}

void TimedQueue::at(const sc_time& delay, std::function<void()> fn) {
  const uint64_t when = (sc_time_stamp() + delay).value();
  queue_.push(when, std::move(fn));
  wake_.notify(delay);  // an earlier pending notification wins, as it should
}

void TimedQueue::run() {
  const uint64_t now = sc_time_stamp().value();
  while (!queue_.empty() && queue_.next_time() <= now) queue_.pop().second();
  if (!queue_.empty()) wake_.notify(sc_time::from_value(queue_.next_time() - now));
}

}  // namespace dpusim::pcie
