// The timing profile: every latency of the platform is a named parameter with a documented
// default and source (docs/timing.md). Latency studies change the profile, never the code; a
// scenario may override one parameter at run time (`sim.set_cost(name, value)`), and models
// read the current value each time they use it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dpusim::pcie {

// X(id, "name", default, min, max, "unit")
#define DPUSIM_TIMING_PARAMS(X)                                                            \
  X(link_host_gen, "link.host.gen", 4, 1, 6, "PCIe generation")                             \
  X(link_host_width, "link.host.width", 16, 1, 32, "lanes")                                 \
  X(link_dsp_gen, "link.dsp.gen", 4, 1, 6, "PCIe generation")                               \
  X(link_dsp_width, "link.dsp.width", 16, 1, 32, "lanes")                                   \
  X(link_propagation_ps, "link.propagation_ps", 2000, 0, 1000000000, "ps")                  \
  X(switch_traversal_ps, "switch.traversal_ps", 100000, 0, 1000000000, "ps")                \
  X(cpl_timeout_ps, "cpl_timeout_ps", 50000000000ull, 1, 100000000000000ull, "ps")          \
  X(host_mem_read_ps, "host.mem_read_ps", 100000, 0, 1000000000, "ps")                      \
  X(slot_link_train_ps, "slot.link_train_ps", 10000000000ull, 0, 100000000000000ull, "ps")  \
  X(test_ep_service_ps, "test_endpoint.service_ps", 50000, 0, 1000000000, "ps")             \
  X(test_ep_dma_setup_ps, "test_endpoint.dma_setup_ps", 100000, 0, 1000000000, "ps")

enum class TimingId : unsigned {
#define DPUSIM_TIMING_ENUM(id, name, def, lo, hi, unit) id,
  DPUSIM_TIMING_PARAMS(DPUSIM_TIMING_ENUM)
#undef DPUSIM_TIMING_ENUM
      count
};

struct TimingParamInfo {
  const char* name;
  uint64_t default_value, min, max;
  const char* unit;
};

class TimingProfile {
 public:
  TimingProfile();
  uint64_t get(TimingId id) const { return values_[static_cast<unsigned>(id)]; }
  // Sets a parameter by name; throws std::invalid_argument naming the parameter, the value and
  // the allowed range when it is unknown or out of range.
  void set(const std::string& name, uint64_t value);
  static const std::vector<TimingParamInfo>& params();
  static int find(const std::string& name);  // index or -1

 private:
  std::vector<uint64_t> values_;
};

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
// bytes × 8 × enc_num / enc_den / (rate × width).
uint64_t serialisation_ps(uint64_t bytes, unsigned gen, unsigned width);

}  // namespace dpusim::pcie
