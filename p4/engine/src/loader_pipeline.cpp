// Pipelines: tables and conditionals (JSON_format.md "pipelines"), the check that each
// table's match_type is the one its keys make it, the entry budget and the cycle check.
#include <algorithm>
#include <set>

#include "dpusim/p4/limits.h"
#include "loader.h"

namespace dpusim::p4 {

namespace {

const char* match_type_name(TableMatchType t) {
  switch (t) {
    case TableMatchType::kExact: return "exact";
    case TableMatchType::kLpm: return "lpm";
    case TableMatchType::kTernary: return "ternary";
    case TableMatchType::kRange: return "range";
  }
  return "?";
}

}  // namespace

std::vector<std::uint64_t> Loader::action_data(const Json& arr, int action, const std::string& where) {
  const ActionInfo& a = p_.actions[action];
  check_array(arr, P4_MAX_ACTION_PARAMS, where + " action_data");
  if (arr.size() != a.params.size())
    refuse(LoadCode::kSchema, where + " gives " + std::to_string(arr.size()) + " arguments to action '" + a.name +
                                  "', which takes " + std::to_string(a.params.size()));
  std::vector<std::uint64_t> data(static_cast<std::size_t>(a.data_limbs), 0);
  for (std::size_t i = 0; i < arr.size(); ++i) {
    const ActionParam& prm = a.params[i];
    Value v = hexstr_fitting(arr[i], prm.width, where + " argument '" + prm.name + "'");
    for (int l = 0; l < prm.nlimbs; ++l) data[prm.limb + l] = v.w[l];
  }
  return data;
}

void Loader::load_action_profiles(const Json& pipeline, const std::string& where) {
  for (const Json& aj : array(pipeline, "action_profiles", P4_MAX_TABLES, where)) {
    Identity me = identify(aj, "action profile", &action_profile_ids_, &p_.action_profile_by_name,
                           static_cast<int>(p_.action_profiles.size()));
    ActionProfileInfo ap;
    ap.name = me.name;
    ap.id = me.id;
    ap.max_size = static_cast<std::uint32_t>(integer(aj, "max_size", me.where, 0, INT32_MAX));
    if (const Json* sel = find(aj, "selector"); sel != nullptr && !sel->is_null())
      ap.selector = add_calculation(me.name + " selector", -1, string(*sel, "algo", me.where + " selector"),
                                    calc_inputs(array(*sel, "input", P4_MAX_CALC_INPUTS, me.where + " selector", false),
                                                me.where + " selector", true),
                                    me.where + " selector");
    p_.action_profiles.push_back(std::move(ap));
  }
}

void Loader::load_pipelines() {
  const Json& pipes = array(doc_, "pipelines", 64, "program");
  const Json* pj[2] = {nullptr, nullptr};
  std::string unused;  // pipelines simple_switch does not run
  for (const Json& pl : pipes) {
    std::string n = name(pl, "pipeline");
    if (n == "ingress") pj[0] = &pl;
    else if (n == "egress") pj[1] = &pl;
    else unused += (unused.empty() ? "; not run: '" : ", '") + n + "'";
  }
  // A missing pipeline is recorded and read as an empty one, so the rest of the program is
  // still checked; Engine::load then refuses the program (check_v1model).
  static const Json kEmpty = {{"init_table", nullptr}};
  for (int pi = 0; pi < 2; ++pi) {
    if (pj[pi] != nullptr) continue;
    pj[pi] = &kEmpty;
    p_.not_v1model.emplace_back(LoadCode::kDanglingRef,
                                std::string("program has no pipeline named '") + (pi == 0 ? "ingress" : "egress") +
                                    "' (simple_switch runs that one" + unused + ")");
  }

  // Pass 1: every node name, in one namespace across pipelines (as in bmv2, where a next
  // table and a table update reach only the first of a name).
  std::map<std::string, std::pair<int, int>> node_by_name;  // name -> (node, pipeline)
  std::set<std::int64_t> table_ids, cond_ids;
  std::vector<std::pair<const Json*, int>> table_json, cond_json;
  for (int pi = 0; pi < 2; ++pi) {
    std::string pw = pi == 0 ? "pipeline 'ingress'" : "pipeline 'egress'";
    load_action_profiles(*pj[pi], pw);
    if (!array(*pj[pi], "action_calls", P4_MAX_TABLES, pw).empty()) refuse_feature("action_calls", pw);
    for (const Json& t : array(*pj[pi], "tables", P4_MAX_TABLES, pw)) {
      TableInfo ti;
      Identity me = identify(t, "table", &table_ids, nullptr, 0);
      ti.name = me.name;
      ti.id = me.id;
      ti.pipeline = pi;
      if (p_.tables.size() >= P4_MAX_TABLES) refuse(LoadCode::kArraySize, "program has more than " + std::to_string(P4_MAX_TABLES) + " tables");
      p_.tables.push_back(std::move(ti));
      table_json.emplace_back(&t, pi);
    }
    for (const Json& c : array(*pj[pi], "conditionals", P4_MAX_CONDITIONALS, pw)) {
      ConditionalInfo ci;
      Identity me = identify(c, "conditional", &cond_ids, nullptr, 0);
      ci.name = me.name;
      ci.id = me.id;
      ci.pipeline = pi;
      if (p_.conditionals.size() >= P4_MAX_CONDITIONALS)
        refuse(LoadCode::kArraySize, "program has more than " + std::to_string(P4_MAX_CONDITIONALS) + " conditionals");
      p_.conditionals.push_back(std::move(ci));
      cond_json.emplace_back(&c, pi);
    }
  }
  for (std::size_t i = 0; i < p_.tables.size(); ++i) {
    if (!node_by_name.emplace(p_.tables[i].name, std::make_pair(static_cast<int>(i), p_.tables[i].pipeline)).second)
      refuse(LoadCode::kDuplicate, "duplicate table or conditional name '" + p_.tables[i].name + "'");
    p_.table_by_name[p_.tables[i].name] = static_cast<int>(i);
  }
  for (std::size_t i = 0; i < p_.conditionals.size(); ++i) {
    if (!node_by_name.emplace(p_.conditionals[i].name,
                              std::make_pair(p_.conditional_node(static_cast<int>(i)), p_.conditionals[i].pipeline)).second)
      refuse(LoadCode::kDuplicate, "duplicate table or conditional name '" + p_.conditionals[i].name + "'");
    p_.conditional_by_name[p_.conditionals[i].name] = static_cast<int>(i);
  }
  auto node_ref = [&](const Json* v, int pipeline, const std::string& where) {
    if (v == nullptr || v->is_null()) return -1;
    if (!v->is_string()) refuse(LoadCode::kSchema, where + ": next node is not a name or null");
    auto it = node_by_name.find(v->get<std::string>());
    if (it == node_by_name.end())
      refuse(LoadCode::kDanglingRef, where + " names table or conditional '" + v->get<std::string>() + "', which does not exist");
    if (it->second.second != pipeline)
      refuse(LoadCode::kDanglingRef, where + " names '" + v->get<std::string>() + "' of another pipeline");
    return it->second.first;
  };
  p_.ingress.name = "ingress";
  p_.ingress.init_node = node_ref(find(*pj[0], "init_table"), 0, "pipeline 'ingress' init_table");
  p_.egress.name = "egress";
  p_.egress.init_node = node_ref(find(*pj[1], "init_table"), 1, "pipeline 'egress' init_table");

  // Pass 2: tables.
  std::uint64_t budget = 0;
  for (std::size_t ti = 0; ti < p_.tables.size(); ++ti) {
    const Json& t = *table_json[ti].first;
    TableInfo& tab = p_.tables[ti];
    std::string where = "table '" + tab.name + "'";
    std::string type = find(t, "type") ? string(t, "type", where) : "simple";
    if (type == "indirect" || type == "indirect_ws") {
      tab.impl = type == "indirect" ? TableImpl::kIndirect : TableImpl::kIndirectWs;
      if (const Json* ap = find(t, "action_profile"); ap != nullptr && !ap->is_null()) {
        tab.profile = named_operand(Json{{"type", "action_profile"}, {"value", *ap}}, "action_profile", p_.action_profile_by_name, where);
      } else if (const Json* legacy = find(t, "act_prof_name"); legacy != nullptr && !legacy->is_null()) {
        // The old format: the table declares its profile (and selector) itself.
        ActionProfileInfo ap_info;
        ap_info.name = string(t, "act_prof_name", where);
        check_name(ap_info.name, where + " act_prof_name");
        ap_info.id = tab.id;
        ap_info.max_size = static_cast<std::uint32_t>(integer(t, "max_size", where, 0, INT32_MAX));
        if (tab.impl == TableImpl::kIndirectWs) {
          const Json& sel = member(t, "selector", where);
          ap_info.selector = add_calculation(ap_info.name + " selector", -1, string(sel, "algo", where + " selector"),
                                             calc_inputs(array(sel, "input", P4_MAX_CALC_INPUTS, where + " selector", false), where + " selector", true),
                                             where + " selector");
        }
        if (!p_.action_profile_by_name.emplace(ap_info.name, static_cast<int>(p_.action_profiles.size())).second)
          refuse(LoadCode::kDuplicate, where + ": duplicate action profile name '" + ap_info.name + "'");
        tab.profile = static_cast<int>(p_.action_profiles.size());
        p_.action_profiles.push_back(std::move(ap_info));
      } else {
        refuse(LoadCode::kSchema, where + " is indirect and names no 'action_profile'");
      }
      const ActionProfileInfo& prof = p_.action_profiles[static_cast<std::size_t>(tab.profile)];
      if (tab.impl == TableImpl::kIndirectWs && prof.selector < 0)
        refuse(LoadCode::kOperandKind, where + " is indirect_ws but action profile '" + prof.name + "' has no selector");
    } else if (type != "simple") {
      refuse(LoadCode::kSchema, where + " has implementation type '" + type.substr(0, 40) + "'");
    }
    tab.with_counters = boolean(t, "with_counters", where, false);
    tab.support_timeout = boolean(t, "support_timeout", where, false);
    if (const Json* dm = find(t, "direct_meters"); dm != nullptr && !dm->is_null()) {
      tab.direct_meter = named_operand(Json{{"type", "meter_array"}, {"value", *dm}}, "meter_array", p_.meter_by_name, where + " direct_meters");
    }
    std::string mt = string(t, "match_type", where);
    for (const Json& kj : array(t, "key", P4_MAX_KEY_FIELDS, where)) {
      KeyField kf;
      std::string kmt = string(kj, "match_type", where + " key");
      const Json& target = member(kj, "target", where + " key");
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
        kf.header = header_ref(target.get<std::string>(), where + " key");
        tname = target.get<std::string>() + ".$valid$";
      } else if (target.is_array() && target.size() == 2 && target[1].is_string() && target[0].is_string() &&
                 target[1].get<std::string>() == "$valid$") {
        kf.header = header_ref(target[0].get<std::string>(), where + " key");
        tname = target[0].get<std::string>() + ".$valid$";
      } else {
        kf.field = field_ref(target, where + " key");
        if (p_.fields[kf.field].varbit) refuse(LoadCode::kOperandKind, where + " key '" + p_.fields[kf.field].name + "' is a varbit field");
        tname = p_.fields[kf.field].name;
      }
      kf.target_name = tname;
      if (const Json* nj = find(kj, "name"); nj != nullptr && !nj->is_null()) {
        if (!nj->is_string()) refuse(LoadCode::kSchema, where + " key name is not a string");
        kf.name = nj->get<std::string>();
        check_name(kf.name, where + " key");
      } else {
        kf.name = tname;
      }
      kf.width = kf.field >= 0 ? p_.fields[kf.field].width : 1;
      if (kf.width > P4_MAX_ENTRY_FIELD_BITS)
        refuse(LoadCode::kEntryFieldWidth, where + " key '" + kf.name + "' is " + std::to_string(kf.width) +
                                               " bits; a table entry carries at most " + std::to_string(P4_MAX_ENTRY_FIELD_BITS) +
                                               " bits of a key field");
      kf.nbytes = (kf.width + 7) / 8;
      if (const Json* mj = find(kj, "mask"); mj != nullptr && !mj->is_null()) {
        kf.mask = hexbytes(*mj, kf.nbytes, where + " key '" + kf.name + "' mask");
        // Bits above the field's width cannot be in a byte-padded mask of the field.
        Value m;
        m.set_bytes_be(kf.mask.data(), kf.mask.size());
        if (m.bit_length() > kf.width)
          refuse(LoadCode::kLiteralWidth, where + " key '" + kf.name + "' mask " + m.to_hex() + " is wider than the " +
                                              std::to_string(kf.width) + "-bit field");
      }
      tab.keys.push_back(std::move(kf));
    }
    // The match_type p4c derives from the keys; the lookup goes by it, so they must agree.
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
    if (mt != match_type_name(tab.match_type))
      refuse(LoadCode::kMatchType, where + " has match_type '" + mt + "' but its keys make it '" +
                                       match_type_name(tab.match_type) + "'");
    // Key layout: fields in key order, except that an LPM table puts its LPM field last,
    // so that the prefix covers the exact fields and then the LPM field's leading bits.
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
        s.limb = p_.fields[static_cast<std::size_t>(kf.field)].limb;
        s.nlimbs = p_.fields[static_cast<std::size_t>(kf.field)].nlimbs;
      }
      s.header = kf.header;
      s.nbytes = kf.nbytes;
      s.offset = kf.offset;
      s.key = k;
      s.masked = !kf.mask.empty();
      tab.key_plan.push_back(s);
    }

    std::int64_t max_size = integer(t, "max_size", where, 0, INT64_MAX);
    budget += static_cast<std::uint64_t>(max_size);
    if (budget > P4_MAX_TABLE_ENTRIES_TOTAL)
      refuse(LoadCode::kEntryBudget, where + ": tables ask for " + std::to_string(budget) + " entries in all, more than the budget of " +
                                         std::to_string(P4_MAX_TABLE_ENTRIES_TOTAL));
    tab.max_size = static_cast<std::uint32_t>(max_size);

    const Json& anames = array(t, "actions", P4_MAX_ACTIONS, where, false);
    const Json* aids = find(t, "action_ids");
    if (aids != nullptr && !aids->is_null()) {
      check_array(*aids, P4_MAX_ACTIONS, where + " action_ids");
      if (aids->size() != anames.size()) refuse(LoadCode::kSchema, where + ": 'action_ids' and 'actions' differ in length");
    }
    tab.next_by_action.assign(p_.actions.size(), -1);
    std::map<std::string, int> table_action;  // name -> action, within this table
    for (std::size_t i = 0; i < anames.size(); ++i) {
      if (!anames[i].is_string()) refuse(LoadCode::kSchema, where + ": an action is not a name");
      const std::string an = anames[i].get<std::string>();
      int action = -1;
      if (aids != nullptr && !aids->is_null()) {
        std::int64_t id = as_integer((*aids)[i], where + " action id", 0, INT32_MAX);
        for (std::size_t a = 0; a < p_.actions.size() && action < 0; ++a)
          if (p_.actions[a].id == id) action = static_cast<int>(a);
        if (action < 0) refuse(LoadCode::kDanglingRef, where + " names action id " + std::to_string(id) + ", which does not exist");
        if (p_.actions[action].name != an)
          refuse(LoadCode::kDanglingRef, where + ": action id " + std::to_string(id) + " is '" + p_.actions[action].name + "', not '" + an + "'");
      } else {
        auto it = p_.action_by_name.find(an);
        if (it == p_.action_by_name.end()) refuse(LoadCode::kDanglingRef, where + " names action '" + an + "', which does not exist");
        if (duplicate_action_names_.count(an))
          refuse(LoadCode::kDuplicate, where + " names action '" + an + "', which several actions are called, without action_ids");
        action = it->second;
      }
      if (!table_action.emplace(an, action).second) refuse(LoadCode::kDuplicate, where + " lists action '" + an + "' twice");
      tab.actions.push_back(action);
      tab.data_limbs = std::max(tab.data_limbs, p_.actions[action].data_limbs);
    }
    tab.base_default_next = node_ref(find(t, "base_default_next"), tab.pipeline, where + " base_default_next");
    for (int a : tab.actions) tab.next_by_action[a] = tab.base_default_next;
    const Json& next = member(t, "next_tables", where);
    if (!next.is_object()) refuse(LoadCode::kSchema, where + " 'next_tables' is not an object");
    if (next.contains("__HIT__") || next.contains("__MISS__")) {
      tab.hit_miss = true;
      tab.next_hit = next.contains("__HIT__") ? node_ref(&next["__HIT__"], tab.pipeline, where + " __HIT__") : tab.base_default_next;
      tab.next_miss = next.contains("__MISS__") ? node_ref(&next["__MISS__"], tab.pipeline, where + " __MISS__") : tab.base_default_next;
    }
    for (auto it = next.begin(); it != next.end(); ++it) {
      if (it.key() == "__HIT__" || it.key() == "__MISS__") continue;
      auto a = table_action.find(it.key());
      if (a == table_action.end())
        refuse(LoadCode::kDanglingRef, where + " next_tables names '" + it.key() + "', which is not one of its actions");
      tab.next_by_action[a->second] = node_ref(&it.value(), tab.pipeline, where + " next_tables '" + it.key() + "'");
    }
    if (const Json* de = find(t, "default_entry"); de != nullptr && !de->is_null()) {
      std::string dw = where + " default_entry";
      std::int64_t aid = integer(*de, "action_id", dw, 0, INT32_MAX);
      int action = -1;
      for (int a : tab.actions)
        if (p_.actions[a].id == aid) action = a;
      if (action < 0) refuse(LoadCode::kDanglingRef, dw + " names action id " + std::to_string(aid) + ", which is not one of the table's actions");
      tab.default_entry.present = true;
      tab.default_entry.action = action;
      tab.default_entry.action_const = boolean(*de, "action_const", dw, false);
      const Json* ad = find(*de, "action_data");
      if (ad == nullptr || ad->is_null()) {
        if (!p_.actions[action].params.empty())
          refuse(LoadCode::kSchema, dw + " gives no data for the parameters of '" + p_.actions[action].name + "'");
        tab.default_entry.data.assign(static_cast<std::size_t>(p_.actions[action].data_limbs), 0);
      } else {
        tab.default_entry.data = action_data(*ad, action, dw);
        tab.default_entry.entry_const = boolean(*de, "action_entry_const", dw, false);
      }
    }
    if (const Json* ej = find(t, "entries"); ej != nullptr && !ej->is_null()) {
      check_array(*ej, P4_MAX_CONST_ENTRIES, where + " 'entries'");
      // bmv2 makes a table with an 'entries' key immutable and sizes it by that list, so an
      // empty list is a table that can never hold an entry: refused, not loaded inert.
      if (ej->empty())
        refuse(LoadCode::kTableEntries, where + " has an empty 'entries' list: an immutable table that can never match");
      tab.immutable = true;
      for (std::size_t i = 0; i < ej->size(); ++i) {
        const Json& e = (*ej)[i];
        std::string ew = where + " entry " + std::to_string(i);
        ConstEntry ce;
        ce.key.assign(static_cast<std::size_t>(tab.key_bytes), 0);
        ce.mask.assign(static_cast<std::size_t>(tab.key_bytes), 0);
        const Json& mk = array(e, "match_key", P4_MAX_KEY_FIELDS, ew, false);
        if (mk.size() != tab.keys.size())
          refuse(LoadCode::kTableEntries, ew + " has " + std::to_string(mk.size()) + " match fields; the table has " +
                                              std::to_string(tab.keys.size()) + " keys");
        for (std::size_t k = 0; k < mk.size(); ++k) {
          const KeyField& kf = tab.keys[k];
          std::string kw = ew + " key '" + kf.name + "'";
          std::string kmt = string(mk[k], "match_type", kw);
          Value v = kf.kind == MatchKind::kValid ? Value::of(boolean(mk[k], "key", kw, false) ? 1 : 0)
                    : kmt == "range"             ? Value::zero()
                                                 : hexstr_fitting(member(mk[k], "key", kw), kf.width, kw);
          v.get_bytes_be(&ce.key[kf.offset], static_cast<std::size_t>(kf.nbytes));
          Value m = Value::ones(kf.width);
          if (kmt == "ternary") {
            m = hexstr_fitting(member(mk[k], "mask", kw), kf.width, kw + " mask");
          } else if (kmt == "lpm") {
            ce.prefix_len = static_cast<int>(integer(mk[k], "prefix_length", kw, 0, kf.width));
          } else if (kmt == "optional") {
            if (const Json* mj = find(mk[k], "mask"); mj != nullptr && !mj->is_null())
              m = hexstr_fitting(*mj, kf.width, kw + " mask");
          } else if (kmt == "range") {
            // The start is the key; the end goes beside it (the mask stays all ones).
            if (ce.high.empty()) ce.high.assign(static_cast<std::size_t>(tab.key_bytes), 0);
            Value end = hexstr_fitting(member(mk[k], "end", kw), kf.width, kw + " end");
            v = hexstr_fitting(member(mk[k], "start", kw), kf.width, kw + " start");
            v.get_bytes_be(&ce.key[kf.offset], static_cast<std::size_t>(kf.nbytes));
            end.get_bytes_be(&ce.high[kf.offset], static_cast<std::size_t>(kf.nbytes));
          }
          m.get_bytes_be(&ce.mask[kf.offset], static_cast<std::size_t>(kf.nbytes));
        }
        const Json& ae = member(e, "action_entry", ew);
        std::int64_t aid = integer(ae, "action_id", ew, 0, INT32_MAX);
        for (int a : tab.actions)
          if (p_.actions[a].id == aid) ce.action = a;
        if (ce.action < 0) refuse(LoadCode::kDanglingRef, ew + " names action id " + std::to_string(aid) + ", which is not one of the table's actions");
        ce.data = action_data(array(ae, "action_data", P4_MAX_ACTION_PARAMS, ew), ce.action, ew);
        // bmv2 ranks a lower number higher; this engine, like P4Runtime, the other way.
        std::int64_t prio = find(e, "priority") ? integer(e, "priority", ew, 0, INT32_MAX - 1) : static_cast<std::int64_t>(i);
        ce.priority = static_cast<int>(INT32_MAX - prio);
        tab.const_entries.push_back(std::move(ce));
      }
    }
  }
  p_.entries_budget_used = budget;

  // Pass 3: conditionals.
  for (std::size_t ci = 0; ci < p_.conditionals.size(); ++ci) {
    const Json& c = *cond_json[ci].first;
    ConditionalInfo& cond = p_.conditionals[ci];
    std::string where = "conditional '" + cond.name + "'";
    ExprScope scope;
    cond.expr = expr_of_kind(member(c, "expression", where), ExprKind::kBool, scope, where);
    cond.true_next = node_ref(find(c, "true_next"), cond.pipeline, where + " true_next");
    cond.false_next = node_ref(find(c, "false_next"), cond.pipeline, where + " false_next");
  }
}

