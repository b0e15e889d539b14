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
    const Json& r = doc[i];
    std::string where = "update " + std::to_string(i);
    if (!r.is_object()) {
      *error = where + " is not a JSON object";
      return false;
    }
    TableUpdate u;
    auto str = [&](const char* key, std::string* dst, bool required) {
      auto it = r.find(key);
      if (it == r.end()) {
        if (required) *error = where + " has no '" + key + "'";
        return !required;
      }
      if (!it->is_string()) {
        *error = where + " '" + key + "' is not a string";
        return false;
      }
      *dst = it->get<std::string>();
      return true;
    };
    std::string type;
    if (!str("type", &type, true)) return false;
    // A member or group of an action profile, or a table entry.
    if (!str("action_profile", &u.action_profile, false)) return false;
    if (!str("table", &u.table, u.action_profile.empty())) return false;
    if (type == "INSERT") u.type = UpdateType::kInsert;
    else if (type == "MODIFY") u.type = UpdateType::kModify;
    else if (type == "DELETE") u.type = UpdateType::kDelete;
    else if (type == "DEFAULT") u.type = UpdateType::kDefault;
    else {
      *error = where + " has type '" + type.substr(0, 40) + "', not INSERT, MODIFY, DELETE or DEFAULT";
      return false;
    }
    auto id = [&](const char* key, std::optional<std::uint32_t>* dst) {
      auto it = r.find(key);
      if (it == r.end()) return true;
      std::string text;
      Value v;
      std::uint64_t n = 0;
      if (!value_text(*it, &text) || !parse_number(text, &v) || !v.fits_u64(&n) || n > 0xffffffffu) {
        *error = where + " '" + key + "' is not a string holding a 32-bit number";
        return false;
      }
      *dst = static_cast<std::uint32_t>(n);
      return true;
    };
    if (!id("member", &u.member) || !id("group", &u.group)) return false;
    if (auto it = r.find("members"); it != r.end()) {
      if (!it->is_array()) {
        *error = where + " 'members' is not a list";
        return false;
      }
      for (std::size_t k = 0; k < it->size(); ++k) {
        std::string text;
        Value v;
        std::uint64_t n = 0;
        if (!value_text((*it)[k], &text) || !parse_number(text, &v) || !v.fits_u64(&n) || n > 0xffffffffu) {
          *error = where + " member " + std::to_string(k) + " is not a string holding a 32-bit number";
          return false;
        }
        u.members.push_back(static_cast<std::uint32_t>(n));
      }
    }
    // An entry of an indirect table names a member or group; a group names members.
    bool needs_action = u.type != UpdateType::kDelete && !u.member && !u.group;
    if (!str("action", &u.action, needs_action)) return false;
    if (auto it = r.find("priority"); it != r.end()) {
      if (!it->is_number_integer()) {
        *error = where + " 'priority' is not an integer";
        return false;
      }
      if (it->is_number_unsigned() && it->get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)) {
        *error = where + " 'priority' is out of range";
        return false;
      }
      u.priority = it->get<std::int64_t>();
    }
    if (auto it = r.find("match"); it != r.end()) {
      if (!it->is_array()) {
        *error = where + " 'match' is not a list";
        return false;
      }
      for (std::size_t k = 0; k < it->size(); ++k) {
        const Json& m = (*it)[k];
        std::string mw = where + " match " + std::to_string(k);
        MatchField mf;
        if (!m.is_object() || !m.contains("field") || !m["field"].is_string()) {
          *error = mw + " has no 'field' name";
          return false;
        }
        mf.field = m["field"].get<std::string>();
        if (m.contains("low") || m.contains("high")) {
          // A range (P4Runtime's FieldMatch.Range).
          std::string high;
          if (!m.contains("low") || !value_text(m["low"], &mf.value) || !m.contains("high") || !value_text(m["high"], &high)) {
            *error = mw + " is a range without 'low' and 'high' strings";
            return false;
          }
          mf.high = high;
        } else if (!m.contains("value") || !value_text(m["value"], &mf.value)) {
          *error = mw + " has no 'value' string (write numbers as \"0x..\" or decimal strings)";
          return false;
        }
        if (m.contains("prefix_len")) {
          if (!m["prefix_len"].is_number_integer() || m["prefix_len"].get<std::int64_t>() < 0 ||
              m["prefix_len"].get<std::int64_t>() > P4_MAX_FIELD_BITS) {
            *error = mw + " 'prefix_len' is not an integer in [0, " + std::to_string(P4_MAX_FIELD_BITS) + "]";
            return false;
          }
          mf.prefix_len = static_cast<int>(m["prefix_len"].get<std::int64_t>());
        }
        if (m.contains("mask")) {
          std::string mask;
          if (!value_text(m["mask"], &mask)) {
            *error = mw + " 'mask' is not a string";
            return false;
          }
          mf.mask = mask;
        }
        u.match.push_back(std::move(mf));
      }
    }
    if (auto it = r.find("params"); it != r.end()) {
      if (!it->is_object()) {
        *error = where + " 'params' is not an object";
        return false;
      }
      for (auto p = it->begin(); p != it->end(); ++p) {
        std::string v;
        if (!value_text(p.value(), &v)) {
          *error = where + " parameter '" + p.key().substr(0, 60) + "' is not a string (write numbers as \"0x..\" or decimal strings)";
          return false;
        }
        u.params.emplace_back(p.key(), v);
      }
    }
    out->push_back(std::move(u));
  }
  return true;
}

}  // namespace dpusim::p4
