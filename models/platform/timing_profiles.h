// Named timing profiles (docs/timing.md, Profiles): a platform document's
// `"timing": {"profile": NAME}` sets every parameter the profile lists before the document's own
// overrides. Each profile names the published system it reproduces.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace dpusim::platform {

struct TimingPreset {
  const char* name;
  const char* system;  // what it models, one line
  std::vector<std::pair<const char*, uint64_t>> values;
};

// Every profile, the default first ("doca-gen4x16": no values, the parameters' own defaults).
const std::vector<TimingPreset>& timing_presets();
// The profile named `name`, or null.
const TimingPreset* find_timing_preset(const std::string& name);

}  // namespace dpusim::platform
