#include "tlm/explore.h"

#include <algorithm>

namespace dpusim::pcie {

uint64_t ExploreRange::low(uint64_t v) const {
  return uint64_t((unsigned __int128)v * lo_pct / 100);
}

uint64_t ExploreRange::high(uint64_t v) const {
  const unsigned __int128 h = (unsigned __int128)v * hi_pct / 100 + add_ps;
  return h > UINT64_MAX ? UINT64_MAX : uint64_t(h);
}

void Explorer::enable(std::optional<std::set<std::string>> only) {
  enabled_ = true;
  only_ = std::move(only);
}

bool Explorer::knob_on(const std::string& knob) const {
  return enabled_ && (!only_ || only_->count(knob) != 0);
}

Rng& Explorer::stream(const std::string& knob) {
  auto it = streams_.find(knob);
  if (it == streams_.end()) it = streams_.emplace(knob, Rng(seed_, "explore:" + knob)).first;
  ++used_[knob];
  return it->second;
}

uint64_t Explorer::latency(const std::string& knob, const ExploreRange& range, uint64_t value, uint64_t min,
                           uint64_t max) {
  if (!range.any() || !knob_on(knob)) return value;
  if (range.draw == ExploreRange::Draw::kPerRun) {
    auto it = per_run_.find({knob, value});
    if (it != per_run_.end()) return it->second;
  }
  // The range, clamped into the parameter's own limits (both ends: a range wholly above the
  // maximum draws the maximum).
  const uint64_t lo = std::clamp(range.low(value), min, max), hi = std::clamp(range.high(value), min, max);
  Rng& r = stream(knob);
  const uint64_t v = hi - lo == UINT64_MAX ? r.next() : lo + r.below(hi - lo + 1);
  if (range.draw == ExploreRange::Draw::kPerRun) per_run_.emplace(std::make_pair(knob, value), v);
  return v;
}

uint64_t Explorer::tie_key() {
  if (!knob_on("ties")) return kProgramOrder;
  return stream("ties").next();
}

uint64_t Explorer::draw_below(const std::string& knob, uint64_t n) {
  return stream(knob).below(n);
}

}  // namespace dpusim::pcie
