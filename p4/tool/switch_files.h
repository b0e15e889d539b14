// The core of `dpusim p4 switch` (simple_switch --use-files): a program, its interfaces
// capture files, an optional commands file before and after the traffic. Shared by the
// command and by the benchmark that times it end to end.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dpusim/p4/pcap.h"

namespace dpusim::p4::tool {

struct SwitchInterface {
  std::uint32_t port = 0;
  std::string name;  // reads NAME_in.pcap (when it exists), writes NAME_out.pcap
};

struct SwitchOptions {
  std::string program;
  std::vector<SwitchInterface> interfaces;
  std::string commands;  // simple_switch_CLI commands run before the first frame
  std::string after;     // ... and after the last
  std::uint64_t seed = 0;
  bool log_console = false;
  bool quiet = false;    // no summary line on stderr
};

struct SwitchSummary {
  std::size_t frames_in = 0, frames_out = 0, unconnected = 0;
};

// Runs the switch over the files; prints what the commands print and the digests on stdout,
// errors on stderr. Returns the exit status (0, 1 refused, 2 usage or I/O).
int run_switch_files(const SwitchOptions& o, SwitchSummary* summary);

}  // namespace dpusim::p4::tool
