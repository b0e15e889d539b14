// Reading a platform document's fields with refusals that name the field: the helpers every
// parser of the document shares (the platform's own and each device model's options), so a
// bad value reads the same wherever it is.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <set>
#include <string>

namespace dpusim::platform {

// Refuses a key of `obj` that is not in `known`: "<path>.<key>: unknown key (known: a, b)".
void only_keys(const nlohmann::json& obj, const std::string& path, const std::set<std::string>& known);
// parent[key], which must be an object.
const nlohmann::json& object_at(const nlohmann::json& parent, const std::string& key, const std::string& path);
// An integer in lo..hi ("must not be negative", "must be a non-negative integer, not ...",
// "X outside lo..hi").
uint64_t uint_at(const nlohmann::json& v, const std::string& path, uint64_t lo, uint64_t hi);
// As uint_at, and a power of two.
unsigned pow2_at(const nlohmann::json& v, const std::string& path, unsigned lo, unsigned hi);
// true or false ("must be true or false, not ...").
bool bool_at(const nlohmann::json& v, const std::string& path);
// A string ("must be a string, not ...").
std::string string_at(const nlohmann::json& v, const std::string& path);

}  // namespace dpusim::platform
