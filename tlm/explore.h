// Seeded schedule exploration (off unless a run asks for it): each seed becomes one
// deterministic perturbed schedule, drawn inside what the specs and the modelled devices allow.
//
// What it perturbs, each a named knob with its own random stream (derived from the platform
// seed and the knob's name, so turning one knob off never changes another's draws):
//  - every timing parameter that declares an ExploreRange (docs/timing.md says why each range
//    is what it is): the knob is the parameter's name. A per-use range draws a fresh value
//    each time a model waits it out (a worker operation, PE1's service of one TLP: sequential
//    work, so no two uses of it can overtake each other); a per-run range draws once per run
//    and value (a link's propagation, a switch's traversal: pipelined paths where a varying
//    latency would reorder TLPs that PCIe keeps in order);
//  - the order of same-time steps of an application's threads (knob "ties"): two Activities
//    due at the same picosecond run in a drawn order, as two cores would;
//  - the host's own choice points, drawn by the Python runtime through the same accounting
//    (knobs "host.*").
// Without exploration every call returns the nominal value and nothing is drawn, so a
// nominal run's schedule and event log are exactly those of a platform without this layer.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "tlm/rng.h"

namespace dpusim::pcie {

// The range exploration may draw a latency from: uniformly in
//   [value × lo_pct / 100, value × hi_pct / 100 + add_ps]
// where value is the parameter's current profile value, clamped to the parameter's own limits.
struct ExploreRange {
  enum class Draw : uint8_t { kNone, kPerUse, kPerRun };
  uint32_t lo_pct = 100, hi_pct = 100;
  uint64_t add_ps = 0;
  Draw draw = Draw::kNone;

  static constexpr ExploreRange per_use(uint32_t lo, uint32_t hi, uint64_t add = 0) {
    return ExploreRange{lo, hi, add, Draw::kPerUse};
  }
  static constexpr ExploreRange per_run(uint32_t lo, uint32_t hi, uint64_t add = 0) {
    return ExploreRange{lo, hi, add, Draw::kPerRun};
  }
  bool any() const { return draw != Draw::kNone; }
  // Lowest and highest value for a profile value `v` (before the parameter's own limits).
  uint64_t low(uint64_t v) const;
  uint64_t high(uint64_t v) const;
};

// How much later than asked a Linux sleep may end (the application's threads run on Linux
// too), for the ranges of sleeps and timed waits:
//  - msleep(n) sleeps at least n ms and, for small n, often about 20 ms
//    (Documentation/timers/timers-howto.rst: "msleep(1~20) may not do what the caller
//    intends, and will often sleep longer (~20 ms actual sleep for any value given in the
//    1~20ms range)"); its timeout also rounds up to whole jiffies plus one;
//  - a delayed work item fires on a jiffy tick: up to one jiffy (10 ms at HZ=100) late;
//  - nanosleep/usleep and timed waits in user space end up to the thread's timer slack late
//    (prctl(2), PR_SET_TIMERSLACK: "the default value is 50 microseconds").
inline constexpr uint64_t kLinuxMsleepSlackPs = 20'000'000'000ull;
inline constexpr uint64_t kLinuxJiffyPs = 10'000'000'000ull;
inline constexpr uint64_t kLinuxTimerSlackPs = 50'000'000ull;

class Explorer {
 public:
  explicit Explorer(uint64_t seed) : seed_(seed) {}
  Explorer(const Explorer&) = delete;
  Explorer& operator=(const Explorer&) = delete;

  // Exploration on for every knob, or only for those named (shrinking turns knobs off).
  void enable(std::optional<std::set<std::string>> only = std::nullopt);
  bool enabled() const { return enabled_; }
  bool knob_on(const std::string& knob) const;
  // The `only` set, if one was given.
  const std::optional<std::set<std::string>>& only() const { return only_; }

  // One use of a latency: its profile value `value`, perturbed within `range` (clamped to
  // [min, max]) when exploration is on for `knob`, else `value` unchanged.
  uint64_t latency(const std::string& knob, const ExploreRange& range, uint64_t value, uint64_t min, uint64_t max);
  // A tie-break key for an application thread's step (kProgramOrder when ties are not
  // explored: ties then run in scheduling order).
  static constexpr uint64_t kProgramOrder = uint64_t(1) << 63;
  uint64_t tie_key();
  // A draw in [0, n) from `knob`'s stream, counted (the Python runtime's host choice points).
  uint64_t draw_below(const std::string& knob, uint64_t n);

  // Knobs that drew at least once, with their draw counts, by name.
  const std::map<std::string, uint64_t>& used() const { return used_; }

 private:
  Rng& stream(const std::string& knob);
  uint64_t seed_;
  bool enabled_ = false;
  std::optional<std::set<std::string>> only_;
  std::map<std::string, Rng> streams_;
  std::map<std::string, uint64_t> used_;
  std::map<std::pair<std::string, uint64_t>, uint64_t> per_run_;  // (knob, value) -> drawn
};

}  // namespace dpusim::pcie
