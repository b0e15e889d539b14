// p4c's STF packet tests, run as p4c's bmv2 driver (backends/bmv2/bmv2stf.py) runs them on
// simple_switch: table names, key names and action names may be suffixes, `add` keys are
// given by name in any order (missing ones are don't-care), STF priorities rank higher
// numbers first, and expected frames are compared per port, in order, as a prefix of the
// received frame with `*` nibbles matching anything and a trailing `$` asking for the
// exact length. Ports that the test never names are not observed, as with bmv2's
// interfaces. Commands the bmv2 driver ignores (wait, remove, check_counter...) are
// ignored here too.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "dpusim/p4/engine.h"

namespace dpusim::p4 {

struct StfOutcome {
  bool passed = false;
  std::string message;  // "pass" or the first mismatch
  std::size_t packets = 0;
  std::size_t expects = 0;
  std::size_t entries = 0;
};

// Runs the test against an engine loaded with PortPolicy::kV1Model.
StfOutcome run_stf(Engine& engine, std::string_view stf_text);

}  // namespace dpusim::p4
