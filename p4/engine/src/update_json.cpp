// UPDATES.json: the CLI's file form of the update record (see update.h).
#include <nlohmann/json.hpp>

#include "dpusim/p4/limits.h"
#include "dpusim/p4/update.h"
#include "dpusim/p4/value.h"
#include "json_cost.h"

namespace dpusim::p4 {

const char* update_type_name(UpdateType type) {
  switch (type) {
    case UpdateType::kInsert: return "INSERT";
    case UpdateType::kModify: return "MODIFY";
    case UpdateType::kDelete: return "DELETE";
    case UpdateType::kDefault: return "DEFAULT";
  }
  return "?";
}

namespace {

using Json = nlohmann::json;

// Values are strings: a 128-bit key is not a JSON number any parser keeps exactly.
bool value_text(const Json& v, std::string* out) {
  if (!v.is_string()) return false;
  *out = v.get<std::string>();
  return true;
}

bool u32_text(const Json& v, std::uint32_t* out) {
  std::string text;
  Value value;
  std::uint64_t n = 0;
  if (!value_text(v, &text) || !parse_number(text, &value) || !value.fits_u64(&n) || n > 0xffffffffu) return false;
  *out = static_cast<std::uint32_t>(n);
  return true;
}

// One record of the document, read field by field; each reader sets *error and returns false
// on the first thing wrong.
struct Record {
  const Json& r;
  std::string where;  // "update 3"
  std::string* error;

