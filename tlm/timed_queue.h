// Callbacks at simulated times, in (time, order of scheduling) order: how a model waits out a
// latency without a SystemC thread per request. One event serves the whole queue.
#pragma once

#include <systemc>

#include <cstdint>
#include <functional>

#include "tlm/timed_heap.h"

namespace dpusim::pcie {

class TimedQueue : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(TimedQueue);
  explicit TimedQueue(sc_core::sc_module_name name);

  // Runs `fn` at now + `delay` (after everything already scheduled for that time).
  void at(const sc_core::sc_time& delay, std::function<void()> fn);
  size_t size() const { return queue_.size(); }

 private:
  void run();
  TimedHeap queue_;  // (time ps, scheduling order)
  sc_core::sc_event wake_;
};

}  // namespace dpusim::pcie