void Loader::check_cycles() {
  // An iterative depth-first search with an explicit stack: a loop in the pipeline graph
  // would spin the thread running it on every frame, and a recursive search could itself
  // overflow on a deep graph. All four kinds of edge are followed.
  const int n = static_cast<int>(p_.tables.size() + p_.conditionals.size());
  auto successors = [&](int node) {
    std::vector<std::pair<int, std::string>> out;
    if (p_.is_table_node(node)) {
      const TableInfo& t = p_.tables[node];
      for (int a : t.actions) out.emplace_back(t.next_by_action[a], "action '" + p_.actions[a].name + "' next table");
      out.emplace_back(t.base_default_next, "base_default_next");
      if (t.hit_miss) {
        out.emplace_back(t.next_hit, "__HIT__ next table");
        out.emplace_back(t.next_miss, "__MISS__ next table");
      }
    } else {
      const ConditionalInfo& c = p_.conditionals[node - p_.tables.size()];
      out.emplace_back(c.true_next, "true_next");
      out.emplace_back(c.false_next, "false_next");
    }
    return out;
  };
  auto node_name = [&](int node) {
    return p_.is_table_node(node) ? "table '" + p_.tables[node].name + "'"
                                  : "conditional '" + p_.conditionals[node - p_.tables.size()].name + "'";
  };
  std::vector<std::uint8_t> state(static_cast<std::size_t>(n), 0);  // 0 new, 1 on stack, 2 done
  // Roots: the pipelines' first nodes, then any node nothing reaches, so that a reported
  // cycle reads in the order a frame would walk it.
  std::vector<int> roots;
  for (int init : {p_.ingress.init_node, p_.egress.init_node})
    if (init >= 0) roots.push_back(init);
  for (int i = 0; i < n; ++i) roots.push_back(i);
  struct Frame {
    int node;
    std::size_t next;  // successor to visit next
    std::vector<std::pair<int, std::string>> succ;
  };
  for (int root : roots) {
    if (state[static_cast<std::size_t>(root)] != 0) continue;
    std::vector<Frame> stack;
    stack.push_back({root, 0, successors(root)});
    state[static_cast<std::size_t>(root)] = 1;
    while (!stack.empty()) {
      Frame& top = stack.back();
      if (top.next == top.succ.size()) {
        state[static_cast<std::size_t>(top.node)] = 2;
        stack.pop_back();
        continue;
      }
      auto [next, edge] = top.succ[top.next++];
      if (next < 0) continue;
      if (state[static_cast<std::size_t>(next)] == 1) {
        // Name the whole loop: each node on it and the edge it leaves by.
        std::string loop;
        std::size_t from = 0;
        while (stack[from].node != next) ++from;
        for (std::size_t k = from; k < stack.size(); ++k)
          loop += node_name(stack[k].node) + " " + stack[k].succ[stack[k].next - 1].second + " -> ";
        refuse(LoadCode::kPipelineCycle, "pipeline graph has a cycle: " + loop + node_name(next));
      }
      if (state[static_cast<std::size_t>(next)] == 0) {
        state[static_cast<std::size_t>(next)] = 1;
        stack.push_back({next, 0, successors(next)});
      }
    }
  }
}

}  // namespace dpusim::p4
