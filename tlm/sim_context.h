// What every model of one platform shares: the event log, the timing profile, the TLP pool,
// the invariant checker, the fault injector, the seed, the schedule explorer (off unless the
// run asks for it), and the queue of notifications for the Python runtime. One per platform
// (and so one per process).
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

#include "tlm/event_log.h"
#include "tlm/explore.h"
#include "tlm/faults.h"
#include "tlm/invariants.h"
#include "tlm/rng.h"
#include "tlm/timing.h"
#include "tlm/tlp_payload.h"
#include "tlm/trace_rules.h"

namespace dpusim::pcie {

// What a notification is about: a name the Python runtime dispatches on. The transaction
// layer's own are below; each model that posts others declares its kind beside the model
// (models/host: "msi", "memory_write"; models/net: "frame"), and the runtime registers a
// handler for each.
using NotificationKind = const char*;
namespace notification {
inline constexpr NotificationKind kCompletion = "completion";  // a request Python issued completed
inline constexpr NotificationKind kEvent = "event";            // a watched event was logged
inline constexpr NotificationKind kViolation = "violation";    // an invariant broke
}  // namespace notification

struct Notification {
  explicit Notification(NotificationKind k = notification::kEvent) : kind(k) {}
  NotificationKind kind;
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
  // The time of what runs now: the local time of a temporally decoupled device while its
  // quantum keeper runs its work (tlm/quantum_keeper.h), else the kernel's. Events are logged
  // at this time.
  uint64_t local_ps() const { return decoupled_ ? local_ps_ : now_ps(); }
  void set_decoupled(bool on, uint64_t local_ps = 0) {
    decoupled_ = on;
    local_ps_ = local_ps;
  }
  Rng rng(std::string_view component) const { return Rng(seed_, component); }

  EventLog log;
  TimingProfile timing;
  Explorer explore;
  TlpPool pool;
  InvariantChecker checker;
  FaultInjector faults;
  // How the event stream becomes the trace (trace_rules.h): each model adds its rules when
  // built, whether or not this run writes a trace.
  TraceRules trace_rules;

  void post(Notification n);
  std::vector<Notification> take_notifications();
  bool has_notifications() const { return !notes_.empty(); }

  Event event(std::string_view path, std::string_view name) { return log.event(local_ps(), path, name); }
  Event event(std::string_view path, const EventKind& kind) { return log.event(local_ps(), path, kind); }
  // An event for the trace alone (EventLog::sink_event): inactive unless a trace is written.
  Event sink_event(std::string_view path, std::string_view name) { return log.sink_event(local_ps(), path, name); }
  // A latency as a model waits it out now: the profile's value or, under schedule exploration,
  // a draw within the parameter's declared range (tlm/explore.h).
  uint64_t latency_ps(const TimingParam& p) {
    const TimingParamInfo& i = p.info();
    // Nothing to draw (and so no knob name to build): the profile's value.
    if (!i.explore.any() || !explore.enabled()) return timing.get(p);
    return explore.latency(i.name, i.explore, timing.get(p), i.min, i.max);
  }
  sc_core::sc_time ps(const TimingParam& p) { return sc_core::sc_time::from_value(latency_ps(p)); }

 private:
  uint64_t seed_;
  std::vector<Notification> notes_;
  bool decoupled_ = false;
  uint64_t local_ps_ = 0;
};

}  // namespace dpusim::pcie
