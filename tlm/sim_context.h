// What every model of one platform shares: the event log, the timing profile, the TLP pool,
// the invariant checker, the fault injector, the seed, and the queue of notifications for the
// Python runtime. One per platform (and so one per process).
//
// Python owns the run loop and no SystemC process calls into Python: a model that has
// something for Python (a completion it awaits, a watched event, a violation) posts a
// Notification, which pauses the kernel at the end of the current delta cycle; Python drains
// the queue when sc_start returns.
#pragma once

#include <systemc>

#include <cstdint>
#include <string>
#include <vector>

#include "event_log.h"
#include "faults.h"
#include "invariants.h"
#include "rng.h"
#include "timing.h"
#include "tlp_payload.h"
#include "trace_rules.h"

namespace dpusim::pcie {

struct Notification {
  // MemoryWrite: a device's DMA write landed in a watched range of host memory (token = watch
  // id). Frame: a frame reached a Python-driven peer (token = wire index, data = the frame).
  enum class Kind { Completion, Event, Violation, Msi, MemoryWrite, Frame };
  explicit Notification(Kind k = Kind::Event) : kind(k) {}
  Kind kind;
  uint64_t token = 0;   // request token or watcher id
  int status = 0;       // completion outcome (see Outcome)
  std::vector<uint8_t> data;
  std::string text;     // event line or violation message
  uint64_t time_ps = 0;
  uint64_t address = 0;  // MSI: message address (token = requester ID, status = data)
};

class SimContext {
 public:
  explicit SimContext(uint64_t seed);
  SimContext(const SimContext&) = delete;
  SimContext& operator=(const SimContext&) = delete;

  uint64_t seed() const { return seed_; }
  static uint64_t now_ps() { return sc_core::sc_time_stamp().value(); }
  Rng rng(std::string_view component) const { return Rng(seed_, component); }

  EventLog log;
  TimingProfile timing;
  TlpPool pool;
  InvariantChecker checker;
  FaultInjector faults;
  // How the event stream becomes the trace (trace_rules.h): each model adds its rules when
  // built, whether or not this run writes a trace.
  TraceRules trace_rules;

  void post(Notification n);
  std::vector<Notification> take_notifications();
  bool has_notifications() const { return !notes_.empty(); }

  Event event(std::string_view path, std::string_view name) { return log.event(now_ps(), path, name); }
  // An event for the trace alone (EventLog::sink_event): inactive unless a trace is written.
  Event sink_event(std::string_view path, std::string_view name) { return log.sink_event(now_ps(), path, name); }
  sc_core::sc_time ps(TimingId id) const { return sc_core::sc_time::from_value(timing.get(id)); }

 private:
  uint64_t seed_;
  std::vector<Notification> notes_;
};

}  // namespace dpusim::pcie
