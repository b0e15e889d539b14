#include "tlm/timed_queue.h"

#include <algorithm>

namespace dpusim::pcie {

using namespace sc_core;

namespace {
struct Later {
  template <typename Item>
  bool operator()(const Item& a, const Item& b) const {
    return a.when != b.when ? a.when > b.when : a.seq > b.seq;
  }
};
}  // namespace

TimedQueue::TimedQueue(sc_module_name name) : sc_module(name) {
  SC_METHOD(run);
  sensitive << wake_;
  dont_initialize();
}

void TimedQueue::at(const sc_time& delay, std::function<void()> fn) {
  const uint64_t when = (sc_time_stamp() + delay).value();
  queue_.push_back(Item{when, seq_++, std::move(fn)});
  std::push_heap(queue_.begin(), queue_.end(), Later{});
  wake_.notify(delay);  // an earlier pending notification wins, as it should
}

void TimedQueue::run() {
  const uint64_t now = sc_time_stamp().value();
  while (!queue_.empty() && queue_.front().when <= now) {
    std::pop_heap(queue_.begin(), queue_.end(), Later{});
    auto fn = std::move(queue_.back().fn);
    queue_.pop_back();
    fn();
  }
  if (!queue_.empty()) wake_.notify(sc_time::from_value(queue_.front().when - now));
}

}  // namespace dpusim::pcie
