// simple_switch_CLI's commands over an Engine (see cli.h).
#include "dpusim/p4/cli.h"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "cli_values.h"

namespace dpusim::p4 {

namespace {

std::vector<std::string> split_words(std::string_view line) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    std::size_t j = i;
    while (j < line.size() && !std::isspace(static_cast<unsigned char>(line[j]))) ++j;
    if (j > i) out.emplace_back(line.substr(i, j - i));
    i = j;
  }
  return out;
}

// runtime_CLI's unique-suffix lookup: a name, or any dotted suffix of exactly one name.
template <typename T, typename NameOf>
const T* by_suffix(const std::vector<T>& items, const std::string& name, NameOf name_of) {
  const T* exact = nullptr;
  const T* found = nullptr;
  int matches = 0;
  for (const T& item : items) {
    const std::string& full = name_of(item);
    if (full == name) exact = &item;
    if (full.size() > name.size() && full.compare(full.size() - name.size(), name.size(), name) == 0 &&
        full[full.size() - name.size() - 1] == '.') {
      found = &item;
      ++matches;
    }
  }
  if (exact != nullptr) return exact;
  return matches == 1 ? found : nullptr;
}

// The argument checks every command makes (cli_values.h).
using cli_args::count;
using cli_args::engine_error;
using cli_args::handle_arg;

std::uint32_t lowest_free(const std::vector<std::uint32_t>& used) {
  std::uint32_t h = 0;
  while (std::find(used.begin(), used.end(), h) != used.end()) ++h;
  return h;
}

}  // namespace

SwitchCli::SwitchCli(Engine& engine)
    : engine_(engine), tables_(engine.describe_tables()), objects_(engine.describe_objects()) {}

const TableDesc* SwitchCli::table(const std::string& name, std::string* error) const {
  const TableDesc* t = by_suffix(tables_, name, [](const TableDesc& d) -> const std::string& { return d.name; });
  if (t == nullptr) *error = "no table '" + name + "' (nor a unique suffix of one)";
  return t;
}

const ActionDesc* SwitchCli::action(const TableDesc& t, const std::string& name, std::string* error) const {
  const ActionDesc* a = by_suffix(t.actions, name, [](const ActionDesc& d) -> const std::string& { return d.name; });
  if (a == nullptr) *error = "table '" + t.name + "' has no action '" + name + "'";
  return a;
}

const ObjectDesc* SwitchCli::object(const std::string& kind, const std::string& name, std::string* error) const {
  std::vector<ObjectDesc> of_kind;
  for (const ObjectDesc& o : objects_)
    if (o.kind == kind) of_kind.push_back(o);
  const ObjectDesc* o = by_suffix(of_kind, name, [](const ObjectDesc& d) -> const std::string& { return d.name; });
  if (o == nullptr) {
    *error = "no " + kind + " '" + name + "' (nor a unique suffix of one)";
    return nullptr;
  }
  for (const ObjectDesc& x : objects_)
    if (x.kind == kind && x.name == o->name) return &x;
  return nullptr;
}

const TableDesc* SwitchCli::profile_table(const std::string& profile, std::string* error) const {
  const ObjectDesc* o = object("action_profile", profile, error);
  if (o == nullptr) return nullptr;
  for (const TableDesc& t : tables_)
    if (t.action_profile == o->name) return &t;
  *error = "action profile '" + o->name + "' serves no table";
  return nullptr;
}

bool SwitchCli::params(const ActionDesc& a, const std::vector<std::string>& words, TableUpdate* u, std::string* error) const {
  if (words.size() != a.params.size()) {
    *error = "action '" + a.name + "' needs " + std::to_string(a.params.size()) + " parameters, not " + std::to_string(words.size());
    return false;
  }
  for (std::size_t i = 0; i < words.size(); ++i) {
    Value v;
    if (!parse_cli_param(words[i], a.params[i].second, &v, error)) {
      *error = "action '" + a.name + "' parameter '" + a.params[i].first + "': " + *error;
      return false;
    }
    u->params.emplace_back(a.params[i].first, v.to_hex());
  }
  return true;
}

