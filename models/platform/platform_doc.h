// The platform document: the JSON that says what to build (topology, host parameters, timing
// profile, seed, outputs). Everything in it is checked before anything is built; a bad
// document is refused with the JSON path of the bad field and the reason, never clamped or
// half-used. Unknown keys are refused too, so a typo cannot pass as a default.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "device/doc_error.h"
#include "device/endpoint_kind.h"
#include "host/root_complex.h"
#include "tlm/dma.h"
#include "tlm/log_filter.h"

namespace dpusim::platform {

// A slot's endpoint: its kind's name and parsed options (device/endpoint_kind.h).
struct EndpointSpec {
  std::string kind;  // "test", ...
  std::shared_ptr<const EndpointConfig> config;
};

class FamilyConfig;

// A wire between two ends: "ep<i>" (endpoint i's network port), "loopback" or "python".
struct WireSpec {
  std::string a, b;
};

struct PlatformSpec {
  uint64_t seed = 1;
  host::HostSpec host;
  std::vector<std::optional<EndpointSpec>> slots;  // one per downstream port; nullopt = empty
  // A device family's topology and options, replacing `slots` (see family.h); null = generic.
  std::string family_name;
  std::shared_ptr<const FamilyConfig> family;
  std::vector<WireSpec> wires;
  std::vector<unsigned> mesh;  // the mesh's members (endpoint indexes), node i = mesh[i]
  std::vector<std::pair<std::string, uint64_t>> timing;  // overrides: the profile's, then the document's
  std::string timing_profile = "doca-gen4x16";  // the named profile (timing_profiles.h)
  bool vcd = true;
  bool pcap = true;  // one capture per wire
  pcie::LogFilter log;  // "outputs": {"log": ...}
  // "fidelity": every endpoint's DMA at the start (tlm/dma.h); a scenario may switch one.
  pcie::Fidelity fidelity = pcie::Fidelity::Tlp;
  // Schedule exploration (tlm/explore.h): off, on for every knob, or on for the knobs named.
  bool explore = false;
  std::optional<std::set<std::string>> explore_only;
};

// Parses and validates `json_text`. Throws DocError. `doc` says where relative file names in
// device options resolve.
PlatformSpec parse_platform_doc(const std::string& json_text, const DocContext& doc = {});

constexpr unsigned kMaxSlots = 32;
// A platform document is small; these bound what a bad one can cost before it is refused.
constexpr size_t kMaxDocBytes = 1 << 20;
constexpr size_t kMaxDocDepth = 64;

}  // namespace dpusim::platform
