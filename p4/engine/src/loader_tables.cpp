// One table of a pipeline (JSON_format.md "pipelines" > "tables"): its implementation (direct,
// or indirect through an action profile), its keys and the match_type they make it, the key
// layout, its actions and next nodes, its default entry and its constant entries.
#include <algorithm>

#include "dpusim/p4/limits.h"
#include "loader.h"

namespace dpusim::p4 {

int PipelineNodes::ref(const Json* v, int pipeline, const std::string& where) const {
  if (v == nullptr || v->is_null()) return -1;
  if (!v->is_string()) refuse(LoadCode::kSchema, where + ": next node is not a name or null");
  auto it = by_name.find(v->get<std::string>());
  if (it == by_name.end())
    refuse(LoadCode::kDanglingRef, where + " names table or conditional '" + v->get<std::string>() + "', which does not exist");
  if (it->second.second != pipeline) refuse(LoadCode::kDanglingRef, where + " names '" + v->get<std::string>() + "' of another pipeline");
  return it->second.first;
}

// Named apart from the other loader files' helpers, with which a unity batch compiles this.
namespace table_loading {
namespace {

const char* table_match_type_name(TableMatchType t) {
  switch (t) {
    case TableMatchType::kExact: return "exact";
    case TableMatchType::kLpm: return "lpm";
    case TableMatchType::kTernary: return "ternary";
    case TableMatchType::kRange: return "range";
  }
  return "?";
}

// The old format of an indirect table: the table declares its profile (and selector) itself.
int legacy_profile(const TableContext& ctx, const Json& t, const TableInfo& tab, const std::string& where) {
  Program& p = ctx.ex.p;
  ActionProfileInfo ap_info;
  ap_info.name = jf::string(t, "act_prof_name", where);
  jf::check_name(ap_info.name, where + " act_prof_name");
  ap_info.id = tab.id;
  ap_info.max_size = static_cast<std::uint32_t>(jf::integer(t, "max_size", where, 0, INT32_MAX));
  if (tab.impl == TableImpl::kIndirectWs) {
    const Json& sel = jf::member(t, "selector", where);
    ap_info.selector = ctx.calcs.add_calculation(
        ap_info.name + " selector", -1, jf::string(sel, "algo", where + " selector"),
        ctx.calcs.calc_inputs(jf::array(sel, "input", P4_MAX_CALC_INPUTS, where + " selector", false), where + " selector", true),
        where + " selector");
  }
  if (!p.action_profile_by_name.emplace(ap_info.name, static_cast<int>(p.action_profiles.size())).second)
    refuse(LoadCode::kDuplicate, where + ": duplicate action profile name '" + ap_info.name + "'");
  p.action_profiles.push_back(std::move(ap_info));
  return static_cast<int>(p.action_profiles.size() - 1);
}

void implementation(const TableContext& ctx, const Json& t, TableInfo& tab, const std::string& where) {
  Program& p = ctx.ex.p;
  std::string type = jf::find(t, "type") ? jf::string(t, "type", where) : "simple";
  if (type == "indirect" || type == "indirect_ws") {
    tab.impl = type == "indirect" ? TableImpl::kIndirect : TableImpl::kIndirectWs;
    if (const Json* ap = jf::find(t, "action_profile"); ap != nullptr && !ap->is_null()) {
      tab.profile = ctx.ex.named_operand(Json{{"type", "action_profile"}, {"value", *ap}}, "action_profile", p.action_profile_by_name, where);
    } else if (const Json* legacy = jf::find(t, "act_prof_name"); legacy != nullptr && !legacy->is_null()) {
      tab.profile = legacy_profile(ctx, t, tab, where);
    } else {
      refuse(LoadCode::kSchema, where + " is indirect and names no 'action_profile'");
    }
    const ActionProfileInfo& prof = p.action_profiles[static_cast<std::size_t>(tab.profile)];
    if (tab.impl == TableImpl::kIndirectWs && prof.selector < 0)
      refuse(LoadCode::kOperandKind, where + " is indirect_ws but action profile '" + prof.name + "' has no selector");
  } else if (type != "simple") {
    refuse(LoadCode::kSchema, where + " has implementation type '" + type.substr(0, 40) + "'");
  }
  tab.with_counters = jf::boolean(t, "with_counters", where, false);
  tab.support_timeout = jf::boolean(t, "support_timeout", where, false);
  if (const Json* dm = jf::find(t, "direct_meters"); dm != nullptr && !dm->is_null())
    tab.direct_meter = ctx.ex.named_operand(Json{{"type", "meter_array"}, {"value", *dm}}, "meter_array", p.meter_by_name, where + " direct_meters");
}

KeyField key(const TableContext& ctx, const Json& kj, const std::string& where) {
  Program& p = ctx.ex.p;
  KeyField kf;
  std::string kmt = jf::string(kj, "match_type", where + " key");
  const Json& target = jf::member(kj, "target", where + " key");
  if (kmt == "range") kf.kind = MatchKind::kRange;
  else if (kmt == "exact") kf.kind = MatchKind::kExact;
  else if (kmt == "lpm") kf.kind = MatchKind::kLpm;
  else if (kmt == "ternary") kf.kind = MatchKind::kTernary;
  else if (kmt == "optional") kf.kind = MatchKind::kOptional;
  else if (kmt == "valid") kf.kind = MatchKind::kValid;
  else refuse(LoadCode::kSchema, where + " key has match_type '" + kmt + "'");
  std::string tname;
  if (kf.kind == MatchKind::kValid) {
    if (!target.is_string()) refuse(LoadCode::kSchema, where + ": a 'valid' key's target is not a header name");
    kf.header = ctx.ex.header_ref(target.get<std::string>(), where + " key");
    tname = target.get<std::string>() + ".$valid$";
  } else if (target.is_array() && target.size() == 2 && target[1].is_string() && target[0].is_string() &&
             target[1].get<std::string>() == "$valid$") {
    kf.header = ctx.ex.header_ref(target[0].get<std::string>(), where + " key");
    tname = target[0].get<std::string>() + ".$valid$";
  } else {
    kf.field = ctx.ex.field_ref(target, where + " key");
    if (p.fields[kf.field].varbit) refuse(LoadCode::kOperandKind, where + " key '" + p.fields[kf.field].name + "' is a varbit field");
    tname = p.fields[kf.field].name;
  }
  kf.target_name = tname;
  if (const Json* nj = jf::find(kj, "name"); nj != nullptr && !nj->is_null()) {
    if (!nj->is_string()) refuse(LoadCode::kSchema, where + " key name is not a string");
    kf.name = nj->get<std::string>();
    jf::check_name(kf.name, where + " key");
  } else {
    kf.name = tname;
  }
  kf.width = kf.field >= 0 ? p.fields[kf.field].width : 1;
  if (kf.width > P4_MAX_ENTRY_FIELD_BITS)
    refuse(LoadCode::kEntryFieldWidth, where + " key '" + kf.name + "' is " + std::to_string(kf.width) +
                                           " bits; a table entry carries at most " + std::to_string(P4_MAX_ENTRY_FIELD_BITS) +
                                           " bits of a key field");
  kf.nbytes = (kf.width + 7) / 8;
  if (const Json* mj = jf::find(kj, "mask"); mj != nullptr && !mj->is_null()) {
    kf.mask = jf::hexbytes(*mj, kf.nbytes, where + " key '" + kf.name + "' mask");
    // Bits above the field's width cannot be in a byte-padded mask of the field.
    Value m;
    m.set_bytes_be(kf.mask.data(), kf.mask.size());
    if (m.bit_length() > kf.width)
      refuse(LoadCode::kLiteralWidth, where + " key '" + kf.name + "' mask " + m.to_hex() + " is wider than the " +
                                          std::to_string(kf.width) + "-bit field");
  }
  return kf;
}

// The match_type p4c derives from the keys; the lookup goes by it, so they must agree.
void match_type(TableInfo& tab, const std::string& declared, const std::string& where) {
  int lpm = 0, ternary = 0, range = 0;
  for (std::size_t k = 0; k < tab.keys.size(); ++k) {
    if (tab.keys[k].kind == MatchKind::kLpm) {
      ++lpm;
      tab.lpm_key = static_cast<int>(k);
    }
    if (tab.keys[k].kind == MatchKind::kTernary || tab.keys[k].kind == MatchKind::kOptional) ++ternary;
    if (tab.keys[k].kind == MatchKind::kRange) ++range;
  }
  if (lpm > 1) refuse(LoadCode::kMultipleLpm, where + " has " + std::to_string(lpm) + " LPM keys; a table may have one");
  tab.has_range = range > 0;
  tab.match_type = range     ? TableMatchType::kRange
                   : ternary ? TableMatchType::kTernary
                   : lpm     ? TableMatchType::kLpm
                             : TableMatchType::kExact;
  if (declared != table_match_type_name(tab.match_type))
    refuse(LoadCode::kMatchType, where + " has match_type '" + declared + "' but its keys make it '" +
                                     table_match_type_name(tab.match_type) + "'");
}

// Key layout: fields in key order, except that an LPM table puts its LPM field last, so that
// the prefix covers the exact fields and then the LPM field's leading bits.
void key_layout(const Program& p, TableInfo& tab) {
  int off = 0;
  for (std::size_t k = 0; k < tab.keys.size(); ++k)
    if (static_cast<int>(k) != tab.lpm_key || tab.match_type != TableMatchType::kLpm) {
      tab.keys[k].offset = off;
      off += tab.keys[k].nbytes;
    }
  if (tab.match_type == TableMatchType::kLpm) {
    tab.keys[tab.lpm_key].offset = off;
    off += tab.keys[tab.lpm_key].nbytes;
  }
  tab.key_bytes = off;
  for (std::size_t k = 0; k < tab.keys.size(); ++k) tab.key_order.push_back(static_cast<int>(k));
  std::sort(tab.key_order.begin(), tab.key_order.end(),
            [&](int a, int b) { return tab.keys[static_cast<std::size_t>(a)].offset < tab.keys[static_cast<std::size_t>(b)].offset; });
  for (int k : tab.key_order) {
    const KeyField& kf = tab.keys[static_cast<std::size_t>(k)];
    KeyStep s;
    if (kf.field >= 0) {
      s.limb = p.fields[static_cast<std::size_t>(kf.field)].limb;
      s.nlimbs = p.fields[static_cast<std::size_t>(kf.field)].nlimbs;
    }
    s.header = kf.header;
    s.nbytes = kf.nbytes;
    s.offset = kf.offset;
    s.key = k;
    s.masked = !kf.mask.empty();
    tab.key_plan.push_back(s);
  }
}

// The table's actions, by id where p4c gave ids (names repeat across controls), else by name;
// returns name -> action within this table.
std::map<std::string, int> actions(const TableContext& ctx, const Json& t, TableInfo& tab, const std::string& where) {
  const Program& p = ctx.ex.p;
  const Json& anames = jf::array(t, "actions", P4_MAX_ACTIONS, where, false);
  const Json* aids = jf::find(t, "action_ids");
  if (aids != nullptr && !aids->is_null()) {
    jf::check_array(*aids, P4_MAX_ACTIONS, where + " action_ids");
    if (aids->size() != anames.size()) refuse(LoadCode::kSchema, where + ": 'action_ids' and 'actions' differ in length");
  }
  tab.next_by_action.assign(p.actions.size(), -1);
  std::map<std::string, int> table_action;
  for (std::size_t i = 0; i < anames.size(); ++i) {
    if (!anames[i].is_string()) refuse(LoadCode::kSchema, where + ": an action is not a name");
    const std::string an = anames[i].get<std::string>();
    int action = -1;
    if (aids != nullptr && !aids->is_null()) {
      std::int64_t id = jf::as_integer((*aids)[i], where + " action id", 0, INT32_MAX);
      for (std::size_t a = 0; a < p.actions.size() && action < 0; ++a)
        if (p.actions[a].id == id) action = static_cast<int>(a);
      if (action < 0) refuse(LoadCode::kDanglingRef, where + " names action id " + std::to_string(id) + ", which does not exist");
      if (p.actions[action].name != an)
        refuse(LoadCode::kDanglingRef, where + ": action id " + std::to_string(id) + " is '" + p.actions[action].name + "', not '" + an + "'");
    } else {
      auto it = p.action_by_name.find(an);
      if (it == p.action_by_name.end()) refuse(LoadCode::kDanglingRef, where + " names action '" + an + "', which does not exist");
      if (ctx.duplicate_action_names.count(an))
        refuse(LoadCode::kDuplicate, where + " names action '" + an + "', which several actions are called, without action_ids");
      action = it->second;
    }
    if (!table_action.emplace(an, action).second) refuse(LoadCode::kDuplicate, where + " lists action '" + an + "' twice");
    tab.actions.push_back(action);
    tab.data_limbs = std::max(tab.data_limbs, p.actions[action].data_limbs);
  }
  return table_action;
}

void next_nodes(const Json& t, TableInfo& tab, const std::map<std::string, int>& table_action, const PipelineNodes& nodes,
                const std::string& where) {
  tab.base_default_next = nodes.ref(jf::find(t, "base_default_next"), tab.pipeline, where + " base_default_next");
  for (int a : tab.actions) tab.next_by_action[a] = tab.base_default_next;
  const Json& next = jf::member(t, "next_tables", where);
  if (!next.is_object()) refuse(LoadCode::kSchema, where + " 'next_tables' is not an object");
  if (next.contains("__HIT__") || next.contains("__MISS__")) {
    tab.hit_miss = true;
    tab.next_hit = next.contains("__HIT__") ? nodes.ref(&next["__HIT__"], tab.pipeline, where + " __HIT__") : tab.base_default_next;
    tab.next_miss = next.contains("__MISS__") ? nodes.ref(&next["__MISS__"], tab.pipeline, where + " __MISS__") : tab.base_default_next;
  }
  for (auto it = next.begin(); it != next.end(); ++it) {
    if (it.key() == "__HIT__" || it.key() == "__MISS__") continue;
    auto a = table_action.find(it.key());
    if (a == table_action.end())
      refuse(LoadCode::kDanglingRef, where + " next_tables names '" + it.key() + "', which is not one of its actions");
    tab.next_by_action[a->second] = nodes.ref(&it.value(), tab.pipeline, where + " next_tables '" + it.key() + "'");
  }
}

// The table's action whose id is `aid`, refused (naming `what`) when it is not one of them.
int action_of_id(const Program& p, const TableInfo& tab, std::int64_t aid, const std::string& what) {
  int action = -1;
  for (int a : tab.actions)
    if (p.actions[a].id == aid) action = a;
  if (action < 0) refuse(LoadCode::kDanglingRef, what + " names action id " + std::to_string(aid) + ", which is not one of the table's actions");
  return action;
}

void default_entry(const TableContext& ctx, const Json& de, TableInfo& tab, const std::string& where) {
  const Program& p = ctx.ex.p;
  std::string dw = where + " default_entry";
  const int action = action_of_id(p, tab, jf::integer(de, "action_id", dw, 0, INT32_MAX), dw);
  tab.default_entry.present = true;
  tab.default_entry.action = action;
  tab.default_entry.action_const = jf::boolean(de, "action_const", dw, false);
  const Json* ad = jf::find(de, "action_data");
  if (ad == nullptr || ad->is_null()) {
    if (!p.actions[action].params.empty())
      refuse(LoadCode::kSchema, dw + " gives no data for the parameters of '" + p.actions[action].name + "'");
    tab.default_entry.data.assign(static_cast<std::size_t>(p.actions[action].data_limbs), 0);
  } else {
    tab.default_entry.data = action_data(ctx.ex.p, *ad, action, dw);
    tab.default_entry.entry_const = jf::boolean(de, "action_entry_const", dw, false);
  }
}

// One key field of a constant entry into its key, mask (and range end) bytes.
void const_key(const Json& mk, const KeyField& kf, const TableInfo& tab, ConstEntry& ce, const std::string& ew) {
  std::string kw = ew + " key '" + kf.name + "'";
  std::string kmt = jf::string(mk, "match_type", kw);
  Value v = kf.kind == MatchKind::kValid ? Value::of(jf::boolean(mk, "key", kw, false) ? 1 : 0)
            : kmt == "range"             ? Value::zero()
                                         : jf::hexstr_fitting(jf::member(mk, "key", kw), kf.width, kw);
  v.get_bytes_be(&ce.key[kf.offset], static_cast<std::size_t>(kf.nbytes));
  Value m = Value::ones(kf.width);
  if (kmt == "ternary") {
    m = jf::hexstr_fitting(jf::member(mk, "mask", kw), kf.width, kw + " mask");
  } else if (kmt == "lpm") {
    ce.prefix_len = static_cast<int>(jf::integer(mk, "prefix_length", kw, 0, kf.width));
  } else if (kmt == "optional") {
    if (const Json* mj = jf::find(mk, "mask"); mj != nullptr && !mj->is_null()) m = jf::hexstr_fitting(*mj, kf.width, kw + " mask");
  } else if (kmt == "range") {
    // The start is the key; the end goes beside it (the mask stays all ones).
    if (ce.high.empty()) ce.high.assign(static_cast<std::size_t>(tab.key_bytes), 0);
    Value end = jf::hexstr_fitting(jf::member(mk, "end", kw), kf.width, kw + " end");
    v = jf::hexstr_fitting(jf::member(mk, "start", kw), kf.width, kw + " start");
    v.get_bytes_be(&ce.key[kf.offset], static_cast<std::size_t>(kf.nbytes));
    end.get_bytes_be(&ce.high[kf.offset], static_cast<std::size_t>(kf.nbytes));
  }
  m.get_bytes_be(&ce.mask[kf.offset], static_cast<std::size_t>(kf.nbytes));
}

ConstEntry const_entry(const TableContext& ctx, const Json& e, std::size_t i, const TableInfo& tab, const std::string& where) {
  std::string ew = where + " entry " + std::to_string(i);
  ConstEntry ce;
  ce.key.assign(static_cast<std::size_t>(tab.key_bytes), 0);
  ce.mask.assign(static_cast<std::size_t>(tab.key_bytes), 0);
  const Json& mk = jf::array(e, "match_key", P4_MAX_KEY_FIELDS, ew, false);
  if (mk.size() != tab.keys.size())
    refuse(LoadCode::kTableEntries, ew + " has " + std::to_string(mk.size()) + " match fields; the table has " +
                                        std::to_string(tab.keys.size()) + " keys");
  for (std::size_t k = 0; k < mk.size(); ++k) const_key(mk[k], tab.keys[k], tab, ce, ew);
  const Json& ae = jf::member(e, "action_entry", ew);
  ce.action = action_of_id(ctx.ex.p, tab, jf::integer(ae, "action_id", ew, 0, INT32_MAX), ew);
  ce.data = action_data(ctx.ex.p, jf::array(ae, "action_data", P4_MAX_ACTION_PARAMS, ew), ce.action, ew);
  // bmv2 ranks a lower number higher; this engine, like P4Runtime, the other way.
  std::int64_t prio = jf::find(e, "priority") ? jf::integer(e, "priority", ew, 0, INT32_MAX - 1) : static_cast<std::int64_t>(i);
  ce.priority = static_cast<int>(INT32_MAX - prio);
  return ce;
}

void const_entries(const TableContext& ctx, const Json& ej, TableInfo& tab, const std::string& where) {
  jf::check_array(ej, P4_MAX_CONST_ENTRIES, where + " 'entries'");
  // bmv2 makes a table with an 'entries' key immutable and sizes it by that list, so an empty
  // list is a table that can never hold an entry: refused, not loaded inert.
  if (ej.empty()) refuse(LoadCode::kTableEntries, where + " has an empty 'entries' list: an immutable table that can never match");
  tab.immutable = true;
  for (std::size_t i = 0; i < ej.size(); ++i) tab.const_entries.push_back(const_entry(ctx, ej[i], i, tab, where));
}

}  // namespace
}  // namespace table_loading

void load_table(const TableContext& ctx, const Json& t, TableInfo& tab, const PipelineNodes& nodes, std::uint64_t* budget) {
  using namespace table_loading;
  const std::string where = "table '" + tab.name + "'";
  implementation(ctx, t, tab, where);
  const std::string declared = jf::string(t, "match_type", where);
  for (const Json& kj : jf::array(t, "key", P4_MAX_KEY_FIELDS, where)) tab.keys.push_back(key(ctx, kj, where));
  match_type(tab, declared, where);
  key_layout(ctx.ex.p, tab);
  std::int64_t max_size = jf::integer(t, "max_size", where, 0, INT64_MAX);
  *budget += static_cast<std::uint64_t>(max_size);
  if (*budget > P4_MAX_TABLE_ENTRIES_TOTAL)
    refuse(LoadCode::kEntryBudget, where + ": tables ask for " + std::to_string(*budget) +
                                       " entries in all, more than the budget of " + std::to_string(P4_MAX_TABLE_ENTRIES_TOTAL));
  tab.max_size = static_cast<std::uint32_t>(max_size);
  next_nodes(t, tab, actions(ctx, t, tab, where), nodes, where);
  if (const Json* de = jf::find(t, "default_entry"); de != nullptr && !de->is_null()) default_entry(ctx, *de, tab, where);
  if (const Json* ej = jf::find(t, "entries"); ej != nullptr && !ej->is_null()) const_entries(ctx, *ej, tab, where);
}

}  // namespace dpusim::p4