bool SwitchCli::match_key(const TableDesc& t, const std::vector<std::string>& words, TableUpdate* u, std::string* error) const {
  if (words.size() != t.keys.size()) {
    *error = "table '" + t.name + "' needs " + std::to_string(t.keys.size()) + " key fields, not " + std::to_string(words.size());
    return false;
  }
  for (std::size_t i = 0; i < words.size(); ++i) {
    const KeyDesc& k = t.keys[i];
    const std::string& w = words[i];
    MatchField mf;
    mf.field = k.name;
    Value v, aux;
    auto parse = [&](const std::string& text, Value* out) {
      if (parse_cli_param(text, k.width, out, error)) return true;
      *error = "key '" + k.name + "': " + *error;
      return false;
    };
    std::size_t at;
    if (k.match_kind == "lpm") {
      if ((at = w.find('/')) == std::string::npos) {
        *error = "key '" + k.name + "' is LPM: write value/prefix_length, not '" + w + "'";
        return false;
      }
      Value len;
      std::uint64_t pl = 0;
      if (!parse(w.substr(0, at), &v)) return false;
      if (!parse_cli_integer(w.substr(at + 1), &len) || !len.fits_u64(&pl) || pl > 1024) {
        *error = "key '" + k.name + "': bad prefix length in '" + w + "'";
        return false;
      }
      // The CLI sends the whole value; bmv2 keeps the prefix's bits of it.
      if (static_cast<int>(pl) <= k.width) value_and(v, v, Value::prefix_mask(k.width, static_cast<int>(pl)));
      mf.prefix_len = static_cast<int>(pl);
    } else if (k.match_kind == "ternary" || k.match_kind == "optional") {
      if ((at = w.find("&&&")) != std::string::npos) {
        if (!parse(w.substr(0, at), &v) || !parse(w.substr(at + 3), &aux)) return false;
      } else if (k.match_kind == "optional") {
        // bmv2 takes an optional key as a ternary one; a bare value means all ones.
        if (!parse(w, &v)) return false;
        aux = Value::ones(k.width);
      } else {
        *error = "key '" + k.name + "' is ternary: write value&&&mask, not '" + w + "'";
        return false;
      }
      value_and(v, v, aux);  // bmv2 stores a ternary value under its mask
      mf.mask = aux.to_hex();
    } else if (k.match_kind == "range") {
      if ((at = w.find("->")) == std::string::npos) {
        *error = "key '" + k.name + "' is a range: write start->end, not '" + w + "'";
        return false;
      }
      if (!parse(w.substr(0, at), &v) || !parse(w.substr(at + 2), &aux)) return false;
      mf.high = aux.to_hex();
    } else {
      if (!parse(w, &v)) return false;
    }
    mf.value = v.to_hex();
    u->match.push_back(std::move(mf));
  }
  return true;
}

bool SwitchCli::table_add(const std::vector<std::string>& a, bool indirect, bool group, std::string* error) {
  std::vector<std::string> args = a;
  if (!count(args, indirect ? 2 : 3, 4096, error)) return false;
  const TableDesc* t = table(args[0], error);
  if (t == nullptr) return false;
  if (indirect == t->action_profile.empty()) {
    *error = "table '" + t->name + (indirect ? "' is not indirect: use table_add" : "' is indirect: use table_indirect_add");
    return false;
  }
  TableUpdate u;
  u.type = UpdateType::kInsert;
  u.table = t->name;
  std::size_t first_key = 1;
  const ActionDesc* act = nullptr;
  if (!indirect) {
    act = action(*t, args[1], error);
    if (act == nullptr) return false;
    u.action = act->name;
    first_key = 2;
  }
  if (t->match_type == "ternary" || t->match_type == "range") {
    // The priority is the last word; lower wins in bmv2, higher in the engine.
    Value p;
    std::uint64_t prio = 0;
    if (!parse_cli_integer(args.back(), &p) || !p.fits_u64(&prio) || prio > 0x7ffffffeu) {
      *error = "table '" + t->name + "' is " + t->match_type + ": the last word is a priority in [0, 2147483646], not '" + args.back() + "'";
      return false;
    }
    u.priority = static_cast<std::int64_t>(0x7fffffffu - prio);
    args.pop_back();
  }
  auto arrow = std::find(args.begin() + static_cast<std::ptrdiff_t>(first_key), args.end(), "=>");
  std::vector<std::string> key(args.begin() + static_cast<std::ptrdiff_t>(first_key), arrow);
  std::vector<std::string> rest(arrow == args.end() ? args.end() : arrow + 1, args.end());
  if (!match_key(*t, key, &u, error)) return false;
  if (indirect) {
    std::uint32_t h;
    if (rest.size() != 1 || !handle_arg(rest[0], group ? "group handle" : "member handle", &h, error)) {
      if (rest.size() != 1) *error = "an indirect entry names one " + std::string(group ? "group" : "member") + " handle after =>";
      return false;
    }
    (group ? u.group : u.member) = h;
  } else if (!params(*act, rest, &u, error)) {
    return false;
  }
  UpdateError ue;
  std::uint32_t handle = 0;
  if (!engine_.update(u, &ue, &handle)) return engine_error(ue, error);
  // The update is done with: its key moves into the entry kept for a later modify or delete.
  TableUpdate& keyonly = entries_[t->name][handle].key;
  keyonly = TableUpdate();
  keyonly.table = std::move(u.table);
  keyonly.match = std::move(u.match);
  keyonly.priority = u.priority;
  return true;
}

