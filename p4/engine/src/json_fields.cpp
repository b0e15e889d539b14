// The typed JSON field accessors of json_fields.h.
#include <cstdio>
#include <limits>

#include "dpusim/p4/limits.h"
#include "json_fields.h"

namespace dpusim::p4 {

void refuse(LoadCode code, const std::string& message) { throw Refusal{{code, message}}; }

void refuse_feature(const std::string& feature, const std::string& where) {
  refuse(LoadCode::kUnsupported, where + ": '" + feature + "' is not supported yet");
}

namespace jf {
namespace {

std::string type_name(const Json& v) { return v.type_name(); }

}  // namespace

const Json* find(const Json& obj, const char* key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

const Json& member(const Json& obj, const char* key, const std::string& where) {
  if (!obj.is_object()) refuse(LoadCode::kSchema, where + " is a JSON " + type_name(obj) + ", not an object");
  const Json* v = find(obj, key);
  if (v == nullptr) refuse(LoadCode::kSchema, where + " has no '" + key + "'");
  return *v;
}

void check_array(const Json& arr, std::size_t limit, const std::string& what) {
  if (!arr.is_array()) refuse(LoadCode::kSchema, what + " is a JSON " + type_name(arr) + ", not an array");
  if (arr.size() > limit)
    refuse(LoadCode::kArraySize, what + " has " + std::to_string(arr.size()) +
                                     " entries, more than the limit of " + std::to_string(limit));
}

const Json& array(const Json& obj, const char* key, std::size_t limit,
                          const std::string& where, bool optional) {
  static const Json empty = Json::array();
  const Json* v = find(obj, key);
  if (v == nullptr || v->is_null()) {
    if (optional) return empty;
    refuse(LoadCode::kSchema, where + " has no '" + key + "'");
  }
  check_array(*v, limit, where + " '" + key + "'");
  return *v;
}

void check_name(const std::string& name, const std::string& where) {
  if (name.empty()) refuse(LoadCode::kBadName, where + ": empty name");
  if (name.size() > P4_MAX_NAME_BYTES)
    refuse(LoadCode::kBadName, where + ": name of " + std::to_string(name.size()) +
                                   " bytes exceeds the limit of " + std::to_string(P4_MAX_NAME_BYTES));
  for (unsigned char c : name) {
    // A name reaches log lines and error messages: a newline or escape in it would forge
    // or hide a line.
    if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "0x%02x", c);
      refuse(LoadCode::kBadName, where + ": name holds control character " + buf);
    }
  }
}

std::string string(const Json& obj, const char* key, const std::string& where) {
  const Json& v = member(obj, key, where);
  if (!v.is_string()) refuse(LoadCode::kSchema, where + " '" + key + "' is a JSON " + type_name(v) + ", not a string");
  return v.get<std::string>();
}

std::string name(const Json& obj, const std::string& where) {
  std::string n = string(obj, "name", where);
  check_name(n, where);
  return n;
}

std::int64_t as_integer(const Json& v, const std::string& what, std::int64_t min,
                                std::int64_t max) {
  if (v.is_number_float())
    refuse(LoadCode::kBadWidth, what + " is the floating-point number " + v.dump() + ", not an integer");
  std::int64_t x;
  if (v.is_number_unsigned()) {
    auto u = v.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      refuse(LoadCode::kBadValue, what + " " + v.dump() + " is out of range [" +
                                      std::to_string(min) + ", " + std::to_string(max) + "]");
    x = static_cast<std::int64_t>(u);
  } else if (v.is_number_integer()) {
    x = v.get<std::int64_t>();
  } else {
    refuse(LoadCode::kSchema, what + " is a JSON " + type_name(v) + ", not an integer");
  }
  if (x < min || x > max)
    refuse(LoadCode::kBadValue, what + " " + std::to_string(x) + " is out of range [" +
                                    std::to_string(min) + ", " + std::to_string(max) + "]");
  return x;
}

std::int64_t integer(const Json& obj, const char* key, const std::string& where,
                             std::int64_t min, std::int64_t max) {
  return as_integer(member(obj, key, where), where + " '" + key + "'", min, max);
}

Identity identify(const Json& obj, const std::string& kind, std::set<std::int64_t>* ids,
                                  std::map<std::string, int>* names, int index) {
  Identity out;
  out.name = name(obj, kind);
  out.where = kind + " '" + out.name + "'";
  out.id = static_cast<int>(integer(obj, "id", out.where, 0, INT32_MAX));
  if (!ids->insert(out.id).second) refuse(LoadCode::kDuplicate, out.where + ": duplicate " + kind + " id " + std::to_string(out.id));
  if (names != nullptr && !names->emplace(out.name, index).second)
    refuse(LoadCode::kDuplicate, "duplicate " + kind + " name '" + out.name + "'");
  return out;
}

bool boolean(const Json& obj, const char* key, const std::string& where, bool dflt) {
  const Json* v = find(obj, key);
  if (v == nullptr || v->is_null()) return dflt;
  if (!v->is_boolean()) refuse(LoadCode::kSchema, where + " '" + key + "' is a JSON " + type_name(*v) + ", not a boolean");
  return v->get<bool>();
}

Value hexstr(const Json& v, const std::string& where) {
  if (!v.is_string()) refuse(LoadCode::kSchema, where + ": literal is a JSON " + type_name(v) + ", not a hexstr");
  const std::string& text = v.get_ref<const std::string&>();
  Value out;
  bool negative = false;
  if (!parse_hexstr(text, &out, &negative)) {
    std::size_t start = !text.empty() && text[0] == '-' ? 1 : 0;
    if (text.size() > start + 2 && text[start] == '0' && (text[start + 1] == 'x' || text[start + 1] == 'X')) {
      std::size_t digits = text.size() - start - 2;
      bool all_hex = text.find_first_not_of("0123456789abcdefABCDEF", start + 2) == std::string::npos;
      if (all_hex && digits > 0)
        refuse(LoadCode::kValueWidth, where + ": literal " + text.substr(0, 40) +
                                          (text.size() > 40 ? "..." : "") + " is wider than " +
                                          std::to_string(P4_MAX_FIELD_BITS) + " bits");
    }
    refuse(LoadCode::kBadValue, where + ": '" + text.substr(0, 40) + "' is not a hexstr");
  }
  // A negative literal is carried in two's complement; a write truncates it to the
  // destination's width, as bmv2 does.
  if (negative) value_neg(out, out);
  return out;
}

bool literal_fits(const Value& v, int width) {
  if (!v.is_negative()) return v.bit_length() <= width;
  Value magnitude;
  value_neg(magnitude, v);
  return magnitude.bit_length() <= width;
}

Value hexstr_fitting(const Json& v, int width, const std::string& where) {
  Value out = hexstr(v, where);
  if (!literal_fits(out, width))
    refuse(LoadCode::kLiteralWidth, where + ": literal " + out.to_hex() + " is wider than its " +
                                        std::to_string(width) + "-bit field");
  out.truncate(width);  // a negative value as its two's complement bits
  return out;
}

std::vector<std::uint8_t> hexbytes(const Json& v, int nbytes, const std::string& where) {
  Value val = hexstr(v, where);
  if (!literal_fits(val, nbytes * 8))
    refuse(LoadCode::kLiteralWidth, where + ": " + val.to_hex() + " is wider than its " +
                                        std::to_string(nbytes) + "-byte key");
  std::vector<std::uint8_t> out(static_cast<std::size_t>(nbytes));
  val.get_bytes_be(out.data(), out.size());
  return out;
}

}  // namespace jf
}  // namespace dpusim::p4
