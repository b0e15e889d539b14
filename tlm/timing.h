// The timing profile: every latency of the platform is a named parameter with a documented
// default and source (docs/timing.md). Latency studies change the profile, never the code; a
// scenario may override one parameter at run time (`sim.set_cost(name, value)`), and models
// read the current value each time they use it.
//
// Each model declares its own parameters (a `TimingParam` per latency, defined in the model's
// `*_timing.cpp`) and they register themselves in one process-wide list when the program
// starts, so the transaction layer knows none of them by name: it owns only the fabric's
// (links, the completion timeout). The platform document, `sim.set_cost` and docs/timing.md
// all go through that one list (`TimingProfile::params()`).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tlm/explore.h"

namespace dpusim::pcie {

struct TimingParamInfo {
  const char* name;  // "vnet.pe1.config_ps": the model's prefix, then the latency
  uint64_t default_value, min, max;
  const char* unit;  // "ps", "lanes", "frames"...
  // Optional: a value in range must also pass this check; `accept_text` says what it wants.
  bool (*accept)(uint64_t value) = nullptr;
  const char* accept_text = nullptr;
  // Optional: the range schedule exploration may draw this latency from (tlm/explore.h);
  // none by default, so the parameter stays a constant. docs/timing.md justifies each range.
  ExploreRange explore = {};
};

// A parameter as its model holds it: registered (once, at static initialisation) and looked up
// by index. Declare it `extern const TimingParam x;` in the model's header and define it in one
// .cpp file; two parameters of the same name stop the program at start.
class TimingParam {
 public:
  explicit TimingParam(const TimingParamInfo& info);
  // A parameter with an exploration range: TimingParam({"name", ...}, ExploreRange::per_use(50, 200)).
  TimingParam(const TimingParamInfo& info, const ExploreRange& range);
  TimingParam(const TimingParam&) = delete;
  TimingParam& operator=(const TimingParam&) = delete;
  unsigned index() const { return index_; }
  const TimingParamInfo& info() const;
  const char* name() const { return info().name; }

 private:
  unsigned index_;
};

class TimingProfile {
 public:
  TimingProfile();
  uint64_t get(const TimingParam& p) const { return values_[p.index()]; }
  // Sets a parameter by name; throws std::invalid_argument naming the parameter, the value and
  // the allowed range when it is unknown or out of range.
  void set(const std::string& name, uint64_t value);
  uint64_t get(const std::string& name) const;  // throws std::invalid_argument when unknown
  // Counts the changes made by set(): what a model caching arithmetic on the profile checks.
  uint64_t generation() const { return generation_; }
  // Every registered parameter, by registration index (use sorted_params() to list them).
  static const std::vector<TimingParamInfo>& params();
  static std::vector<TimingParamInfo> sorted_params();  // by name
  static int find(const std::string& name);  // index or -1

 private:
  std::vector<uint64_t> values_;
  uint64_t generation_ = 0;
};

// The fabric's own parameters (tlm/): link generation and width on the host side and below the
// switch's downstream ports, propagation, and the completion timeout.
namespace timing {
extern const TimingParam link_host_gen, link_host_width, link_dsp_gen, link_dsp_width, link_propagation_ps;
// The share of every link's bandwidth, in parts per million, that the data link and physical
// layers take for themselves (ACK and flow-control DLLPs, SKIP ordered sets): a TLP's time on
// the wire is divided by (1 - share). 0 by default (docs/timing.md, Link arithmetic).
extern const TimingParam link_dllp_share_ppm;
extern const TimingParam cpl_timeout_ps;
// The quantum of loosely timed requesters (tlm/quantum_keeper.h): how far a device's local time
// may run ahead of the kernel's.
extern const TimingParam lt_quantum_ps;
}  // namespace timing

// PCIe link arithmetic (PCIe r5.0 §4.2): transfer rate and line encoding of a generation.
struct LinkRate {
  uint32_t mtps;     // mega-transfers per second per lane
  uint32_t enc_num;  // encoding overhead: bits on the wire ...
  uint32_t enc_den;  // ... per this many data bits (10/8 or 130/128)
};
LinkRate link_rate(unsigned gen);
// Bytes a TLP occupies on the link: header + payload (+ ECRC) + 8 bytes of framing, sequence
// number and LCRC (PCIe §4.2.3 / §3.6.2).
constexpr uint64_t kTlpFramingBytes = 8;
// Time in ps that `bytes` take on a link of `gen` and `width`, rounded up to a whole ps:
// bytes × 8 × enc_num / enc_den / (rate × width) / (1 - dllp_share_ppm / 10^6).
uint64_t serialisation_ps(uint64_t bytes, unsigned gen, unsigned width, uint64_t dllp_share_ppm = 0);

}  // namespace dpusim::pcie
