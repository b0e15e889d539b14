// Meters (bmv2's meters.cpp, a two-rate three-colour marker on a clock the engine is
// given) and the sizing of a program's runtime state.
#include "runtime.h"

#include <algorithm>

namespace dpusim::p4 {

std::uint32_t MeterArrayState::execute(std::size_t index, std::uint64_t units, std::uint64_t now_us) {
  if (!configured[index]) return 0;
  std::uint32_t color = 0;
  MeterRate* r = &rates[index * static_cast<std::size_t>(rate_count)];
  // Rates are kept fastest first: a packet the peak bucket cannot take is red, then one the
  // committed bucket cannot take is yellow. Each bucket refills against time zero.
  for (int k = 0; k < rate_count; ++k) {
    MeterRate& rate = r[k];
    auto since_origin = static_cast<std::uint64_t>(static_cast<double>(now_us) * rate.info_rate);
    // The clock never runs backwards here; a caller's earlier time adds nothing.
    std::uint64_t fresh = since_origin > rate.tokens_last ? since_origin - rate.tokens_last : 0;
    rate.tokens_last = std::max(rate.tokens_last, since_origin);
    rate.tokens = std::min(rate.tokens + fresh, rate.burst);
    if (rate.tokens < units) {
      color = rate.color;
      break;
    }
    rate.tokens -= units;
  }
  return color;
}

bool MeterArrayState::set_rates(std::size_t index, const std::vector<std::pair<double, std::uint64_t>>& given, std::string* error) {
  if (given.size() != static_cast<std::size_t>(rate_count)) {
    *error = "the meter takes " + std::to_string(rate_count) + " rates, not " + std::to_string(given.size());
    return false;
  }
  for (std::size_t k = 0; k < given.size(); ++k) {
    if (!(given[k].first >= 0) || given[k].first > 1e12) {
      *error = "rate " + std::to_string(k) + " is not a rate in [0, 1e12] units per microsecond";
      return false;
    }
    // bmv2's INVALID_INFO_RATE_VALUE: rates come slowest first ({CIR, PIR}).
    if (k > 0 && given[k - 1].first > given[k].first) {
      *error = "rate " + std::to_string(k) + " is below rate " + std::to_string(k - 1) + " (rates go slowest first: CIR, then PIR)";
      return false;
    }
  }
  MeterRate* r = &rates[index * static_cast<std::size_t>(rate_count)];
  for (std::size_t k = 0; k < given.size(); ++k) {
    // Stored fastest first, each bucket full, its colour its rank (yellow 1, red 2).
    MeterRate& rate = r[given.size() - 1 - k];
    rate.info_rate = given[k].first;
    rate.burst = given[k].second;
    rate.tokens = given[k].second;
    rate.tokens_last = 0;
    rate.color = static_cast<std::uint32_t>(k + 1);
  }
  configured[index] = 1;
  return true;
}

void Runtime::init(const Program& p) {
  counters.assign(p.counters.size(), {});
  for (std::size_t i = 0; i < p.counters.size(); ++i) counters[i].assign(p.counters[i].size, CounterCell{});
  meters.assign(p.meters.size(), {});
  for (std::size_t i = 0; i < p.meters.size(); ++i) {
    meters[i].rate_count = p.meters[i].rate_count;
    meters[i].packets = p.meters[i].packets;
    meters[i].resize(p.meters[i].size);
  }
  registers.assign(p.registers.size(), {});
  for (std::size_t i = 0; i < p.registers.size(); ++i)
    registers[i].assign(static_cast<std::size_t>(p.registers[i].size) * static_cast<std::size_t>(p.registers[i].nlimbs), 0);
  profiles.assign(p.action_profiles.size(), {});
  vset_values.assign(p.parse_vsets.size(), {});
  vset_cases.assign(p.vset_cases.size(), {});
  crcs.assign(p.calculations.size(), Crc{});
  for (std::size_t i = 0; i < p.calculations.size(); ++i)
    if (is_crc(p.calculations[i].algo)) crcs[i].init(crc_spec(p.calculations[i].algo));
  round_robin.assign(p.calculations.size(), 0);
}

}  // namespace dpusim::p4
