#include "vnet/switch/acg.h"

#include <nlohmann/json.hpp>

#include "device/doc_error.h"
#include "device/doc_json.h"

namespace dpusim::vnet {

using nlohmann::json;
using platform::DocError;

namespace {

// The firmware reports the capacity in a 16-bit field (acg_queue_size is uint16_t).
constexpr uint64_t kMaxAcgCapacity = 65535;

}  // namespace

std::string AcgSpec::describe() const {
  return "acg capacity=" + std::to_string(capacity) + " initial=" + std::to_string(initial) +
         " refill=" + std::to_string(refill ? 1 : 0) + " grants=" + std::to_string(grants.size());
}

AcgSpec parse_firmware_spec(const json& firmware, const std::string& path) {
  AcgSpec spec;
  platform::only_keys(firmware, path, {"acg"});
  if (!firmware.contains("acg")) return spec;
  const std::string p = path + ".acg";
  const json& acg = firmware.at("acg");
  platform::only_keys(acg, p, {"capacity", "initial", "refill", "grants"});
  if (acg.contains("capacity")) spec.capacity = unsigned(platform::uint_at(acg.at("capacity"), p + ".capacity", 0, kMaxAcgCapacity));
  spec.initial = spec.capacity;
  if (acg.contains("initial")) spec.initial = unsigned(platform::uint_at(acg.at("initial"), p + ".initial", 0, kMaxAcgCapacity));
  if (acg.contains("refill")) {
    spec.refill = platform::bool_at(acg.at("refill"), p + ".refill");
  }
  if (acg.contains("grants")) {
    const json& grants = acg.at("grants");
    if (!grants.is_array()) throw DocError(p + ".grants", "must be an array of {\"at_ps\": T, \"count\": N}");
    for (size_t i = 0; i < grants.size(); ++i) {
      const std::string gp = p + ".grants[" + std::to_string(i) + "]";
      platform::only_keys(grants[i], gp, {"at_ps", "count"});
      if (!grants[i].contains("at_ps") || !grants[i].contains("count"))
        throw DocError(gp, "needs both \"at_ps\" and \"count\"");
      AcgGrant g;
      g.at_ps = platform::uint_at(grants[i].at("at_ps"), gp + ".at_ps", 0, uint64_t(1) << 62);
      g.count = unsigned(platform::uint_at(grants[i].at("count"), gp + ".count", 0, kMaxAcgCapacity));
      spec.grants.push_back(g);
    }
  }
  return spec;
}

}  // namespace dpusim::vnet
