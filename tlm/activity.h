// A sequential thread of a modelled application (a firmware main loop, a worker, a helper
// thread) on simulated time, without a SystemC thread (each costs a 256 KiB stack): a list of
// steps, each run `delay` after the previous one finished, driven by a TimedQueue.
//
// A step may add steps; added from inside a step they run next, before the steps already
// queued, as a subroutine's statements run before the caller's next ones. A step may also
// suspend the thread (it waits for a resume(), as on a condition variable) or make it wait
// until a condition holds (polled, as a sleep-and-check loop is).
//
// A step may be guarded (then_if): its guard is evaluated when the step is reached, and a
// false guard skips it, its delay included, at once. A firmware flow of the form
//   if (x) { op(); }   // op takes its cost
// is then one line of a flat step list, as the C it models reads.
#pragma once

#include <systemc>

#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "tlm/timed_queue.h"

namespace dpusim::pcie {

class Activity {
 public:
  using Fn = std::function<void()>;
  explicit Activity(TimedQueue& queue) : queue_(queue) {}
  Activity(const Activity&) = delete;
  Activity& operator=(const Activity&) = delete;

  // Runs `fn` `delay` after the previous step (now, if the thread is idle).
  void then(const sc_core::sc_time& delay, Fn fn);
  void then(Fn fn) { then(sc_core::SC_ZERO_TIME, std::move(fn)); }
  // As then(), when `guard()` holds at the moment the step is reached; skipped otherwise.
  void then_if(std::function<bool()> guard, const sc_core::sc_time& delay, Fn fn);
  // Blocks the thread after the current step until resume().
  void suspend() { suspended_ = true; }
  void resume();
  // Blocks until `ready()` holds: checked now, then every `poll`.
  void wait_until(std::function<bool()> ready, const sc_core::sc_time& poll);

  bool idle() const { return steps_.empty() && inserted_.empty() && !running_ && !scheduled_; }
  bool suspended() const { return suspended_; }

 private:
  struct Step {
    sc_core::sc_time delay;
    Fn fn;
    std::function<bool()> guard;  // empty: always runs
  };
  void kick();
  void run_front();

  TimedQueue& queue_;
  std::deque<Step> steps_;
  std::vector<Step> inserted_;  // added by the running step
  bool running_ = false, scheduled_ = false, suspended_ = false;
};

}  // namespace dpusim::pcie
