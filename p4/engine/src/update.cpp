// Table updates, held to P4Runtime's rules (p4runtime spec, "TableEntry" and "Match
// fields"): every key field checked against its width and match kind, deletes included;
// priorities only where the table ranks by them; duplicates and absent entries refused.
#include <cstring>
#include <sstream>

#include "dpusim/p4/limits.h"
#include "table_updates.h"
#include "update_util.h"

namespace dpusim::p4 {

// Named apart from the other update files' helpers, with which a unity batch compiles this.
namespace key_updates {
namespace {

bool refuse(UpdateError* error, UpdateCode code, const std::string& message) {
  *error = fail(code, message);
  return false;
}

// A number of the update (`what`: "value", "high end", "mask") that fits the field's width.
bool number(const std::string& text, const char* what, int width, const std::string& fw, Value* out, UpdateError* error) {
  if (!parse_number(text, out))
    return refuse(error, UpdateCode::kBadRecord, fw + ": " + what + " '" + text.substr(0, 60) + "' is not a hex (0x..) or decimal number");
  if (out->bit_length() > width)
    return refuse(error, UpdateCode::kValueWidth, fw + ": " + what + " " + out->to_hex() + " is wider than the " + std::to_string(width) + "-bit field");
  return true;
}

// The match kind's own fields: a range's high end, an LPM's prefix (into *m and the entry's
// prefix bits where the table ranks by prefix: lpm_base_bits >= 0), a ternary's or optional's
// mask (into *m).
bool match_kind(const KeyField& kf, const MatchField& mf, const Value& v, const std::string& fw, int lpm_base_bits, Value* m,
                CanonicalEntry* e, UpdateError* error) {
  const bool lpm = kf.kind == MatchKind::kLpm;
  const bool masked = kf.kind == MatchKind::kTernary || kf.kind == MatchKind::kOptional;
  const bool range = kf.kind == MatchKind::kRange;
  if (mf.high.has_value() != range)
    return refuse(error, UpdateCode::kMatchKind,
                  fw + (range ? " is a range field and needs a low and a high end" : " is not a range field and takes no high end"));
  if (range) {
    Value high;
    if (!number(*mf.high, "high end", kf.width, fw, &high, error)) return false;
    if (compare(v, high) > 0) return refuse(error, UpdateCode::kRange, fw + ": low end " + v.to_hex() + " is above high end " + high.to_hex());
    high.get_bytes_be(&e->high[static_cast<std::size_t>(kf.offset)], static_cast<std::size_t>(kf.nbytes));
  }
  if (mf.prefix_len && !lpm) return refuse(error, UpdateCode::kMatchKind, fw + " is not an LPM field and takes no prefix_len");
  if (mf.mask && !masked)
    return refuse(error, UpdateCode::kMatchKind, fw + " is " + (lpm ? "an LPM" : "an exact") + " field and takes no mask");
  if (lpm) {
    if (!mf.prefix_len) return refuse(error, UpdateCode::kMatchKind, fw + " is an LPM field and needs a prefix_len");
    int pl = *mf.prefix_len;
    if (pl < 0 || pl > kf.width)
      return refuse(error, UpdateCode::kPrefixLength,
                    fw + ": prefix length " + std::to_string(pl) + " is outside [0, " + std::to_string(kf.width) + "]");
    *m = Value::prefix_mask(kf.width, pl);
    if (lpm_base_bits >= 0) e->prefix_bits = lpm_base_bits + pl;
  }
  if (masked && mf.mask) {
    if (!number(*mf.mask, "mask", kf.width, fw, m, error)) return false;
    if (kf.kind == MatchKind::kOptional && !m->is_zero() && *m != Value::ones(kf.width))
      return refuse(error, UpdateCode::kMatchKind, fw + " is an optional field: its mask is all ones or zero, not " + m->to_hex());
  } else if (kf.kind == MatchKind::kTernary) {
    return refuse(error, UpdateCode::kMatchKind, fw + " is a ternary field and needs a mask (zero for don't care)");
  }
  return true;
}

// Key field i of the update into the entry's key, mask (and range end) bytes.
bool key_field(const KeyField& kf, const MatchField& mf, std::size_t i, const std::string& tn, int lpm_base_bits,
               CanonicalEntry* e, UpdateError* error) {
  if (!printable(mf.field))
    return refuse(error, UpdateCode::kBadName, tn + " match field " + std::to_string(i) + ": the name is not printable ASCII");
  if (mf.field != kf.name)
    return refuse(error, UpdateCode::kKeyCount, tn + " match field " + std::to_string(i) + " is '" + mf.field + "', but key " +
                                                    std::to_string(i) + " is '" + kf.name + "' (every key, in key order)");
  const std::string fw = tn + " key '" + kf.name + "'";
  Value v;
  if (!number(mf.value, "value", kf.width, fw, &v, error)) return false;
  Value m = Value::ones(kf.width);
  if (!match_kind(kf, mf, v, fw, lpm_base_bits, &m, e, error)) return false;
  const bool lpm = kf.kind == MatchKind::kLpm;
  Value outside;
  value_not(outside, m);
  value_and(outside, outside, v);
  if (!outside.is_zero())
    return refuse(error, lpm ? UpdateCode::kPrefixBits : UpdateCode::kMaskBits,
                  fw + ": value " + v.to_hex() + " has bits set " + (lpm ? "past its prefix" : "outside its mask " + m.to_hex()));
  std::uint8_t* kp = &e->key[static_cast<std::size_t>(kf.offset)];
  std::uint8_t* mp = &e->mask[static_cast<std::size_t>(kf.offset)];
  v.get_bytes_be(kp, static_cast<std::size_t>(kf.nbytes));
  m.get_bytes_be(mp, static_cast<std::size_t>(kf.nbytes));
  // Under p4c's `field & constant` an entry is the entry for its masked value, as bmv2 stores
  // it: 0x1234 under 0x00ff is 0x0034, and matches 0xab34.
  for (int b = 0; b < kf.nbytes && !kf.mask.empty(); ++b) {
    kp[b] &= kf.mask[static_cast<std::size_t>(b)];
    mp[b] &= kf.mask[static_cast<std::size_t>(b)];
  }
  return true;
}

}  // namespace
}  // namespace key_updates

bool TableUpdates::canonical_key(const TableInfo& t, const TableUpdate& u, CanonicalEntry* e, UpdateError* error) const {
  const std::string tn = "table '" + t.name + "'";
  if (u.match.size() != t.keys.size()) {
    std::string keys;
    for (const KeyField& k : t.keys) keys += (keys.empty() ? "" : ", ") + k.name;
    *error = fail(UpdateCode::kKeyCount, tn + " has " + std::to_string(t.keys.size()) + " key fields (" + keys + "); the update lists " +
                                             std::to_string(u.match.size()) + " (every key, in key order)");
    return false;
  }
  e->key.assign(static_cast<std::size_t>(t.key_bytes), 0);
  e->mask.assign(static_cast<std::size_t>(t.key_bytes), 0);
  if (t.has_range) e->high.assign(static_cast<std::size_t>(t.key_bytes), 0);
  // Where the table ranks by prefix, an entry's prefix bits count from its exact fields' bits.
  const int lpm_base_bits = t.match_type == TableMatchType::kLpm ? tables[&t - program.tables.data()].lpm_base_bits : -1;
  for (std::size_t i = 0; i < t.keys.size(); ++i)
    if (!key_updates::key_field(t.keys[i], u.match[i], i, tn, lpm_base_bits, e, error)) return false;
  if (t.needs_priority()) {
    if (!u.priority || *u.priority < 1 || *u.priority > INT32_MAX) {
      *error = fail(UpdateCode::kPriority, tn + " has ternary or range keys: an entry needs a priority in [1, " + std::to_string(INT32_MAX) +
                                               "] (higher wins)" + (u.priority ? ", not " + std::to_string(*u.priority) : ""));
      return false;
    }
    e->priority = static_cast<std::int32_t>(*u.priority);
  } else if (u.priority && *u.priority != 0) {
    *error = fail(UpdateCode::kPriority, tn + " has no ternary or range key: an entry gives no priority (got " + std::to_string(*u.priority) + ")");
    return false;
  }
  return true;
}

bool action_arguments(const ActionInfo& a, const TableUpdate& u, int data_limbs, std::vector<std::uint64_t>* data,
                      UpdateError* error) {
  data->assign(static_cast<std::size_t>(data_limbs), 0);
  std::vector<bool> given(a.params.size(), false);
  for (const auto& [pname, pvalue] : u.params) {
    if (!printable(pname)) {
      *error = fail(UpdateCode::kBadName, "action '" + a.name + "': a parameter name is not printable ASCII");
      return false;
    }
    std::size_t k = 0;
    while (k < a.params.size() && a.params[k].name != pname) ++k;
    if (k == a.params.size()) {
      *error = fail(UpdateCode::kParams, "action '" + a.name + "' has no parameter '" + pname + "'");
      return false;
    }
    if (given[k]) {
      *error = fail(UpdateCode::kParams, "action '" + a.name + "' parameter '" + pname + "' is given twice");
      return false;
    }
    given[k] = true;
    Value v;
    if (!parse_number(pvalue, &v)) {
      *error = fail(UpdateCode::kBadRecord, "action '" + a.name + "' parameter '" + pname + "': '" + pvalue.substr(0, 60) +
                                                "' is not a hex (0x..) or decimal number");
      return false;
    }
    const ActionParam& prm = a.params[k];
    if (v.bit_length() > prm.width) {
      *error = fail(UpdateCode::kParams, "action '" + a.name + "' parameter '" + pname + "': value " + v.to_hex() + " is wider than its " +
                                             std::to_string(prm.width) + " bits");
      return false;
    }
    for (int l = 0; l < prm.nlimbs; ++l) (*data)[static_cast<std::size_t>(prm.limb + l)] = v.w[l];
  }
  for (std::size_t k = 0; k < a.params.size(); ++k)
    if (!given[k]) {
      *error = fail(UpdateCode::kParams, "action '" + a.name + "' parameter '" + a.params[k].name + "' is missing");
      return false;
    }
  return true;
}

int table_action(const Program& program, const TableInfo& t, const std::string& name, UpdateError* error) {
  if (!printable(name)) {
    *error = fail(UpdateCode::kBadName, "table '" + t.name + "': the action name is empty or not printable ASCII");
    return -1;
  }
  // Names are unique within a table (checked at load), not across the program.
  for (int a : t.actions)
    if (program.actions[static_cast<std::size_t>(a)].name == name) return a;
  bool exists = program.action_by_name.count(name) != 0;
  *error = exists ? fail(UpdateCode::kActionNotInTable, "action '" + name + "' is not one of table '" + t.name + "''s actions")
                  : fail(UpdateCode::kUnknownAction, "no action named '" + name + "'");
  return -1;
}

bool TableUpdates::canonical_action(const TableInfo& t, const TableUpdate& u, CanonicalEntry* e, UpdateError* error) {
  const std::string tn = "table '" + t.name + "'";
  if (t.impl != TableImpl::kSimple) {
    // P4Runtime's action_profile_member_id / action_profile_group_id.
    const ActionProfileState& prof = runtime.profiles[static_cast<std::size_t>(t.profile)];
    const std::string pn = "action profile '" + program.action_profiles[static_cast<std::size_t>(t.profile)].name + "'";
    if (!u.action.empty() || !u.params.empty() || u.member.has_value() == u.group.has_value()) {
      *error = fail(UpdateCode::kIndirect, tn + " takes its actions from " + pn + ": an entry names a member or a group, not an action");
      return false;
    }
    if (u.group && t.impl != TableImpl::kIndirectWs) {
      *error = fail(UpdateCode::kIndirect, tn + " has no selector: an entry names a member, not a group");
      return false;
    }
    if (u.member && !prof.members.count(*u.member)) {
      *error = fail(UpdateCode::kNoSuchMember, pn + " has no member " + std::to_string(*u.member));
      return false;
    }
    if (u.group && !prof.groups.count(*u.group)) {
      *error = fail(UpdateCode::kNoSuchGroup, pn + " has no group " + std::to_string(*u.group));
      return false;
    }
    e->action = static_cast<int>(u.member ? *u.member : (*u.group | kIndirectGroupFlag));
    e->data.assign(static_cast<std::size_t>(t.data_limbs), 0);
    return true;
  }
  if (u.member || u.group) {
    *error = fail(UpdateCode::kIndirect, tn + " is not indirect: an entry names an action, not a member or group");
    return false;
  }
  int action = table_action(program, t, u.action, error);
  if (action < 0) return false;
  e->action = action;
  return action_arguments(program.actions[static_cast<std::size_t>(action)], u, t.data_limbs, &e->data, error);
}

namespace {

// Two range entries are the same when key, mask, ends and priority are.
int range_slot(const TableRuntime& rt, const TableInfo& t, const CanonicalEntry& e) {
  const auto kb = static_cast<std::size_t>(t.key_bytes);
  for (std::size_t slot = 0; slot < rt.store.slots(); ++slot) {
    int s = static_cast<int>(slot);
    if (!rt.store.live(s) || rt.store.rank(s) != e.priority) continue;
    if (std::memcmp(rt.store.key(s), e.key.data(), kb) == 0 && std::memcmp(rt.store.mask(s), e.mask.data(), kb) == 0 &&
        std::memcmp(&rt.range_high[slot * kb], e.high.data(), kb) == 0)
      return s;
  }
  return -1;
}

}  // namespace

std::uint64_t* TableUpdates::find_entry(int table, const CanonicalEntry& e) {
  TableRuntime& rt = tables[static_cast<std::size_t>(table)];
  if (rt.count == 0) return nullptr;
  const TableInfo& t = program.tables[static_cast<std::size_t>(table)];
  switch (t.match_type) {
    case TableMatchType::kExact: return rt.exact.find_mut(e.key.data(), 0);
    case TableMatchType::kLpm: return rt.lpm.find(e.key.data(), e.prefix_bits);
    case TableMatchType::kTernary: {
      int slot = rt.ternary->find(e.key.data(), e.mask.data(), e.priority);
      return slot < 0 ? nullptr : rt.store.meta(slot);
    }
    case TableMatchType::kRange: {
      int slot = range_slot(rt, t, e);
      return slot < 0 ? nullptr : rt.store.meta(slot);
    }
  }
  return nullptr;
}

void TableUpdates::reference(const TableInfo& t, std::uint32_t ref, int delta) {
  if (t.impl == TableImpl::kSimple) return;
  ActionProfileState& prof = runtime.profiles[static_cast<std::size_t>(t.profile)];
  auto& refs = (ref & kIndirectGroupFlag) ? prof.group_refs : prof.member_refs;
  std::uint32_t& n = refs[ref & kIndirectIdMask];
  n = static_cast<std::uint32_t>(static_cast<std::int64_t>(n) + delta);
  if (n == 0) refs.erase(ref & kIndirectIdMask);
}

bool TableUpdates::insert_entry(int table, const CanonicalEntry& e, UpdateError* error, std::uint32_t* handle_out) {
  const TableInfo& t = program.tables[static_cast<std::size_t>(table)];
  TableRuntime& rt = tables[static_cast<std::size_t>(table)];
  // bmv2 sizes a table with const entries by its list, whatever max_size says.
  if (!t.immutable && rt.count >= t.max_size) {
    *error = fail(UpdateCode::kTableFull, "table " + t.name + " full (max_size " + std::to_string(t.max_size) + ")");
    return false;
  }
  // bmv2's handle: the lowest one free.
  std::uint32_t handle;
  if (!rt.free_handles.empty()) {
    handle = *rt.free_handles.begin();
    rt.free_handles.erase(rt.free_handles.begin());
  } else {
    handle = rt.next_handle++;
    rt.handle_live.push_back(0);
    rt.timeouts_ms.push_back(0);
    if (t.with_counters) rt.entry_counters.emplace_back();
    if (t.direct_meter >= 0) {
      rt.entry_meters.rates.resize(rt.entry_meters.rates.size() + static_cast<std::size_t>(rt.entry_meters.rate_count));
      rt.entry_meters.configured.push_back(0);
    }
  }
  rt.handle_live[handle] = 1;
  rt.timeouts_ms[handle] = 0;
  // A new entry starts with zero counts and an unconfigured meter, as in bmv2.
  if (t.with_counters) rt.entry_counters[handle] = CounterCell{};
  if (t.direct_meter >= 0) rt.entry_meters.configured[handle] = 0;
  std::vector<std::uint64_t> data = e.data;
  data.resize(static_cast<std::size_t>(t.data_limbs) + 1, 0);
  data[static_cast<std::size_t>(t.data_limbs)] = handle;
  switch (t.match_type) {
    case TableMatchType::kExact: rt.exact.insert(e.key.data(), 0, make_meta(e.action, 0), data.data()); break;
    case TableMatchType::kLpm: rt.lpm.insert(e.key.data(), e.prefix_bits, make_meta(e.action, e.prefix_bits), data.data()); break;
    case TableMatchType::kTernary:
    case TableMatchType::kRange: {
      int slot = rt.store.add(e.key.data(), make_meta(e.action, e.priority), data.data());
      std::copy(e.mask.begin(), e.mask.end(), rt.store.mask_mut(slot));
      // Among equal priorities bmv2 takes the entry of the lowest handle.
      rt.store.seq[static_cast<std::size_t>(slot)] = handle;
      if (t.match_type == TableMatchType::kTernary) {
        rt.ternary->insert(slot);
      } else {
        const auto kb = static_cast<std::size_t>(t.key_bytes);
        if (rt.range_high.size() < rt.store.slots() * kb) rt.range_high.resize(rt.store.slots() * kb);
        std::copy(e.high.begin(), e.high.end(), rt.range_high.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(slot) * kb));
      }
      break;
    }
  }
  reference(t, static_cast<std::uint32_t>(e.action), 1);
  ++rt.count;
  if (handle_out) *handle_out = handle;
  return true;
}

