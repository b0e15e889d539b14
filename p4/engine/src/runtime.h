// The state of a loaded program that packets and the control plane change besides table
// entries: counter, meter and register arrays (bmv2's counters.h, meters.h, stateful.h),
// action profile members and groups (action_profile.h), parse value sets, simple_switch's
// mirroring sessions and its packet replication engine (simple_pre.h), and the random and
// round-robin generators. Ordered containers only: nothing here may depend on hashing or
// pointer values.
#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <vector>

#include "dpusim/p4/limits.h"
#include "hash_algos.h"
#include "program.h"

namespace dpusim::p4 {

struct CounterCell {
  std::uint64_t bytes = 0, packets = 0;
};

// One rate of a meter: bmv2's MeterRate. Rates are in units (bytes or packets) per
// microsecond, the bucket holds up to burst units, and tokens accrue against a fixed
// origin (time zero of the engine's clock) so that no rounding accumulates.
struct MeterRate {
  double info_rate = 0;
  std::uint64_t burst = 0, tokens = 0, tokens_last = 0;
  std::uint32_t color = 0;
};

struct MeterArrayState {
  int rate_count = 2;
  bool packets = true;
  std::vector<MeterRate> rates;         // size * rate_count, the highest rate first once set
  std::vector<std::uint8_t> configured;  // per meter
  // bmv2's trTCM: green 0, yellow 1, red 2; an unconfigured meter is green.
  std::uint32_t execute(std::size_t index, std::uint64_t units, std::uint64_t now_us);
  // Rates as the control plane gives them, slowest first ({CIR, PIR}).
  bool set_rates(std::size_t index, const std::vector<std::pair<double, std::uint64_t>>& rates, std::string* error);
  void resize(std::size_t size) {
    rates.assign(size * static_cast<std::size_t>(rate_count), MeterRate{});
    configured.assign(size, 0);
  }
};

struct ProfileMember {
  int action = -1;
  std::vector<std::uint64_t> data;
};

struct ActionProfileState {
  std::map<std::uint32_t, ProfileMember> members;
  std::map<std::uint32_t, std::vector<std::uint32_t>> groups;  // members in id order
  std::map<std::uint32_t, std::uint32_t> member_refs;  // entries and groups naming a member
  std::map<std::uint32_t, std::uint32_t> group_refs;   // entries naming a group
};

struct MirrorSession {
  bool port_valid = false;
  std::uint32_t port = 0;
  bool mgid_valid = false;
  std::uint32_t mgid = 0;
};

// simple_switch's packet replication engine: a group is a list of nodes in association
// order; a node has a replication id and a set of ports, replicated in ascending order.
struct McNode {
  std::uint32_t rid = 0;
  std::set<std::uint32_t> ports;
  std::int64_t group = -1;  // the group it is associated with
};

struct Runtime {
  std::vector<std::vector<CounterCell>> counters;         // per counter array (direct: per entry handle)
  std::vector<MeterArrayState> meters;                    // per meter array (direct: per entry handle)
  std::vector<std::vector<std::uint64_t>> registers;      // size * nlimbs per array
  std::vector<ActionProfileState> profiles;
  std::vector<std::set<std::vector<std::uint8_t>>> vset_values;  // per value set: compressed values
  std::vector<std::set<std::vector<std::uint8_t>>> vset_cases;   // per use: values in the key's layout
  std::vector<Crc> crcs;                                  // per calculation (CRCs only)
  std::vector<std::uint64_t> round_robin;                 // per calculation
  std::map<std::uint32_t, MirrorSession> mirror_sessions;
  std::map<std::uint32_t, std::vector<std::uint32_t>> mc_groups;  // group -> node handles
  std::map<std::uint32_t, McNode> mc_nodes;
  std::mt19937_64 rng;                                    // random(), seeded by the run

  void init(const Program& p);
};

}  // namespace dpusim::p4
