// The STF runner (see stf.h). It translates `add` and `setdefault` the way p4c's bmv2
// driver does before simple_switch_CLI sees them, then hands the engine ordinary update
// records, so the STF suite exercises the same update path as every other control plane.
#include "dpusim/p4/stf.h"

#include "cli_values.h"
#include "dpusim/p4/cli.h"

#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <vector>

namespace dpusim::p4 {

namespace {

std::string trim(std::string_view s) {
  std::size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return std::string(s.substr(a, b - a));
}

// bmv2stf.py's nextWord: split once on whitespace (sep empty) or on sep, both parts trimmed.
std::pair<std::string, std::string> next_word(const std::string& text, const std::string& sep = "") {
  if (sep.empty()) {
    std::size_t a = 0;
    while (a < text.size() && std::isspace(static_cast<unsigned char>(text[a]))) ++a;
    std::size_t b = a;
    while (b < text.size() && !std::isspace(static_cast<unsigned char>(text[b]))) ++b;
    return {text.substr(a, b - a), trim(std::string_view(text).substr(b))};
  }
  std::size_t at = text.find(sep);
  if (at == std::string::npos) return {trim(text), ""};
  return {trim(std::string_view(text).substr(0, at)), trim(std::string_view(text).substr(at + sep.size()))};
}

std::string strip_chars(const std::string& s, const std::string& chars) {
  std::size_t a = 0, b = s.size();
  while (a < b && chars.find(s[a]) != std::string::npos) ++a;
  while (b > a && chars.find(s[b - 1]) != std::string::npos) --b;
  return s.substr(a, b - a);
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

struct StfKey {
  KeyDesc desc;
  std::string value;  // as bmv2stf would hand it to the CLI: "v", "v/len" or "v&&&m"
};

// bmv2stf's makeMask: each hex (binary, octal) digit contributes a mask digit of all ones,
// each `*` a digit of zeros; the mask is only as wide as the digits written.
std::optional<std::string> make_mask(const std::string& value) {
  std::string prefix = value.substr(0, 2);
  int bits;
  char full;
  if (prefix == "0x") bits = 4, full = 'F';
  else if (prefix == "0b") bits = 1, full = '1';
  else if (prefix == "0o") bits = 3, full = '7';
  else return std::nullopt;  // "Decimal value not supported for ternary key"
  (void)bits;
  std::string v = value.substr(2), m;
  for (char& c : v) {
    m.push_back(c == '*' ? '0' : full);
    if (c == '*') c = '0';
  }
  return prefix + v + "&&&" + prefix + m;
}

std::string make_lpm(const std::string& value) {
  if (value.find('/') != std::string::npos) return value;
  int bits_per_digit = 4;
  std::string v = value;
  if (v.rfind("0b", 0) == 0) bits_per_digit = 1;
  else if (v.rfind("0o", 0) == 0) bits_per_digit = 3;
  else if (v.rfind("0x", 0) != 0) {
    Value n;
    if (parse_cli_integer(v, &n)) v = n.to_hex();
  }
  int stars = 0;
  for (char& c : v)
    if (c == '*') {
      ++stars;
      c = '0';
    }
  int digits = static_cast<int>(v.size()) - 2 - stars;
  return v + "/" + std::to_string(digits * bits_per_digit);
}

class StfRun {
 public:
  explicit StfRun(Engine& engine) : engine_(engine), cli_(engine), tables_(engine.describe_tables()) {}
  StfOutcome run(std::string_view text);

 private:
  const TableDesc* table_by_name(const std::string& name, std::string* error) const;
  const ActionDesc* action_by_name(const TableDesc& t, const std::string& name, std::string* error) const;
  bool set_key(std::vector<StfKey>& keys, std::string key, const std::string& value, std::string* error) const;
  bool to_update(const TableDesc& t, const std::vector<StfKey>& keys, TableUpdate* u, std::string* error) const;
  bool add(const std::string& cmd, std::string* error);
  bool set_default(const std::string& cmd, std::string* error);
  bool action_args(const ActionDesc& a, const std::string& args, TableUpdate* u, std::string* error) const;

  Engine& engine_;
  SwitchCli cli_;  // the commands the bmv2 driver hands simple_switch_CLI word for word
  std::vector<TableDesc> tables_;
  std::map<std::uint32_t, std::vector<std::vector<std::uint8_t>>> outputs_;
  std::map<std::uint32_t, std::vector<std::string>> expected_;
  std::set<std::uint32_t> expect_any_, ports_;
  StfOutcome outcome_;
};

const TableDesc* StfRun::table_by_name(const std::string& name, std::string* error) const {
  for (const TableDesc& t : tables_)
    if (t.name == name) return &t;
  const TableDesc* candidate = nullptr;
  for (const TableDesc& t : tables_)
    if (ends_with(t.name, name)) {
      if (candidate != nullptr) {
        *error = "table name " + name + " is ambiguous between " + candidate->name + " and " + t.name;
        return nullptr;
      }
      candidate = &t;
    }
  if (candidate == nullptr) *error = "could not find table " + name;
  return candidate;
}

const ActionDesc* StfRun::action_by_name(const TableDesc& t, const std::string& name, std::string* error) const {
  for (const ActionDesc& a : t.actions)
    if (a.name == name) return &a;
  const ActionDesc* candidate = nullptr;
  for (const ActionDesc& a : t.actions)
    if (ends_with(a.name, name)) {
      if (candidate != nullptr) {
        *error = "ambiguous action name " + name + " in " + t.name;
        return nullptr;
      }
      candidate = &a;
    }
  if (candidate == nullptr) *error = "no action " + name + " in table " + t.name;
  return candidate;
}

bool StfRun::set_key(std::vector<StfKey>& keys, std::string key, const std::string& value, std::string* error) const {
  // "hdr$0" is "hdr[0]" (the last $<digits> in the name).
  for (std::size_t i = key.size(); i-- > 0;) {
    if (key[i] != '$') continue;
    std::size_t j = i + 1;
    while (j < key.size() && std::isdigit(static_cast<unsigned char>(key[j]))) ++j;
    if (j > i + 1) {
      key = key.substr(0, i) + "[" + key.substr(i + 1, j - i - 1) + "]" + key.substr(j);
      break;
    }
  }
  // bmv2stf matches against the keys' targets; the README allows the JSON key name too.
  for (int pass = 0; pass < 2; ++pass) {
    auto name = [&](const StfKey& k) -> const std::string& { return pass == 0 ? k.desc.target : k.desc.name; };
    StfKey* found = nullptr;
    for (StfKey& k : keys)
      if (name(k) == key || name(k) == key + "$" || name(k) == key + ".$valid$") found = &k;
    if (found == nullptr && ends_with(key, ".valid"))
      for (StfKey& k : keys)
        if (name(k) == key.substr(0, key.size() - 5) + "$valid$") found = &k;
    if (found == nullptr)
      for (StfKey& k : keys)  // the last match wins, as in the driver's loop
        if (ends_with(name(k), "." + key) || ends_with(name(k), "." + key + "$") ||
            (key == "valid" && ends_with(name(k), ".$valid$")))
          found = &k;
    if (found == nullptr && key == "valid")
      for (StfKey& k : keys)
        if (name(k) == "$valid$") found = &k;
    if (found == nullptr) continue;
    if (found->desc.match_kind == "ternary" || found->desc.match_kind == "optional") {
      auto m = make_mask(value);
      if (!m) {
        *error = "decimal value " + value + " not supported for ternary key";
        return false;
      }
      found->value = *m;
    } else if (found->desc.match_kind == "lpm") {
      found->value = make_lpm(value);
    } else {
      found->value = value;
    }
    return true;
  }
  *error = "unexpected key field " + key;
  return false;
}

bool StfRun::to_update(const TableDesc& t, const std::vector<StfKey>& keys, TableUpdate* u, std::string* error) const {
  u->table = t.name;
  for (const StfKey& k : keys) {
    MatchField mf;
    mf.field = k.desc.name;
    std::string v = k.value;
    Value val, aux;
    std::string::size_type at;
    // simple_switch_CLI's forms; it stores a ternary value under its mask and uses only a
    // prefix's leading bits, so the value is put under them here too.
    if ((at = v.find("&&&")) != std::string::npos) {
      if (!parse_cli_integer(v.substr(0, at), &val) || !parse_cli_integer(v.substr(at + 3), &aux)) {
        *error = "bad ternary value " + v;
        return false;
      }
      value_and(val, val, aux);
      mf.mask = aux.to_hex();
      if (k.desc.match_kind == "optional" && !aux.is_zero()) mf.mask = Value::ones(k.desc.width).to_hex();
    } else if ((at = v.find('/')) != std::string::npos) {
      Value len;
      std::uint64_t pl = 0;
      if (!parse_cli_integer(v.substr(0, at), &val) || !parse_cli_integer(v.substr(at + 1), &len) || !len.fits_u64(&pl) || pl > 512) {
        *error = "bad prefix " + v;
        return false;
      }
      if (static_cast<int>(pl) <= k.desc.width) value_and(val, val, Value::prefix_mask(k.desc.width, static_cast<int>(pl)));
      mf.prefix_len = static_cast<int>(pl);
    } else if (!parse_cli_integer(v, &val)) {
      *error = "bad key value " + v;
      return false;
    }
    mf.value = val.to_hex();
    u->match.push_back(std::move(mf));
  }
  return true;
}

bool StfRun::action_args(const ActionDesc& a, const std::string& args_text, TableUpdate* u, std::string* error) const {
  std::string cmd = args_text;
  while (!cmd.empty()) {
    auto [word, rest] = next_word(cmd, ",");
    cmd = rest;
    auto [k, v] = next_word(word, ":");
    bool known = false;
    for (const auto& prm : a.params) known = known || prm.first == k;
    if (!known) {
      *error = "unexpected action arg " + k;
      return false;
    }
    Value val;
    if (!parse_cli_integer(v, &val)) {
      *error = "bad action arg value " + v;
      return false;
    }
    u->params.emplace_back(k, val.to_hex());
  }
  return true;
}

bool StfRun::add(const std::string& text, std::string* error) {
  auto [table_name, cmd] = next_word(text);
  const TableDesc* t = table_by_name(table_name, error);
  if (t == nullptr) return false;
  std::vector<StfKey> keys;
  for (const KeyDesc& k : t->keys) {
    StfKey sk{k, k.match_kind == "ternary" || k.match_kind == "optional" ? "0&&&0" : k.match_kind == "lpm" ? "0/0" : "0"};
    keys.push_back(sk);
  }
  auto [prio, rest] = next_word(cmd);
  if (prio.empty() || !std::isdigit(static_cast<unsigned char>(prio[0]))) {
    rest = cmd;
    prio.clear();
  }
  cmd = rest;
  const ActionDesc* action = nullptr;
  TableUpdate u;
  u.type = UpdateType::kInsert;
  std::string args;
  while (!cmd.empty()) {
    auto [word, more] = next_word(cmd);
    cmd = more;
    if (cmd.find('=') != std::string::npos) cmd = cmd.substr(0, cmd.find('='));  // "= handle"
    if (word.find('(') != std::string::npos) {
      auto [aname, arg] = next_word(word, "(");
      action = action_by_name(*t, aname, error);
      if (action == nullptr) return false;
      args = strip_chars(arg + cmd, "()");
      break;
    }
    auto [k, v] = next_word(word, ":");
    if (!set_key(keys, k, v, error)) return false;
  }
  if (action == nullptr) {
    *error = "add to " + t->name + " names no action";
    return false;
  }
  if (!to_update(*t, keys, &u, error)) return false;
  u.action = action->name;
  if (!action_args(*action, args, &u, error)) return false;
  // The driver passes a priority only to ternary tables, as 10000 - prio to bmv2 (where
  // lower wins): STF's higher number wins, as here. STF allows 0, P4Runtime starts at 1.
  if (t->match_type == "ternary" && !prio.empty()) u.priority = std::stoll(prio.substr(0, 9)) + 1;
  UpdateError ue;
  if (!engine_.update(u, &ue)) {
    *error = "add " + text + ": error[" + std::string(update_code_name(ue.code)) + "]: " + ue.message;
    return false;
  }
  ++outcome_.entries;
  return true;
}

bool StfRun::set_default(const std::string& text, std::string* error) {
  auto [table_name, cmd] = next_word(text);
  const TableDesc* t = table_by_name(table_name, error);
  if (t == nullptr) return false;
  auto [aname, rest] = next_word(cmd, "(");
  const ActionDesc* a = action_by_name(*t, aname, error);
  if (a == nullptr) return false;
  TableUpdate u;
  u.type = UpdateType::kDefault;
  u.table = t->name;
  u.action = a->name;
  if (!action_args(*a, strip_chars(rest, ")"), &u, error)) return false;
  UpdateError ue;
  if (!engine_.update(u, &ue)) {
    *error = "setdefault " + text + ": error[" + std::string(update_code_name(ue.code)) + "]: " + ue.message;
    return false;
  }
  return true;
}

std::string hex_upper(const std::uint8_t* p, std::size_t n) {
  static const char d[] = "0123456789ABCDEF";
  std::string s;
  for (std::size_t i = 0; i < n; ++i) {
    s.push_back(d[p[i] >> 4]);
    s.push_back(d[p[i] & 15]);
  }
  return s;
}

StfOutcome StfRun::run(std::string_view text) {
  std::istringstream in{std::string(text)};
  std::string raw;
  int lineno = 0;
  auto failed = [&](const std::string& m) {
    outcome_.passed = false;
    outcome_.message = m;
    return outcome_;
  };
  while (std::getline(in, raw)) {
    ++lineno;
    std::string line = next_word(raw, "#").first;
    auto [first, cmd] = next_word(line);
    std::string where = "line " + std::to_string(lineno) + ": ";
    std::string error;
    if (first == "packet" || first == "expect") {
      auto [port_text, data] = next_word(cmd);
      Value pv;
      std::uint64_t port = 0;
      if (!parse_cli_integer(port_text, &pv) || !pv.fits_u64(&port) || port > 511) return failed(where + "bad port '" + port_text + "'");
      std::string hex;
      for (char c : data)
        if (!std::isspace(static_cast<unsigned char>(c))) hex.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
      ports_.insert(static_cast<std::uint32_t>(port));
      if (first == "expect") {
        if (hex.empty()) expect_any_.insert(static_cast<std::uint32_t>(port));
        else expected_[static_cast<std::uint32_t>(port)].push_back(hex);
        ++outcome_.expects;
        continue;
      }
      if (hex.size() % 2 != 0 || hex.find_first_not_of("0123456789ABCDEF") != std::string::npos)
        return failed(where + "invalid packet data " + hex);
      std::vector<std::uint8_t> frame;
      for (std::size_t i = 0; i < hex.size(); i += 2) frame.push_back(static_cast<std::uint8_t>(std::stoi(hex.substr(i, 2), nullptr, 16)));
      ++outcome_.packets;
      const RunResult& r = engine_.run(static_cast<std::uint32_t>(port), frame.data(), frame.size());
      for (const OutputPacket& o : r.outputs) outputs_[o.port].emplace_back(o.data, o.data + o.size);
    } else if (first == "add") {
      if (!add(cmd, &error)) return failed(where + error);
    } else if (first == "setdefault") {
      if (!set_default(cmd, &error)) return failed(where + error);
    } else if (first.rfind("mirroring_", 0) == 0 || first.rfind("mc_", 0) == 0 || first.rfind("counter_", 0) == 0 ||
               first.rfind("register_", 0) == 0 || first.rfind("meter_", 0) == 0) {
      // The bmv2 driver hands these to simple_switch_CLI word for word.
      std::string printed;
      if (!cli_.execute(line, &printed, &error)) return failed(where + error);
    }
    // The rest (wait, remove, check_counter, no_packet) the bmv2 driver ignores.
  }
  for (std::uint32_t port : ports_) {
    const auto& got = outputs_[port];
    if (expect_any_.count(port)) continue;
    const auto& want = expected_[port];
    if (want.size() != got.size())
      return failed("expected " + std::to_string(want.size()) + " packets on port " + std::to_string(port) + ", got " +
                    std::to_string(got.size()) + (got.empty() ? "" : " (first: " + hex_upper(got[0].data(), got[0].size()) + ")"));
    for (std::size_t i = 0; i < want.size(); ++i) {
      std::string exp = want[i];
      bool exact = !exp.empty() && exp.back() == '$';
      if (exact) exp.pop_back();
      std::string rcv = hex_upper(got[i].data(), got[i].size());
      std::string what = "packet " + std::to_string(i) + " on port " + std::to_string(port);
      if (rcv.size() < exp.size()) return failed(what + " too short: expected " + exp + ", received " + rcv);
      if (exact && rcv.size() != exp.size()) return failed(what + " longer than expected: expected " + exp + "$, received " + rcv);
      for (std::size_t k = 0; k < exp.size(); ++k)
        if (exp[k] != '*' && exp[k] != rcv[k])
          return failed(what + " differs at nibble " + std::to_string(k) + ": expected " + exp + ", received " + rcv);
    }
  }
  outcome_.passed = true;
  outcome_.message = "pass";
  return outcome_;
}

}  // namespace

StfOutcome run_stf(Engine& engine, std::string_view stf_text) {
  if (engine.policy() != PortPolicy::kV1Model) {
    StfOutcome o;
    o.message = "STF tests need the engine in v1model port mode";
    return o;
  }
  StfRun run(engine);
  return run.run(stf_text);
}

}  // namespace dpusim::p4