void TableUpdates::erase_entry(int table, const CanonicalEntry& e, std::uint64_t* meta) {
  const TableInfo& t = program.tables[static_cast<std::size_t>(table)];
  TableRuntime& rt = tables[static_cast<std::size_t>(table)];
  auto handle = static_cast<std::uint32_t>(meta[1 + t.data_limbs]);
  reference(t, static_cast<std::uint32_t>(meta_action(*meta)), -1);
  switch (t.match_type) {
    case TableMatchType::kExact: rt.exact.erase(e.key.data(), 0); break;
    case TableMatchType::kLpm: rt.lpm.erase(e.key.data(), e.prefix_bits); break;
    case TableMatchType::kTernary: {
      int slot = rt.ternary->find(e.key.data(), e.mask.data(), e.priority);
      rt.ternary->erase(slot);
      rt.store.release(slot);
      break;
    }
    case TableMatchType::kRange: rt.store.release(range_slot(rt, t, e)); break;
  }
  rt.handle_live[handle] = 0;
  rt.free_handles.insert(handle);
  --rt.count;
}

bool TableUpdates::apply(const TableUpdate& u, UpdateError* error, std::uint32_t* handle) {
  if (!printable(u.table)) {
    *error = fail(UpdateCode::kBadName, "the table name is empty or not printable ASCII");
    return false;
  }
  auto it = program.table_by_name.find(u.table);
  if (it == program.table_by_name.end()) {
    *error = fail(UpdateCode::kUnknownTable, "no table named '" + u.table + "'");
    return false;
  }
  const int table = it->second;
  const TableInfo& t = program.tables[static_cast<std::size_t>(table)];
  TableRuntime& rt = tables[static_cast<std::size_t>(table)];
  const std::string tn = "table '" + t.name + "'";
  CanonicalEntry e;
  if (u.type == UpdateType::kDefault) {
    if (!u.match.empty() || u.priority) {
      *error = fail(UpdateCode::kBadRecord, tn + ": a DEFAULT update takes no match fields and no priority");
      return false;
    }
    if (!canonical_action(t, u, &e, error)) return false;
    DefaultEntry& cur = rt.default_entry;
    if (t.impl != TableImpl::kSimple) {
      // bmv2's table_indirect_set_default(_with_group).
      if (cur.present) reference(t, cur.group >= 0 ? static_cast<std::uint32_t>(cur.group) | kIndirectGroupFlag : static_cast<std::uint32_t>(cur.member), -1);
      reference(t, static_cast<std::uint32_t>(e.action), 1);
      cur.present = true;
      cur.member = u.member ? static_cast<std::int64_t>(*u.member) : -1;
      cur.group = u.group ? static_cast<std::int64_t>(*u.group) : -1;
      return true;
    }
    const DefaultEntry& d = t.default_entry;
    if (d.present && d.action_const && e.action != d.action) {
      *error = fail(UpdateCode::kConstDefault, tn + "'s default action is const ('" + program.actions[static_cast<std::size_t>(d.action)].name + "')");
      return false;
    }
    if (d.present && d.entry_const && e.data != d.data) {
      *error = fail(UpdateCode::kConstDefault, tn + "'s default action and its arguments are const");
      return false;
    }
    cur.present = true;
    cur.action = e.action;
    cur.data = e.data;
    return true;
  }
  if (t.immutable) {
    *error = fail(UpdateCode::kImmutableTable, tn + " has const entries (an 'entries' list): its entries cannot change");
    return false;
  }
  if (t.keys.empty()) {
    *error = fail(UpdateCode::kKeylessTable, tn + " has no key: only its default action can be set");
    return false;
  }
  if (!canonical_key(t, u, &e, error)) return false;
  std::uint64_t* meta = find_entry(table, e);
  switch (u.type) {
    case UpdateType::kInsert:
      if (meta != nullptr) {
        *error = fail(UpdateCode::kDuplicateEntry, tn + " already has an entry for key " + bytes_hex(e.key.data(), t.key_bytes) +
                                                       (t.needs_priority() ? " at priority " + std::to_string(e.priority) : ""));
        return false;
      }
      if (!canonical_action(t, u, &e, error)) return false;
      return insert_entry(table, e, error, handle);
    case UpdateType::kModify: {
      if (meta == nullptr) {
        *error = fail(UpdateCode::kNoSuchEntry, tn + " has no entry for key " + bytes_hex(e.key.data(), t.key_bytes) + " to modify");
        return false;
      }
      if (!canonical_action(t, u, &e, error)) return false;
      // In place: the entry keeps its handle, its counters and its rank.
      reference(t, static_cast<std::uint32_t>(meta_action(*meta)), -1);
      reference(t, static_cast<std::uint32_t>(e.action), 1);
      *meta = make_meta(e.action, meta_rank(*meta));
      std::copy(e.data.begin(), e.data.begin() + t.data_limbs, meta + 1);
      if (handle) *handle = static_cast<std::uint32_t>(meta[1 + t.data_limbs]);
      return true;
    }
    case UpdateType::kDelete:
      if (meta == nullptr) {
        *error = fail(UpdateCode::kNoSuchEntry, tn + " has no entry for key " + bytes_hex(e.key.data(), t.key_bytes) + " to delete");
        return false;
      }
      if (handle) *handle = static_cast<std::uint32_t>(meta[1 + t.data_limbs]);
      erase_entry(table, e, meta);
      return true;
    case UpdateType::kDefault: break;
  }
  return false;
}