bool SwitchCli::table_set_default(const std::vector<std::string>& args, std::string* error) {
  if (!count(args, 2, 4096, error)) return false;
  const TableDesc* t = table(args[0], error);
  if (t == nullptr) return false;
  const ActionDesc* a = action(*t, args[1], error);
  if (a == nullptr) return false;
  TableUpdate u;
  u.type = UpdateType::kDefault;
  u.table = t->name;
  u.action = a->name;
  if (!params(*a, std::vector<std::string>(args.begin() + 2, args.end()), &u, error)) return false;
  UpdateError ue;
  if (!engine_.update(u, &ue)) return engine_error(ue, error);
  return true;
}

bool SwitchCli::table_modify(const std::vector<std::string>& args, std::string* error) {
  if (!count(args, 3, 4096, error)) return false;
  const TableDesc* t = table(args[0], error);
  if (t == nullptr) return false;
  const ActionDesc* a = action(*t, args[1], error);
  if (a == nullptr) return false;
  std::uint32_t h;
  if (!handle_arg(args[2], "entry handle", &h, error)) return false;
  auto it = entries_[t->name].find(h);
  if (it == entries_[t->name].end()) {
    *error = "table '" + t->name + "' has no entry of handle " + std::to_string(h);
    return false;
  }
  std::size_t from = args.size() > 3 && args[3] == "=>" ? 4 : 3;
  TableUpdate u = it->second.key;
  u.type = UpdateType::kModify;
  u.action = a->name;
  if (!params(*a, std::vector<std::string>(args.begin() + static_cast<std::ptrdiff_t>(from), args.end()), &u, error)) return false;
  UpdateError ue;
  if (!engine_.update(u, &ue)) return engine_error(ue, error);
  return true;
}

bool SwitchCli::table_delete(const std::vector<std::string>& args, std::string* error) {
  if (!count(args, 2, 2, error)) return false;
  const TableDesc* t = table(args[0], error);
  if (t == nullptr) return false;
  std::uint32_t h;
  if (!handle_arg(args[1], "entry handle", &h, error)) return false;
  auto& entries = entries_[t->name];
  auto it = entries.find(h);
  if (it == entries.end()) {
    *error = "table '" + t->name + "' has no entry of handle " + std::to_string(h);
    return false;
  }
  TableUpdate u = it->second.key;
  u.type = UpdateType::kDelete;
  UpdateError ue;
  if (!engine_.update(u, &ue)) return engine_error(ue, error);
  entries.erase(it);
  return true;
}

bool SwitchCli::table_clear(const std::vector<std::string>& args, std::string* error) {
  if (!count(args, 1, 1, error)) return false;
  const TableDesc* t = table(args[0], error);
  if (t == nullptr) return false;
  auto& entries = entries_[t->name];
  for (auto& [h, e] : entries) {
    TableUpdate u = e.key;
    u.type = UpdateType::kDelete;
    UpdateError ue;
    if (!engine_.update(u, &ue)) return engine_error(ue, error);
  }
  entries.clear();
  return true;
}

