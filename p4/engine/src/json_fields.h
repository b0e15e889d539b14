// Typed access to the fields of a bmv2 JSON document (JSON_format.md), shared by every
// section loader. Each accessor checks the JSON type it expects and refuses with the object,
// the key and the value it was reading, so no malformed document reaches a nlohmann exception
// or a default value. A refusal is thrown as a Refusal and caught once, by load_program.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dpusim/p4/errors.h"
#include "program.h"

namespace dpusim::p4 {

using Json = nlohmann::json;

struct Refusal {
  LoadError error;
};

[[noreturn]] void refuse(LoadCode code, const std::string& message);
// "'<feature>' is not supported yet" with the object that uses it.
[[noreturn]] void refuse_feature(const std::string& feature, const std::string& where);

// jf: "JSON field". `where` names the object being read, for the refusal's message.
namespace jf {

const Json* find(const Json& obj, const char* key);
const Json& member(const Json& obj, const char* key, const std::string& where);
// An array member (missing or null reads as empty when `optional`), checked against limit.
const Json& array(const Json& obj, const char* key, std::size_t limit, const std::string& where,
                  bool optional = true);
void check_array(const Json& arr, std::size_t limit, const std::string& what);
std::string string(const Json& obj, const char* key, const std::string& where);
std::string name(const Json& obj, const std::string& where);  // "name", checked
void check_name(const std::string& name, const std::string& where);
std::int64_t integer(const Json& obj, const char* key, const std::string& where, std::int64_t min,
                     std::int64_t max);
std::int64_t as_integer(const Json& v, const std::string& what, std::int64_t min, std::int64_t max);
bool boolean(const Json& obj, const char* key, const std::string& where, bool dflt);

// An object's "name" and "id", each refused when it repeats one of its kind (`names` may be
// null where bmv2 lets names repeat). Returns the id; `where` names the object.
struct Identity {
  std::string name, where;
  int id;
};
Identity identify(const Json& obj, const std::string& kind, std::set<std::int64_t>* ids,
                  std::map<std::string, int>* names, int index);

// bmv2 hexstr, negative ones in two's complement; one wider than P4_MAX_FIELD_BITS is not a
// value this engine can carry.
Value hexstr(const Json& v, const std::string& where);
// Whether a literal can be written to a field of `width` bits without losing bits (a negative
// one: its magnitude).
bool literal_fits(const Value& v, int width);
// A hexstr that must fit `width` bits ("literal wider than its field"), as its `width` low bits.
Value hexstr_fitting(const Json& v, int width, const std::string& where);
// A byte string of exactly nbytes (transition values and masks, key masks).
std::vector<std::uint8_t> hexbytes(const Json& v, int nbytes, const std::string& where);

}  // namespace jf
}  // namespace dpusim::p4
