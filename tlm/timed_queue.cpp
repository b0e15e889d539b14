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
  queue_.emplace(std::make_pair(when, seq_++), std::move(fn));
  wake_.notify(delay);  // an earlier pending notification wins, as it should
}

void TimedQueue::run() {
  const uint64_t now = sc_time_stamp().value();
  while (!queue_.empty() && queue_.begin()->first.first <= now) {
    auto fn = std::move(queue_.begin()->second);
    queue_.erase(queue_.begin());
    fn();
  }
  if (!queue_.empty()) wake_.notify(sc_time::from_value(queue_.begin()->first.first - now));
}

}  // namespace dpusim::pcie