bool TableUpdates::install_const_entries(LoadError* error) {
  for (std::size_t ti = 0; ti < program.tables.size(); ++ti) {
    const TableInfo& t = program.tables[ti];
    for (std::size_t i = 0; i < t.const_entries.size(); ++i) {
      const ConstEntry& ce = t.const_entries[i];
      // Through the same checks as a control plane's insert.
      TableUpdate u;
      u.table = t.name;
      for (const KeyField& kf : t.keys) {
        MatchField mf;
        mf.field = kf.name;
        mf.value = bytes_hex(&ce.key[static_cast<std::size_t>(kf.offset)], kf.nbytes);
        if (kf.kind == MatchKind::kLpm) mf.prefix_len = ce.prefix_len;
        if (kf.kind == MatchKind::kTernary || kf.kind == MatchKind::kOptional)
          mf.mask = bytes_hex(&ce.mask[static_cast<std::size_t>(kf.offset)], kf.nbytes);
        if (kf.kind == MatchKind::kRange) mf.high = bytes_hex(&ce.high[static_cast<std::size_t>(kf.offset)], kf.nbytes);
        u.match.push_back(std::move(mf));
      }
      if (t.needs_priority()) u.priority = ce.priority;
      // The compiler's entries are held to bmv2's rules, not P4Runtime's: bmv2 keeps a
      // key's bits under its mask or prefix only, so those are all the entry means.
      for (MatchField& mf : u.match) {
        Value v, m;
        parse_number(mf.value, &v);
        const KeyField& kf = t.keys[static_cast<std::size_t>(&mf - u.match.data())];
        if (mf.mask && parse_number(*mf.mask, &m)) value_and(v, v, m);
        if (mf.prefix_len && *mf.prefix_len >= 0 && *mf.prefix_len <= kf.width)
          value_and(v, v, Value::prefix_mask(kf.width, *mf.prefix_len));
        mf.value = v.to_hex();
      }
      CanonicalEntry e;
      UpdateError ue;
      bool ok = canonical_key(t, u, &e, &ue);
      if (ok && find_entry(static_cast<int>(ti), e) != nullptr) {
        ok = false;
        ue.message = "table '" + t.name + "' lists the same key twice";
      }
      if (ok) {
        e.action = ce.action;
        e.data = ce.data;
        e.data.resize(static_cast<std::size_t>(t.data_limbs), 0);
        ok = insert_entry(static_cast<int>(ti), e, &ue, nullptr);
      }
      if (!ok) {
        *error = {LoadCode::kTableEntries, "table '" + t.name + "' entry " + std::to_string(i) + ": " + ue.message};
        return false;
      }
    }
  }
  return true;
}

}  // namespace dpusim::p4