  bool fail(const std::string& what) const {
    *error = where + what;
    return false;
  }
  bool str(const char* key, std::string* dst, bool required) const {
    auto it = r.find(key);
    if (it == r.end()) return required ? fail(std::string(" has no '") + key + "'") : true;
    if (!it->is_string()) return fail(std::string(" '") + key + "' is not a string");
    *dst = it->get<std::string>();
    return true;
  }
  bool id(const char* key, std::optional<std::uint32_t>* dst) const {
    auto it = r.find(key);
    if (it == r.end()) return true;
    std::uint32_t n = 0;
    if (!u32_text(*it, &n)) return fail(std::string(" '") + key + "' is not a string holding a 32-bit number");
    *dst = n;
    return true;
  }
  bool type(const std::string& type, UpdateType* out) const {
    if (type == "INSERT") *out = UpdateType::kInsert;
    else if (type == "MODIFY") *out = UpdateType::kModify;
    else if (type == "DELETE") *out = UpdateType::kDelete;
    else if (type == "DEFAULT") *out = UpdateType::kDefault;
    else return fail(" has type '" + type.substr(0, 40) + "', not INSERT, MODIFY, DELETE or DEFAULT");
    return true;
  }
  bool members(std::vector<std::uint32_t>* out) const {
    auto it = r.find("members");
    if (it == r.end()) return true;
    if (!it->is_array()) return fail(" 'members' is not a list");
    for (std::size_t k = 0; k < it->size(); ++k) {
      std::uint32_t n = 0;
      if (!u32_text((*it)[k], &n)) return fail(" member " + std::to_string(k) + " is not a string holding a 32-bit number");
      out->push_back(n);
    }
    return true;
  }
  bool priority(TableUpdate* u) const {
    auto it = r.find("priority");
    if (it == r.end()) return true;
    if (!it->is_number_integer()) return fail(" 'priority' is not an integer");
    if (it->is_number_unsigned() && it->get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
      return fail(" 'priority' is out of range");
    u->priority = it->get<std::int64_t>();
    return true;
  }
  // One match field k: a value, or a range's low and high (P4Runtime's FieldMatch.Range), with
  // an optional prefix length and mask.
  bool match_field(const Json& m, std::size_t k, MatchField* mf) const {
    const std::string mw = " match " + std::to_string(k);
    if (!m.is_object() || !m.contains("field") || !m["field"].is_string()) return fail(mw + " has no 'field' name");
    mf->field = m["field"].get<std::string>();
    if (m.contains("low") || m.contains("high")) {
      std::string high;
      if (!m.contains("low") || !value_text(m["low"], &mf->value) || !m.contains("high") || !value_text(m["high"], &high))
        return fail(mw + " is a range without 'low' and 'high' strings");
      mf->high = high;
    } else if (!m.contains("value") || !value_text(m["value"], &mf->value)) {
      return fail(mw + " has no 'value' string (write numbers as \"0x..\" or decimal strings)");
    }
    if (m.contains("prefix_len")) {
      if (!m["prefix_len"].is_number_integer() || m["prefix_len"].get<std::int64_t>() < 0 ||
          m["prefix_len"].get<std::int64_t>() > P4_MAX_FIELD_BITS)
        return fail(mw + " 'prefix_len' is not an integer in [0, " + std::to_string(P4_MAX_FIELD_BITS) + "]");
      mf->prefix_len = static_cast<int>(m["prefix_len"].get<std::int64_t>());
    }
    if (m.contains("mask")) {
      std::string mask;
      if (!value_text(m["mask"], &mask)) return fail(mw + " 'mask' is not a string");
      mf->mask = mask;
    }
    return true;
  }
  bool match(std::vector<MatchField>* out) const {
    auto it = r.find("match");
    if (it == r.end()) return true;
    if (!it->is_array()) return fail(" 'match' is not a list");
    for (std::size_t k = 0; k < it->size(); ++k) {
      MatchField mf;
      if (!match_field((*it)[k], k, &mf)) return false;
      out->push_back(std::move(mf));
    }
    return true;
  }
  bool params(std::vector<std::pair<std::string, std::string>>* out) const {
    auto it = r.find("params");
    if (it == r.end()) return true;
    if (!it->is_object()) return fail(" 'params' is not an object");
    for (auto p = it->begin(); p != it->end(); ++p) {
      std::string v;
      if (!value_text(p.value(), &v))
        return fail(" parameter '" + p.key().substr(0, 60) + "' is not a string (write numbers as \"0x..\" or decimal strings)");
      out->emplace_back(p.key(), v);
    }
    return true;
  }
  bool read(TableUpdate* u) const {
    if (!r.is_object()) return fail(" is not a JSON object");
    std::string type_text;
    if (!str("type", &type_text, true)) return false;
    // A member or group of an action profile, or a table entry.
    if (!str("action_profile", &u->action_profile, false)) return false;
    if (!str("table", &u->table, u->action_profile.empty())) return false;
    if (!type(type_text, &u->type)) return false;
    if (!id("member", &u->member) || !id("group", &u->group) || !members(&u->members)) return false;
    // An entry of an indirect table names a member or group; a group names members.
    const bool needs_action = u->type != UpdateType::kDelete && !u->member && !u->group;
    return str("action", &u->action, needs_action) && priority(u) && match(&u->match) && params(&u->params);
  }
};

}  // namespace

bool parse_updates(std::string_view text, std::vector<TableUpdate>* out, std::string* error) {
  if (text.size() > P4_MAX_DOCUMENT_BYTES) {
    *error = "updates document is " + std::to_string(text.size()) + " bytes, more than the limit of " + std::to_string(P4_MAX_DOCUMENT_BYTES);
    return false;
  }
  JsonCost cost;
  LoadError le;
  if (!weigh_json(text, P4_JSON_MAX_COST, P4_JSON_MAX_DEPTH, &cost, &le)) {
    *error = le.message;
    return false;
  }
  Json doc = Json::parse(text.begin(), text.end(), nullptr, false);
  if (doc.is_discarded()) {
    *error = "updates document is not valid JSON";
    return false;
  }
  if (!doc.is_array()) {
    *error = "updates document is not a JSON list of records";
    return false;
  }
  for (std::size_t i = 0; i < doc.size(); ++i) {
    TableUpdate u;
    if (!Record{doc[i], "update " + std::to_string(i), error}.read(&u)) return false;
    out->push_back(std::move(u));
  }
  return true;
}

}  // namespace dpusim::p4