bool SwitchCli::profile_command(const std::string& cmd, const std::vector<std::string>& args, std::string* error) {
  // act_prof_* name a profile; their table_indirect_* twins name a table that uses one.
  const bool by_table = cmd.rfind("table_indirect_", 0) == 0;
  if (!count(args, 1, 4096, error)) return false;
  const TableDesc* t = by_table ? table(args[0], error) : profile_table(args[0], error);
  if (t == nullptr) return false;
  if (t->action_profile.empty()) {
    *error = "table '" + t->name + "' is not indirect";
    return false;
  }
  const std::string& prof = t->action_profile;
  const std::string op = cmd.substr(by_table ? 15 : 9);
  std::vector<std::uint32_t>& members = profile_members_[prof];
  auto& groups = profile_groups_[prof];
  TableUpdate u;
  u.action_profile = prof;
  UpdateError ue;
  std::uint32_t mbr = 0, grp = 0;
  if (op == "create_member" || op == "modify_member") {
    const bool create = op == "create_member";
    if (!count(args, create ? 2 : 3, 4096, error)) return false;
    const ActionDesc* a = action(*t, args[1], error);
    if (a == nullptr) return false;
    if (!create && !handle_arg(args[2], "member handle", &mbr, error)) return false;
    mbr = create ? lowest_free(members) : mbr;
    u.type = create ? UpdateType::kInsert : UpdateType::kModify;
    u.member = mbr;
    u.action = a->name;
    if (!params(*a, std::vector<std::string>(args.begin() + (create ? 2 : 3), args.end()), &u, error)) return false;
    if (!engine_.update(u, &ue)) return engine_error(ue, error);
    if (create) members.push_back(mbr);
    return true;
  }
  if (op == "delete_member") {
    if (!count(args, 2, 2, error) || !handle_arg(args[1], "member handle", &mbr, error)) return false;
    u.type = UpdateType::kDelete;
    u.member = mbr;
    if (!engine_.update(u, &ue)) return engine_error(ue, error);
    members.erase(std::remove(members.begin(), members.end(), mbr), members.end());
    return true;
  }
  if (op == "create_group") {
    if (!count(args, 1, 1, error)) return false;
    std::vector<std::uint32_t> used;
    for (const auto& [g, m] : groups) used.push_back(g);
    grp = lowest_free(used);
    u.type = UpdateType::kInsert;
    u.group = grp;
    if (!engine_.update(u, &ue)) return engine_error(ue, error);
    groups[grp];
    return true;
  }
  if (op == "delete_group") {
    if (!count(args, 2, 2, error) || !handle_arg(args[1], "group handle", &grp, error)) return false;
    u.type = UpdateType::kDelete;
    u.group = grp;
    if (!engine_.update(u, &ue)) return engine_error(ue, error);
    groups.erase(grp);
    return true;
  }
  if (op == "add_member_to_group" || op == "remove_member_from_group") {
    if (!count(args, 3, 3, error) || !handle_arg(args[1], "member handle", &mbr, error) ||
        !handle_arg(args[2], "group handle", &grp, error))
      return false;
    auto g = groups.find(grp);
    if (g == groups.end()) {
      *error = "action profile '" + prof + "' has no group " + std::to_string(grp);
      return false;
    }
    std::vector<std::uint32_t> list = g->second;
    auto at = std::find(list.begin(), list.end(), mbr);
    if (op == "add_member_to_group") {
      if (at != list.end()) {
        *error = "member " + std::to_string(mbr) + " is already in group " + std::to_string(grp);
        return false;
      }
      list.push_back(mbr);
    } else {
      if (at == list.end()) {
        *error = "member " + std::to_string(mbr) + " is not in group " + std::to_string(grp);
        return false;
      }
      list.erase(at);
    }
    u.type = UpdateType::kModify;
    u.group = grp;
    u.members = list;
    if (!engine_.update(u, &ue)) return engine_error(ue, error);
    g->second = list;
    return true;
  }
  if (by_table && (op == "set_default" || op == "set_default_with_group")) {
    if (!count(args, 2, 2, error)) return false;
    std::uint32_t h;
    if (!handle_arg(args[1], op == "set_default" ? "member handle" : "group handle", &h, error)) return false;
    TableUpdate d;
    d.type = UpdateType::kDefault;
    d.table = t->name;
    (op == "set_default" ? d.member : d.group) = h;
    if (!engine_.update(d, &ue)) return engine_error(ue, error);
    return true;
  }
  *error = "command '" + cmd + "' is not supported";
  return false;
}

