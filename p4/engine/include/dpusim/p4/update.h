// The one update path for every control plane: a record shaped like a P4Runtime Update
// (p4runtime.proto: Update{type, entity: TableEntry}), naming the table and action as the
// program does. The CLI's UPDATES.json, the STF runner, the Python binding and the ionic
// device's guest commands all produce these; the engine validates each against the loaded
// program as P4Runtime's rules require (see Engine::update).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dpusim::p4 {

enum class UpdateType { kInsert, kModify, kDelete, kDefault };

// One key field of a table entry. Every key of the table is listed, in key order; a
// "don't care" ternary or LPM field is written as a zero mask or a zero prefix (P4Runtime
// omits it instead).
struct MatchField {
  std::string field;                 // the key's name as in the JSON
  std::string value;                 // "0x.." or decimal (a range key: its low end)
  std::optional<int> prefix_len;     // LPM keys only
  std::optional<std::string> mask;   // ternary and optional keys only
  std::optional<std::string> high;   // range keys only: the high end (P4Runtime's Range)
};

// A table entry, or (with action_profile set) an action profile member or group, as
// P4Runtime's TableEntry, ActionProfileMember and ActionProfileGroup are. An indirect
// table's entry names a member or a group instead of an action.
struct TableUpdate {
  UpdateType type = UpdateType::kInsert;
  std::string table;
  std::vector<MatchField> match;
  std::optional<std::int64_t> priority;  // higher wins; ternary and range tables only, required there
  std::string action;
  std::vector<std::pair<std::string, std::string>> params;  // name, "0x.." or decimal
  std::string action_profile;            // a member or group update (no table)
  std::optional<std::uint32_t> member;   // member id: of a member update, or named by an entry
  std::optional<std::uint32_t> group;    // group id: of a group update, or named by an entry
  std::vector<std::uint32_t> members;    // a group update's members
};

// Reads UPDATES.json: a list of records
//   {"type": "INSERT"|"MODIFY"|"DELETE", "table": T, "match": [{"field": K, "value": V,
//    "prefix_len": N | "mask": M} | {"field": K, "low": L, "high": H}, ...], "priority": N,
//    "action": A, "params": {P: V}}            (or "member": M | "group": G for indirect tables)
//   {"type": "DEFAULT", "table": T, "action": A, "params": {P: V}}   (or "member" | "group")
//   {"type": "INSERT"|"MODIFY"|"DELETE", "action_profile": AP, "member": M, "action": A, "params": {..}}
//   {"type": "INSERT"|"MODIFY"|"DELETE", "action_profile": AP, "group": G, "members": [M, ...]}
// On a malformed document returns false with *error naming the record and key.
bool parse_updates(std::string_view json, std::vector<TableUpdate>* out, std::string* error);

const char* update_type_name(UpdateType type);

}  // namespace dpusim::p4
