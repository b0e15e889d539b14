#include "device/doc_json.h"

#include <nlohmann/json.hpp>

#include "device/doc_error.h"

namespace dpusim::platform {

using nlohmann::json;

void only_keys(const json& obj, const std::string& path, const std::set<std::string>& known) {
  if (!obj.is_object()) throw DocError(path, "must be an object, not " + std::string(obj.type_name()));
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    if (!known.count(it.key())) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      throw DocError(path + "." + it.key(), "unknown key (known: " + list + ")");
    }
  }
}

const json& object_at(const json& parent, const std::string& key, const std::string& path) {
  const json& v = parent.at(key);
  if (!v.is_object()) throw DocError(path + "." + key, "must be an object, not " + std::string(v.type_name()));
  return v;
}

uint64_t uint_at(const json& v, const std::string& path, uint64_t lo, uint64_t hi) {
  if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<int64_t>() >= 0)) {
    if (v.is_number_integer()) throw DocError(path, "must not be negative (got " + v.dump() + ")");
    throw DocError(path, "must be a non-negative integer, not " + std::string(v.type_name()) + " " + v.dump());
  }
  const uint64_t x = v.get<uint64_t>();
  if (x < lo || x > hi)
    throw DocError(path, std::to_string(x) + " outside " + std::to_string(lo) + ".." + std::to_string(hi));
  return x;
}

unsigned pow2_at(const json& v, const std::string& path, unsigned lo, unsigned hi) {
  const unsigned x = unsigned(uint_at(v, path, lo, hi));
  if (x & (x - 1)) throw DocError(path, std::to_string(x) + " is not a power of two");
  return x;
}

bool bool_at(const json& v, const std::string& path) {
  if (!v.is_boolean()) throw DocError(path, "must be true or false, not " + v.dump());
  return v.get<bool>();
}

std::string string_at(const json& v, const std::string& path) {
  if (!v.is_string()) throw DocError(path, "must be a string, not " + std::string(v.type_name()) + " " + v.dump());
  return v.get<std::string>();
}

}  // namespace dpusim::platform
