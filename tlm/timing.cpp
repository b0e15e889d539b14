#include "tlm/timing.h"

#include <stdexcept>

namespace dpusim::pcie {

const std::vector<TimingParamInfo>& TimingProfile::params() {
  static const std::vector<TimingParamInfo> table = {
#define DPUSIM_TIMING_INFO(id, name, def, lo, hi, unit) {name, def, lo, hi, unit},
      DPUSIM_TIMING_PARAMS(DPUSIM_TIMING_INFO)
#undef DPUSIM_TIMING_INFO
  };
  return table;
}

TimingProfile::TimingProfile() {
  for (const auto& p : params()) values_.push_back(p.default_value);
}

int TimingProfile::find(const std::string& name) {
  const auto& table = params();
  for (size_t i = 0; i < table.size(); ++i)
    if (name == table[i].name) return int(i);
  return -1;
}

void TimingProfile::set(const std::string& name, uint64_t value) {
  const int i = find(name);
  if (i < 0) throw std::invalid_argument("unknown timing parameter '" + name + "'");
  const auto& p = params()[size_t(i)];
  if (value < p.min || value > p.max)
    throw std::invalid_argument("timing parameter '" + name + "' = " + std::to_string(value) +
                                " outside " + std::to_string(p.min) + ".." + std::to_string(p.max) +
                                " " + p.unit);
  if ((name == "link.host.width" || name == "link.dsp.width") &&
      !(value == 1 || value == 2 || value == 4 || value == 8 || value == 12 || value == 16 ||
        value == 32))
    throw std::invalid_argument("timing parameter '" + name + "' = " + std::to_string(value) +
                                " is not a PCIe link width (1, 2, 4, 8, 12, 16, 32)");
  values_[size_t(i)] = value;
}

LinkRate link_rate(unsigned gen) {
  switch (gen) {
    case 1: return {2500, 10, 8};
    case 2: return {5000, 10, 8};
    case 3: return {8000, 130, 128};
    case 4: return {16000, 130, 128};
    case 5: return {32000, 130, 128};
    case 6: return {64000, 130, 128};  // modelled with 128b/130b framing, not FLIT mode
  }
  throw std::invalid_argument("PCIe generation " + std::to_string(gen) + " outside 1..6");
}

uint64_t serialisation_ps(uint64_t bytes, unsigned gen, unsigned width) {
  const LinkRate r = link_rate(gen);
  // 1 / (mtps × 10^6 per s) = 10^6 / mtps ps per transfer.
  const unsigned __int128 num = (unsigned __int128)bytes * 8u * r.enc_num * 1000000u;
  const unsigned __int128 den = (unsigned __int128)r.enc_den * r.mtps * width;
  return uint64_t((num + den - 1) / den);
}

}  // namespace dpusim::pcie
