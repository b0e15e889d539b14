#include "vnet/acg.h"

#include <nlohmann/json.hpp>

#include "device/doc_error.h"

namespace dpusim::vnet {

using nlohmann::json;
using platform::DocError;

namespace {

// The firmware reports the capacity in a 16-bit field (acg_queue_size is uint16_t).
constexpr uint64_t kMaxAcgCapacity = 65535;

uint64_t unsigned_field(const json& v, const std::string& path, uint64_t max) {
  if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<long long>() >= 0))
    throw DocError(path, "must be a non-negative integer, not " + v.dump());
  const uint64_t x = v.get<uint64_t>();
  if (x > max) throw DocError(path, v.dump() + " is over the maximum of " + std::to_string(max));
  return x;
}

void only(const json& obj, const std::string& path, std::initializer_list<const char*> keys) {
  if (!obj.is_object()) throw DocError(path, "must be an object, not " + std::string(obj.type_name()));
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    bool known = false;
    std::string list;
    for (const char* k : keys) {
      known = known || it.key() == k;
      list += (list.empty() ? "" : ", ") + std::string(k);
    }
    if (!known) throw DocError(path + "." + it.key(), "unknown key (known: " + list + ")");
  }
}

}  // namespace

std::string AcgSpec::describe() const {
  return "acg capacity=" + std::to_string(capacity) + " initial=" + std::to_string(initial) +
         " refill=" + std::to_string(refill ? 1 : 0) + " grants=" + std::to_string(grants.size());
}

AcgSpec parse_firmware_spec(const json& firmware, const std::string& path) {
  AcgSpec spec;
  only(firmware, path, {"acg"});
  if (!firmware.contains("acg")) return spec;
  const std::string p = path + ".acg";
  const json& acg = firmware.at("acg");
  only(acg, p, {"capacity", "initial", "refill", "grants"});
  if (acg.contains("capacity")) spec.capacity = unsigned(unsigned_field(acg.at("capacity"), p + ".capacity", kMaxAcgCapacity));
  spec.initial = spec.capacity;
  if (acg.contains("initial")) spec.initial = unsigned(unsigned_field(acg.at("initial"), p + ".initial", kMaxAcgCapacity));
  if (acg.contains("refill")) {
    if (!acg.at("refill").is_boolean()) throw DocError(p + ".refill", "must be true or false, not " + acg.at("refill").dump());
    spec.refill = acg.at("refill").get<bool>();
  }
  if (acg.contains("grants")) {
    const json& grants = acg.at("grants");
    if (!grants.is_array()) throw DocError(p + ".grants", "must be an array of {\"at_ps\": T, \"count\": N}");
    for (size_t i = 0; i < grants.size(); ++i) {
      const std::string gp = p + ".grants[" + std::to_string(i) + "]";
      only(grants[i], gp, {"at_ps", "count"});
      if (!grants[i].contains("at_ps") || !grants[i].contains("count"))
        throw DocError(gp, "needs both \"at_ps\" and \"count\"");
      AcgGrant g;
      g.at_ps = unsigned_field(grants[i].at("at_ps"), gp + ".at_ps", uint64_t(1) << 62);
      g.count = unsigned(unsigned_field(grants[i].at("count"), gp + ".count", kMaxAcgCapacity));
      spec.grants.push_back(g);
    }
  }
  return spec;
}

}  // namespace dpusim::vnet