bool SwitchCli::mc_command(const std::string& cmd, const std::vector<std::string>& args, std::string* error) {
  UpdateError ue;
  std::uint32_t a = 0, b = 0;
  auto ports = [&](std::size_t from, std::vector<std::uint32_t>* out) {
    for (std::size_t i = from; i < args.size(); ++i) {
      if (args[i] == "|") {
        // LAG membership is a port map this engine has no LAGs for.
        if (i + 1 < args.size()) {
          *error = "LAGs are not supported (the node's lag list after '|')";
          return false;
        }
        break;
      }
      std::uint32_t p;
      if (!handle_arg(args[i], "port", &p, error)) return false;
      out->push_back(p);
    }
    return true;
  };
  Replication& pre = engine_.replication();
  if (cmd == "mc_mgrp_create" || cmd == "mc_mgrp_destroy") {
    if (!count(args, 1, 1, error) || !handle_arg(args[0], "multicast group", &a, error)) return false;
    if (!(cmd == "mc_mgrp_create" ? pre.mc_group_create(a, &ue) : pre.mc_group_destroy(a, &ue))) return engine_error(ue, error);
    return true;
  }
  if (cmd == "mc_node_create") {
    std::vector<std::uint32_t> list;
    if (!count(args, 1, 4096, error) || !handle_arg(args[0], "replication id", &a, error) || !ports(1, &list)) return false;
    if (!pre.mc_node_create(a, list, &b, &ue)) return engine_error(ue, error);
    return true;
  }
  if (cmd == "mc_node_update") {
    std::vector<std::uint32_t> list;
    if (!count(args, 1, 4096, error) || !handle_arg(args[0], "node handle", &a, error) || !ports(1, &list)) return false;
    if (!pre.mc_node_update(a, list, &ue)) return engine_error(ue, error);
    return true;
  }
  if (cmd == "mc_node_destroy") {
    if (!count(args, 1, 1, error) || !handle_arg(args[0], "node handle", &a, error)) return false;
    if (!pre.mc_node_destroy(a, &ue)) return engine_error(ue, error);
    return true;
  }
  // mc_node_associate / mc_node_dissociate <group> <node handle>
  if (!count(args, 2, 2, error) || !handle_arg(args[0], "multicast group", &a, error) || !handle_arg(args[1], "node handle", &b, error))
    return false;
  if (!(cmd == "mc_node_associate" ? pre.mc_node_associate(a, b, &ue) : pre.mc_node_dissociate(a, b, &ue)))
    return engine_error(ue, error);
  return true;
}

bool SwitchCli::execute(std::string_view line, std::string* out, std::string* error) {
  std::vector<std::string> words = split_words(line);
  if (words.empty() || words[0][0] == '#') return true;
  const std::string cmd = words[0];
  std::vector<std::string> args(words.begin() + 1, words.end());
  std::string why;
  bool ok;
  if (cmd == "table_add") ok = table_add(args, false, false, &why);
  else if (cmd == "table_indirect_add") ok = table_add(args, true, false, &why);
  else if (cmd == "table_indirect_add_with_group") ok = table_add(args, true, true, &why);
  else if (cmd == "table_set_default") ok = table_set_default(args, &why);
  else if (cmd == "table_modify") ok = table_modify(args, &why);
  else if (cmd == "table_delete" || cmd == "table_indirect_delete") ok = table_delete(args, &why);
  else if (cmd == "table_clear") ok = table_clear(args, &why);
  else if (cmd.rfind("act_prof_", 0) == 0 || cmd.rfind("table_indirect_", 0) == 0) ok = profile_command(cmd, args, &why);
  else if (cmd.rfind("mc_", 0) == 0 && cmd != "mc_dump" && cmd != "mc_set_lag_membership") ok = mc_command(cmd, args, &why);
  else ok = object_command(cmd, args, out, &why);
  if (!ok) *error = cmd + ": " + why;
  return ok;
}

bool SwitchCli::run(std::string_view text, std::string* out, std::string* error) {
  std::size_t pos = 0;
  int lineno = 0;
  while (pos <= text.size()) {
    std::size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    ++lineno;
    std::string why;
    if (!execute(line, out, &why)) {
      *error = "line " + std::to_string(lineno) + ": " + why;
      return false;
    }
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  return true;
}

}  // namespace dpusim::p4
