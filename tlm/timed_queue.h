// Callbacks at simulated times, in (time, order of scheduling) order: how a model waits out a
// latency without a SystemC thread per request. One event serves the whole queue.
//
// A queue given the invariant checker guards its owner against a loop that never lets
// simulated time pass: more than kMaxCallbacksPerInstant callbacks at one instant is the
// "zero_time_spin" violation, after which the queue runs nothing more (the run has failed).
//
// A callback may carry a tie key (an application thread's step does, tlm/activity.h): among
// callbacks due at the same time, keys order them before scheduling order. Keys are all
// Explorer::kProgramOrder unless schedule exploration draws them, so a nominal run keeps
// plain scheduling order.
#pragma once

#include <systemc>

#include <cstdint>
#include <functional>

#include "tlm/explore.h"
#include "tlm/invariants.h"
#include "tlm/timed_heap.h"

namespace dpusim::pcie {

class TimedQueue : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(TimedQueue);
  // `explorer`, when given, draws the tie keys of thread steps (exploration knob "ties");
  // `checker`, when given, watches for loops that spin without time passing.
  explicit TimedQueue(sc_core::sc_module_name name, Explorer* explorer = nullptr, InvariantChecker* checker = nullptr);
  static constexpr uint64_t kMaxCallbacksPerInstant = 100000;

  using Key = TimedHeap::Key;  // (time ps, tie, seq)
  // Runs `fn` at now + `delay` (after everything already scheduled for that time with the
  // same tie key). Returns its key, for cancel().
  Key at(const sc_core::sc_time& delay, std::function<void()> fn, uint64_t tie = Explorer::kProgramOrder);
  // Forgets a callback that has not run yet (no trace of it stays scheduled); `key` must be
  // one that has not run.
  void cancel(const Key& key);
  // The tie key for a thread's next step: program order, or a drawn one under exploration.
  uint64_t tie_key() { return explorer_ ? explorer_->tie_key() : Explorer::kProgramOrder; }
  size_t size() const { return queue_.size(); }

 private:
  void run();
  Explorer* explorer_;
  InvariantChecker* checker_;
  uint64_t instant_ps_ = 0, at_instant_ = 0;  // callbacks run at the current instant
  bool halted_ = false;
  TimedHeap queue_;
  sc_core::sc_event wake_;
};

}  // namespace dpusim::pcie
