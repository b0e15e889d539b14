// The control plane's other objects, as simple_switch_CLI reaches them (bmv2's runtime
// interface): counters, meters and registers by name and index (a direct counter or meter
// by its table entry's handle), mirroring sessions, the packet replication engine's groups
// and nodes, parse value sets, entry timeouts and custom CRC parameters. Every name and index is
// checked; nothing out of range is clamped. RuntimeObjects and Replication of engine.h.
#include <algorithm>

#include "engine_impl.h"
#include "update_util.h"

namespace dpusim::p4 {

namespace {

template <typename Map>
int find_named(const Map& names, const std::string& name, const char* kind, UpdateError* error) {
  if (!printable(name)) {
    *error = fail(UpdateCode::kBadName, std::string("the ") + kind + " name is empty or not printable ASCII");
    return -1;
  }
  auto it = names.find(name);
  if (it == names.end()) {
    *error = fail(UpdateCode::kUnknownObject, std::string("no ") + kind + " named '" + name + "'");
    return -1;
  }
  return it->second;
}

bool in_range(std::uint64_t index, std::uint64_t size, const std::string& what, UpdateError* error) {
  if (index < size) return true;
  *error = fail(UpdateCode::kIndex, what + ": index " + std::to_string(index) + " is past its " + std::to_string(size) + " cells");
  return false;
}

// A counter's cell: an array's, or a direct counter's by its table's entry handle.
CounterCell* counter_cell(EngineState& m, const std::string& name, std::uint32_t index, UpdateError* error) {
  int c = find_named(m.program.counter_by_name, name, "counter", error);
  if (c < 0) return nullptr;
  const CounterInfo& info = m.program.counters[static_cast<std::size_t>(c)];
  const std::string what = "counter '" + info.name + "'";
  if (info.direct_table >= 0) {
    TableRuntime& rt = m.tables[static_cast<std::size_t>(info.direct_table)];
    if (index >= rt.handle_live.size() || !rt.handle_live[index]) {
      *error = fail(UpdateCode::kIndex, what + " is direct: table '" + m.program.tables[static_cast<std::size_t>(info.direct_table)].name +
                                            "' has no entry of handle " + std::to_string(index));
      return nullptr;
    }
    return &rt.entry_counters[index];
  }
  std::vector<CounterCell>& cells = m.runtime.counters[static_cast<std::size_t>(c)];
  if (!in_range(index, cells.size(), what, error)) return nullptr;
  return &cells[index];
}

}  // namespace

bool RuntimeObjects::counter_read(const std::string& name, std::uint32_t index, std::uint64_t* bytes, std::uint64_t* packets,
                          UpdateError* error) const {
  CounterCell* cell = counter_cell(m_, name, index, error);
  if (cell == nullptr) return false;
  *bytes = cell->bytes;
  *packets = cell->packets;
  return true;
}

bool RuntimeObjects::counter_write(const std::string& name, std::uint32_t index, std::uint64_t bytes, std::uint64_t packets,
                           UpdateError* error) {
  CounterCell* cell = counter_cell(m_, name, index, error);
  if (cell == nullptr) return false;
  cell->bytes = bytes;
  cell->packets = packets;
  return true;
}

bool RuntimeObjects::counter_reset(const std::string& name, UpdateError* error) {
  int c = find_named(m_.program.counter_by_name, name, "counter", error);
  if (c < 0) return false;
  const CounterInfo& info = m_.program.counters[static_cast<std::size_t>(c)];
  auto& cells = info.direct_table >= 0 ? m_.tables[static_cast<std::size_t>(info.direct_table)].entry_counters
                                       : m_.runtime.counters[static_cast<std::size_t>(c)];
  std::fill(cells.begin(), cells.end(), CounterCell{});
  return true;
}

bool RuntimeObjects::meter_set_rates(const std::string& name, std::uint32_t index,
                             const std::vector<std::pair<double, std::uint64_t>>& rates, UpdateError* error) {
  int mi = find_named(m_.program.meter_by_name, name, "meter", error);
  if (mi < 0) return false;
  const MeterInfo& info = m_.program.meters[static_cast<std::size_t>(mi)];
  const std::string what = "meter '" + info.name + "'";
  MeterArrayState* state;
  if (info.direct_table >= 0) {
    TableRuntime& rt = m_.tables[static_cast<std::size_t>(info.direct_table)];
    if (index >= rt.handle_live.size() || !rt.handle_live[index]) {
      *error = fail(UpdateCode::kIndex, what + " is direct: table '" + m_.program.tables[static_cast<std::size_t>(info.direct_table)].name +
                                            "' has no entry of handle " + std::to_string(index));
      return false;
    }
    state = &rt.entry_meters;
  } else {
    state = &m_.runtime.meters[static_cast<std::size_t>(mi)];
    if (!in_range(index, state->configured.size(), what, error)) return false;
  }
  std::string why;
  if (!state->set_rates(index, rates, &why)) {
    *error = fail(UpdateCode::kBadRecord, what + " " + std::to_string(index) + ": " + why);
    return false;
  }
  return true;
}

bool RuntimeObjects::register_read(const std::string& name, std::uint32_t index, Value* value, UpdateError* error) const {
  int r = find_named(m_.program.register_by_name, name, "register", error);
  if (r < 0) return false;
  const RegisterInfo& info = m_.program.registers[static_cast<std::size_t>(r)];
  if (!in_range(index, info.size, "register '" + info.name + "'", error)) return false;
  const std::uint64_t* cell = &m_.runtime.registers[static_cast<std::size_t>(r)][static_cast<std::size_t>(index) * static_cast<std::size_t>(info.nlimbs)];
  *value = Value::zero();
  for (int l = 0; l < info.nlimbs; ++l) value->w[l] = cell[l];
  return true;
}

bool RuntimeObjects::register_write(const std::string& name, std::uint32_t index, const Value& value, UpdateError* error) {
  int r = find_named(m_.program.register_by_name, name, "register", error);
  if (r < 0) return false;
  const RegisterInfo& info = m_.program.registers[static_cast<std::size_t>(r)];
  const std::string what = "register '" + info.name + "'";
  if (!in_range(index, info.size, what, error)) return false;
  if (value.is_negative() || value.bit_length() > info.width) {
    *error = fail(UpdateCode::kValueWidth, what + ": value " + value.to_hex() + " is wider than its " + std::to_string(info.width) + " bits");
    return false;
  }
  std::uint64_t* cell = &m_.runtime.registers[static_cast<std::size_t>(r)][static_cast<std::size_t>(index) * static_cast<std::size_t>(info.nlimbs)];
  for (int l = 0; l < info.nlimbs; ++l) cell[l] = value.w[l];
  return true;
}

bool RuntimeObjects::register_reset(const std::string& name, UpdateError* error) {
  int r = find_named(m_.program.register_by_name, name, "register", error);
  if (r < 0) return false;
  auto& cells = m_.runtime.registers[static_cast<std::size_t>(r)];
  std::fill(cells.begin(), cells.end(), 0);
  return true;
}

bool Replication::mirroring_add(std::uint32_t session, const MirrorConfig& config, UpdateError* error) {
  if (session > P4_MAX_MIRROR_SESSION) {
    *error = fail(UpdateCode::kIndex, "mirroring session " + std::to_string(session) + " is outside [0, " + std::to_string(P4_MAX_MIRROR_SESSION) + "]");
    return false;
  }
  if (!config.port_valid && !config.mgid_valid) {
    *error = fail(UpdateCode::kBadRecord, "mirroring session " + std::to_string(session) + " names neither a port nor a multicast group");
    return false;
  }
  if (config.port_valid && config.port > P4_V1MODEL_DROP_PORT) {
    *error = fail(UpdateCode::kIndex, "mirroring session " + std::to_string(session) + ": port " + std::to_string(config.port) + " is outside [0, 511]");
    return false;
  }
  if (config.mgid_valid && (config.mgid == 0 || config.mgid > P4_MAX_MC_GROUP)) {
    *error = fail(UpdateCode::kIndex, "mirroring session " + std::to_string(session) + ": multicast group " + std::to_string(config.mgid) +
                                          " is outside [1, " + std::to_string(P4_MAX_MC_GROUP) + "]");
    return false;
  }
  MirrorSession s;
  s.port_valid = config.port_valid;
  s.port = config.port;
  s.mgid_valid = config.mgid_valid;
  s.mgid = config.mgid;
  m_.runtime.mirror_sessions[session] = s;
  return true;
}

bool Replication::mirroring_delete(std::uint32_t session, UpdateError* error) {
  if (m_.runtime.mirror_sessions.erase(session) == 0) {
    *error = fail(UpdateCode::kUnknownObject, "no mirroring session " + std::to_string(session));
    return false;
  }
  return true;
}

bool Replication::mc_group_create(std::uint32_t group, UpdateError* error) {
  if (group == 0 || group > P4_MAX_MC_GROUP) {
    *error = fail(UpdateCode::kIndex, "multicast group " + std::to_string(group) + " is outside [1, " + std::to_string(P4_MAX_MC_GROUP) + "]");
    return false;
  }
  if (m_.runtime.mc_groups.count(group)) {
    *error = fail(UpdateCode::kDuplicateEntry, "multicast group " + std::to_string(group) + " exists");
    return false;
  }
  m_.runtime.mc_groups[group];
  return true;
}

bool Replication::mc_group_destroy(std::uint32_t group, UpdateError* error) {
  auto g = m_.runtime.mc_groups.find(group);
  if (g == m_.runtime.mc_groups.end()) {
    *error = fail(UpdateCode::kUnknownObject, "no multicast group " + std::to_string(group));
    return false;
  }
  for (std::uint32_t node : g->second) m_.runtime.mc_nodes[node].group = -1;
  m_.runtime.mc_groups.erase(g);
  return true;
}

namespace {

bool check_ports(const std::vector<std::uint32_t>& ports, UpdateError* error) {
  for (std::uint32_t p : ports)
    if (p >= P4_V1MODEL_DROP_PORT) {
      *error = fail(UpdateCode::kIndex, "multicast port " + std::to_string(p) + " is outside [0, 510]");
      return false;
    }
  return true;
}

}  // namespace

bool Replication::mc_node_create(std::uint32_t rid, const std::vector<std::uint32_t>& ports, std::uint32_t* handle, UpdateError* error) {
  if (rid > 0xffff) {
    *error = fail(UpdateCode::kIndex, "replication id " + std::to_string(rid) + " is outside [0, 65535]");
    return false;
  }
  if (!check_ports(ports, error)) return false;
  auto& nodes = m_.runtime.mc_nodes;
  if (nodes.size() >= P4_MAX_MC_NODES) {
    *error = fail(UpdateCode::kTableFull, "the replication engine holds " + std::to_string(P4_MAX_MC_NODES) + " nodes");
    return false;
  }
  // bmv2's node handles: the lowest one free, from 0.
  std::uint32_t h = 0;
  while (nodes.count(h)) ++h;
  McNode& n = nodes[h];
  n.rid = rid;
  n.ports = std::set<std::uint32_t>(ports.begin(), ports.end());
  *handle = h;
  return true;
}

bool Replication::mc_node_update(std::uint32_t handle, const std::vector<std::uint32_t>& ports, UpdateError* error) {
  auto n = m_.runtime.mc_nodes.find(handle);
  if (n == m_.runtime.mc_nodes.end()) {
    *error = fail(UpdateCode::kUnknownObject, "no multicast node " + std::to_string(handle));
    return false;
  }
  if (!check_ports(ports, error)) return false;
  n->second.ports = std::set<std::uint32_t>(ports.begin(), ports.end());
  return true;
}

bool Replication::mc_node_destroy(std::uint32_t handle, UpdateError* error) {
  auto n = m_.runtime.mc_nodes.find(handle);
  if (n == m_.runtime.mc_nodes.end()) {
    *error = fail(UpdateCode::kUnknownObject, "no multicast node " + std::to_string(handle));
    return false;
  }
  if (n->second.group >= 0) {
    auto& list = m_.runtime.mc_groups[static_cast<std::uint32_t>(n->second.group)];
    list.erase(std::remove(list.begin(), list.end(), handle), list.end());
  }
  m_.runtime.mc_nodes.erase(n);
  return true;
}

bool Replication::mc_node_associate(std::uint32_t group, std::uint32_t handle, UpdateError* error) {
  auto g = m_.runtime.mc_groups.find(group);
  auto n = m_.runtime.mc_nodes.find(handle);
  if (g == m_.runtime.mc_groups.end() || n == m_.runtime.mc_nodes.end()) {
    *error = fail(UpdateCode::kUnknownObject, g == m_.runtime.mc_groups.end() ? "no multicast group " + std::to_string(group)
                                                                                 : "no multicast node " + std::to_string(handle));
    return false;
  }
  if (n->second.group >= 0) {
    *error = fail(UpdateCode::kInUse, "multicast node " + std::to_string(handle) + " is already in group " + std::to_string(n->second.group));
    return false;
  }
  n->second.group = group;
  g->second.push_back(handle);
  return true;
}

bool Replication::mc_node_dissociate(std::uint32_t group, std::uint32_t handle, UpdateError* error) {
  auto g = m_.runtime.mc_groups.find(group);
  auto n = m_.runtime.mc_nodes.find(handle);
  if (g == m_.runtime.mc_groups.end() || n == m_.runtime.mc_nodes.end() || n->second.group != static_cast<std::int64_t>(group)) {
    *error = fail(UpdateCode::kUnknownObject, "multicast node " + std::to_string(handle) + " is not in group " + std::to_string(group));
    return false;
  }
  n->second.group = -1;
  g->second.erase(std::remove(g->second.begin(), g->second.end(), handle), g->second.end());
  return true;
}

namespace {

// A value set member in a use's key layout: the compressed value split over the key's
// fields, each right-aligned in its bytes (bmv2's ParseVSet::do_padding), then masked.
std::vector<std::uint8_t> vset_key(const Program& p, const VsetCase& c, const Value& value) {
  const ParseState& s = p.parser.states[static_cast<std::size_t>(c.state)];
  const Transition& t = s.transitions[static_cast<std::size_t>(c.transition)];
  std::vector<std::uint8_t> key(static_cast<std::size_t>(s.key_bytes), 0);
  int shift = p.parse_vsets[static_cast<std::size_t>(c.vset)].bitwidth;
  int off = 0;
  for (const KeyPart& part : s.key) {
    shift -= part.width;
    Value v;
    value_shr(v, value, static_cast<unsigned>(shift));
    v.truncate(part.width);
    v.get_bytes_be(&key[static_cast<std::size_t>(off)], static_cast<std::size_t>(part.nbytes));
    off += part.nbytes;
  }
  for (std::size_t i = 0; i < key.size(); ++i) key[i] &= t.mask[i];
  return key;
}

int vset_index(const EngineState& m, const std::string& name, const Value& value, UpdateError* error) {
  int v = find_named(m.program.parse_vset_by_name, name, "parse value set", error);
  if (v < 0) return -1;
  const ParseVsetInfo& info = m.program.parse_vsets[static_cast<std::size_t>(v)];
  if (value.is_negative() || value.bit_length() > info.bitwidth) {
    *error = fail(UpdateCode::kValueWidth, "parse value set '" + info.name + "': value " + value.to_hex() + " is wider than its " +
                                               std::to_string(info.bitwidth) + " bits");
    return -1;
  }
  return v;
}

std::vector<std::uint8_t> vset_bytes(const Value& value, int bits) {
  std::vector<std::uint8_t> b(static_cast<std::size_t>((bits + 7) / 8));
  value.get_bytes_be(b.data(), b.size());
  return b;
}

void vset_rebuild(EngineState& m, int v) {
  const Program& p = m.program;
  for (std::size_t c = 0; c < p.vset_cases.size(); ++c) {
    if (p.vset_cases[c].vset != v) continue;
    auto& members = m.runtime.vset_cases[c];
    members.clear();
    for (const auto& bytes : m.runtime.vset_values[static_cast<std::size_t>(v)]) {
      Value value;
      value.set_bytes_be(bytes.data(), bytes.size());
      members.insert(vset_key(p, p.vset_cases[c], value));
    }
  }
}

}  // namespace

bool RuntimeObjects::pvs_add(const std::string& name, const Value& value, UpdateError* error) {
  int v = vset_index(m_, name, value, error);
  if (v < 0) return false;
  const ParseVsetInfo& info = m_.program.parse_vsets[static_cast<std::size_t>(v)];
  auto& values = m_.runtime.vset_values[static_cast<std::size_t>(v)];
  if (values.size() >= info.max_size && !values.count(vset_bytes(value, info.bitwidth))) {
    *error = fail(UpdateCode::kTableFull, "parse value set '" + info.name + "' full (" + std::to_string(info.max_size) + " values)");
    return false;
  }
  values.insert(vset_bytes(value, info.bitwidth));
  vset_rebuild(m_, v);
  return true;
}

bool RuntimeObjects::pvs_remove(const std::string& name, const Value& value, UpdateError* error) {
  int v = vset_index(m_, name, value, error);
  if (v < 0) return false;
  const ParseVsetInfo& info = m_.program.parse_vsets[static_cast<std::size_t>(v)];
  if (m_.runtime.vset_values[static_cast<std::size_t>(v)].erase(vset_bytes(value, info.bitwidth)) == 0) {
    *error = fail(UpdateCode::kNoSuchEntry, "parse value set '" + info.name + "' has no value " + value.to_hex());
    return false;
  }
  vset_rebuild(m_, v);
  return true;
}

bool RuntimeObjects::pvs_clear(const std::string& name, UpdateError* error) {
  int v = find_named(m_.program.parse_vset_by_name, name, "parse value set", error);
  if (v < 0) return false;
  m_.runtime.vset_values[static_cast<std::size_t>(v)].clear();
  vset_rebuild(m_, v);
  return true;
}

bool RuntimeObjects::set_entry_timeout(const std::string& table, std::uint32_t handle, std::uint64_t timeout_ms, UpdateError* error) {
  int t = find_named(m_.program.table_by_name, table, "table", error);
  if (t < 0) return false;
  const TableInfo& info = m_.program.tables[static_cast<std::size_t>(t)];
  TableRuntime& rt = m_.tables[static_cast<std::size_t>(t)];
  if (!info.support_timeout) {
    *error = fail(UpdateCode::kBadRecord, "table '" + info.name + "' does not support idle timeouts");
    return false;
  }
  if (handle >= rt.handle_live.size() || !rt.handle_live[handle]) {
    *error = fail(UpdateCode::kNoSuchEntry, "table '" + info.name + "' has no entry of handle " + std::to_string(handle));
    return false;
  }
  rt.timeouts_ms[handle] = static_cast<std::int64_t>(timeout_ms);
  return true;
}

bool RuntimeObjects::set_crc_parameters(const std::string& calculation, int width, std::uint64_t poly, std::uint64_t init,
                                std::uint64_t xor_out, bool reflect_in, bool reflect_out, UpdateError* error) {
  int c = find_named(m_.program.calculation_by_name, calculation, "calculation", error);
  if (c < 0) return false;
  const CalculationInfo& info = m_.program.calculations[static_cast<std::size_t>(c)];
  HashAlgo want = width == 16 ? HashAlgo::kCrc16Custom : HashAlgo::kCrc32Custom;
  if (info.algo != want) {
    *error = fail(UpdateCode::kBadRecord, "calculation '" + info.name + "' is " + hash_algo_name(info.algo) + ", not " +
                                              hash_algo_name(want));
    return false;
  }
  const std::uint64_t mask = (1ull << width) - 1;
  if ((poly | init | xor_out) & ~mask) {
    *error = fail(UpdateCode::kValueWidth, "calculation '" + info.name + "': a parameter is wider than " + std::to_string(width) + " bits");
    return false;
  }
  m_.runtime.crcs[static_cast<std::size_t>(c)].init(CrcSpec{width, poly, init, xor_out, reflect_in, reflect_out});
  return true;
}


}  // namespace dpusim::p4
