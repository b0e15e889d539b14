#include "tlm/timing.h"

#include <algorithm>
#include <stdexcept>
#include <string_view>

namespace dpusim::pcie {

namespace {
std::vector<TimingParamInfo>& registry() {
  static std::vector<TimingParamInfo> table;
  return table;
}
}  // namespace

TimingParam::TimingParam(const TimingParamInfo& info) {
  if (TimingProfile::find(info.name) >= 0)
    throw std::logic_error(std::string("timing parameter '") + info.name + "' declared twice");
  index_ = unsigned(registry().size());
  registry().push_back(info);
}

TimingParam::TimingParam(const TimingParamInfo& info, const ExploreRange& range) : TimingParam(info) {
  registry()[index_].explore = range;
}

const TimingParamInfo& TimingParam::info() const { return registry()[index_]; }

const std::vector<TimingParamInfo>& TimingProfile::params() { return registry(); }

std::vector<TimingParamInfo> TimingProfile::sorted_params() {
  std::vector<TimingParamInfo> v = registry();
  std::sort(v.begin(), v.end(), [](const TimingParamInfo& a, const TimingParamInfo& b) {
    return std::string_view(a.name) < std::string_view(b.name);
  });
  return v;
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

uint64_t TimingProfile::get(const std::string& name) const {
  const int i = find(name);
  if (i < 0) throw std::invalid_argument("unknown timing parameter '" + name + "'");
  return values_[size_t(i)];
}

void TimingProfile::set(const std::string& name, uint64_t value) {
  const int i = find(name);
  if (i < 0) throw std::invalid_argument("unknown timing parameter '" + name + "'");
  const auto& p = params()[size_t(i)];
  if (value < p.min || value > p.max)
    throw std::invalid_argument("timing parameter '" + name + "' = " + std::to_string(value) +
                                " outside " + std::to_string(p.min) + ".." + std::to_string(p.max) +
                                " " + p.unit);
  if (p.accept && !p.accept(value))
    throw std::invalid_argument("timing parameter '" + name + "' = " + std::to_string(value) + " is not " +
                                p.accept_text);
  values_[size_t(i)] = value;
  ++generation_;
}

namespace {
bool is_link_width(uint64_t v) { return v == 1 || v == 2 || v == 4 || v == 8 || v == 12 || v == 16 || v == 32; }
constexpr const char* kLinkWidths = "a PCIe link width (1, 2, 4, 8, 12, 16, 32)";
}  // namespace

namespace timing {
const TimingParam link_host_gen({"link.host.gen", 4, 1, 6, "PCIe generation"});
const TimingParam link_host_width({"link.host.width", 16, 1, 32, "lanes", is_link_width, kLinkWidths});
const TimingParam link_dsp_gen({"link.dsp.gen", 4, 1, 6, "PCIe generation"});
const TimingParam link_dsp_width({"link.dsp.width", 16, 1, 32, "lanes", is_link_width, kLinkWidths});
const TimingParam link_propagation_ps({"link.propagation_ps", 2000, 0, 1000000000, "ps"},
                                      ExploreRange::per_run(50, 200));
const TimingParam link_dllp_share_ppm({"link.dllp_share_ppm", 0, 0, 500000, "ppm"});
const TimingParam cpl_timeout_ps({"cpl_timeout_ps", 50000000000ull, 1, 100000000000000ull, "ps"});
const TimingParam lt_quantum_ps({"lt.quantum_ps", 1000000, 0, 1000000000000ull, "ps"});
}  // namespace timing

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

uint64_t serialisation_ps(uint64_t bytes, unsigned gen, unsigned width, uint64_t dllp_share_ppm) {
  const LinkRate r = link_rate(gen);
  if (dllp_share_ppm) {  // the TLP gets (10^6 - share) / 10^6 of the link's time
    const unsigned __int128 num = (unsigned __int128)bytes * 8u * r.enc_num * 1000000u * 1000000u;
    const unsigned __int128 den = (unsigned __int128)r.enc_den * r.mtps * width * (1000000u - dllp_share_ppm);
    return uint64_t((num + den - 1) / den);
  }
  if (bytes < (uint64_t(1) << 24)) {  // the product fits 64 bits (2^24 · 8 · 130 · 10^6 < 2^64)
    const uint64_t num = bytes * 8u * r.enc_num * 1000000u, den = uint64_t(r.enc_den) * r.mtps * width;
    return (num + den - 1) / den;
  }
  // 1 / (mtps × 10^6 per s) = 10^6 / mtps ps per transfer.
  const unsigned __int128 num = (unsigned __int128)bytes * 8u * r.enc_num * 1000000u;
  const unsigned __int128 den = (unsigned __int128)r.enc_den * r.mtps * width;
  return uint64_t((num + den - 1) / den);
}

}  // namespace dpusim::pcie
