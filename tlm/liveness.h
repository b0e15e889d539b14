// Liveness of bounded states: a model that enters a state which must end within a bound (a
// device holding its reset status until its cleanup has run, say) holds a key; unless the key
// is released first, the invariant checker's "liveness_stall" violation fires at the instant
// the bound runs out, naming the state, so a run that would otherwise spin for ever (a host
// polling a status that never changes) fails there.
#pragma once

#include <systemc>

#include <cstdint>
#include <map>
#include <string>

#include "tlm/invariants.h"
#include "tlm/timed_queue.h"

namespace dpusim::pcie {

class LivenessWatch {
 public:
  // Bounds run out on `timers`, the owner's queue.
  LivenessWatch(InvariantChecker& checker, TimedQueue& timers) : checker_(checker), timers_(timers) {}

  // `key` (a component path and state) entered a state that must end within `bound_ps`;
  // `what` says what it is. Holding a key already held restarts its bound.
  void hold(const std::string& key, uint64_t bound_ps, const std::string& what);
  void release(const std::string& key);
  bool held(const std::string& key) const { return held_.count(key) != 0; }
  // The end of the run (a shutdown may outlast a bound by design): nothing fires any more.
  void stop();

 private:
  struct Hold {
    uint64_t since_ps;
    TimedQueue::Key timer;
  };
  InvariantChecker& checker_;
  TimedQueue& timers_;
  std::map<std::string, Hold> held_;
  bool stopped_ = false;
};

}  // namespace dpusim::pcie
