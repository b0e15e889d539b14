// The engine's counters, printed as the one line the guide's device prints at shutdown:
//   P4 stats: host_in=3 host_out=0 uplink_in=0 uplink_out=3 dropped=0 too_big=0
//   parse_errors=0 to_guest=0 to_net=0 to_upstream=0 egress_errors=3 faults=0
// host_* and uplink_* count frames in and out of the device's two ports; to_guest, to_net,
// to_upstream and egress_errors are the attachment's (where a forwarded frame went, and
// frames that had nowhere to go). faults counts frames dropped by a runtime fault
// (division by zero, a value past the carried width where its lost bits decide, a stack
// index out of range).
#pragma once

#include <cstdint>
#include <string>

namespace dpusim::p4 {

struct Stats {
  std::uint64_t host_in = 0;
  std::uint64_t host_out = 0;
  std::uint64_t uplink_in = 0;
  std::uint64_t uplink_out = 0;
  std::uint64_t dropped = 0;
  std::uint64_t too_big = 0;
  std::uint64_t parse_errors = 0;
  std::uint64_t to_guest = 0;
  std::uint64_t to_net = 0;
  std::uint64_t to_upstream = 0;
  std::uint64_t egress_errors = 0;
  std::uint64_t faults = 0;

  // "P4 stats: host_in=... faults=N"
  std::string line() const;
};

}  // namespace dpusim::p4
