// The engine's public face: loading, the per-frame flow of simple_switch (parse, ingress,
// the end-of-ingress decision, egress, the end-of-egress decision, deparse) and the two
// port policies that interpret egress_spec.
#include "dpusim/p4/engine.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "dpusim/p4/limits.h"
#include "engine_impl.h"
#include "loader.h"

namespace dpusim::p4 {

const char* drop_reason_name(DropReason reason) {
  switch (reason) {
    case DropReason::kNone: return "none";
    case DropReason::kTooSmall: return "too_small";
    case DropReason::kTooBig: return "too_big";
    case DropReason::kIngressDrop: return "ingress_drop";
    case DropReason::kEgressDrop: return "egress_drop";
    case DropReason::kNoSuchPort: return "no_such_port";
    case DropReason::kFault: return "fault";
    case DropReason::kExternStop: return "extern_stop";
  }
  return "unknown";
}

std::string Stats::line() const {
  std::ostringstream s;
  s << "P4 stats: host_in=" << host_in << " host_out=" << host_out << " uplink_in=" << uplink_in
    << " uplink_out=" << uplink_out << " dropped=" << dropped << " too_big=" << too_big
    << " parse_errors=" << parse_errors << " to_guest=" << to_guest << " to_net=" << to_net
    << " to_upstream=" << to_upstream << " egress_errors=" << egress_errors << " faults=" << faults;
  return s.str();
}

void EngineState::init_tables() {
  tables.resize(program.tables.size());
  for (std::size_t i = 0; i < program.tables.size(); ++i) {
    const TableInfo& t = program.tables[i];
    TableRuntime& rt = tables[i];
    // Empty shells: memory comes with the first entry. Each record's runtime data is
    // followed by the entry's handle.
    rt.exact.init(t.key_bytes, t.data_limbs + 1);
    rt.lpm.init(t.key_bytes, t.data_limbs + 1);
    rt.store.init(t.key_bytes, t.data_limbs + 1);
    if (t.match_type == TableMatchType::kTernary) rt.ternary = std::make_unique<TernaryIndex>(&rt.store);
    rt.default_entry = t.default_entry;
    if (t.match_type == TableMatchType::kLpm) rt.lpm_base_bits = t.key_bytes * 8 - t.keys[t.lpm_key].width;
    if (t.direct_meter >= 0) {
      rt.entry_meters.rate_count = program.meters[static_cast<std::size_t>(t.direct_meter)].rate_count;
      rt.entry_meters.packets = program.meters[static_cast<std::size_t>(t.direct_meter)].packets;
    }
  }
}

Engine::Engine(std::unique_ptr<EngineState> state) : impl_(std::move(state)) {}
Engine::~Engine() = default;

std::unique_ptr<Engine> Engine::load(std::string_view json, const LoadOptions& options, LoadError* error) {
  auto impl = std::make_unique<EngineState>();
  impl->options = options;
  if (!load_program(json, options.externs, options.features, &impl->program, error)) return nullptr;
  impl->init_tables();
  impl->runtime.init(impl->program);
  impl->exec = std::make_unique<Executor>(impl->program, impl->tables, impl->runtime);
  if (!impl->updates.install_const_entries(error)) return nullptr;
  return std::unique_ptr<Engine>(new Engine(std::move(impl)));
}

std::unique_ptr<Engine> Engine::load_file(const std::string& path, const LoadOptions& options, LoadError* error) {
  std::error_code ec;
  std::ifstream in(path, std::ios::binary);
  if (!in || std::filesystem::is_directory(path, ec)) {
    *error = {LoadCode::kIo, "cannot open '" + path + "'"};
    return nullptr;
  }
  // Read in chunks, stopping one byte past the limit: an oversized file is refused by its
  // size without being read whole (it may not even be a regular file).
  std::string text;
  char chunk[65536];
  while (in && text.size() <= P4_MAX_DOCUMENT_BYTES) {
    in.read(chunk, sizeof chunk);
    text.append(chunk, static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) {
    *error = {LoadCode::kIo, "cannot read '" + path + "'"};
    return nullptr;
  }
  if (text.size() > P4_MAX_DOCUMENT_BYTES) {
    *error = {LoadCode::kDocumentSize, "document is more than " + std::to_string(P4_MAX_DOCUMENT_BYTES) +
                                           " bytes (4 MiB), the limit"};
    return nullptr;
  }
  return load(text, options, error);
}

bool Engine::update(const TableUpdate& u, UpdateError* error, std::uint32_t* handle) {
  if (!u.action_profile.empty()) return impl_->updates.apply_profile(u, error);
  return impl_->updates.apply(u, error, handle);
}
RuntimeObjects& Engine::objects() { return impl_->objects; }
const RuntimeObjects& Engine::objects() const { return impl_->objects; }
Replication& Engine::replication() { return impl_->replication; }
MetadataRun& Engine::metadata() { return impl_->metadata; }
const MetadataRun& Engine::metadata() const { return impl_->metadata; }
const Stats& Engine::stats() const { return impl_->stats; }
Stats& Engine::mutable_stats() { return impl_->stats; }
void Engine::set_seed(std::uint64_t seed) { impl_->runtime.rng.seed(seed); }
PortPolicy Engine::policy() const { return impl_->options.policy; }
FeaturePolicy Engine::features() const { return impl_->options.features; }

std::string Engine::summary() const {
  const Program& p = impl_->program;
  int n[4] = {0, 0, 0, 0};
  for (const TableInfo& t : p.tables) ++n[static_cast<int>(t.match_type)];
  std::size_t headers = 0, metadata = 0;
  for (const HeaderInfo& h : p.headers) (h.metadata ? metadata : headers)++;
  std::ostringstream s;
  s << (p.name.empty() ? "program" : p.name) << ": " << headers << " headers, " << metadata << " metadata, "
    << p.parser.states.size() << " parse states, " << p.actions.size() << " actions, " << p.tables.size()
    << " tables (" << n[0] << " exact, " << n[1] << " lpm, " << n[2] << " ternary" << (n[3] ? ", " + std::to_string(n[3]) + " range" : "")
    << "), " << p.conditionals.size()
    << " conditionals, " << p.phv_bytes << "/" << P4_MAX_PHV_BYTES << " header vector bytes, "
    << p.entries_budget_used << " table entries requested";
  return s.str();
}

std::vector<TableDesc> Engine::describe_tables() const {
  static const char* kinds[] = {"exact", "lpm", "ternary", "valid", "optional", "range"};
  static const char* types[] = {"exact", "lpm", "ternary", "range"};
  const Program& p = impl_->program;
  std::vector<TableDesc> out;
  for (std::size_t i = 0; i < p.tables.size(); ++i) {
    const TableInfo& t = p.tables[i];
    TableDesc d;
    d.name = t.name;
    d.match_type = types[static_cast<int>(t.match_type)];
    for (const KeyField& k : t.keys) d.keys.push_back({k.name, k.target_name, kinds[static_cast<int>(k.kind)], k.width});
    for (int a : t.actions) {
      const ActionInfo& ai = p.actions[static_cast<std::size_t>(a)];
      ActionDesc ad;
      ad.name = ai.name;
      for (const ActionParam& prm : ai.params) ad.params.emplace_back(prm.name, prm.width);
      d.actions.push_back(std::move(ad));
    }
    d.max_size = t.max_size;
    d.entries = impl_->tables[i].count;
    d.immutable = t.immutable;
    if (t.profile >= 0) {
      d.action_profile = p.action_profiles[static_cast<std::size_t>(t.profile)].name;
      d.selector = t.impl == TableImpl::kIndirectWs;
    }
    if (t.direct_counter >= 0) d.direct_counter = p.counters[static_cast<std::size_t>(t.direct_counter)].name;
    if (t.direct_meter >= 0) d.direct_meter = p.meters[static_cast<std::size_t>(t.direct_meter)].name;
    out.push_back(std::move(d));
  }
  return out;
}

std::vector<HeaderDesc> Engine::describe_headers() const {
  const Program& p = impl_->program;
  std::vector<HeaderDesc> out;
  for (std::size_t i = 0; i < p.headers.size(); ++i) {
    const HeaderInfo& h = p.headers[i];
    HeaderDesc d;
    d.name = h.name;
    d.type = p.header_types[static_cast<std::size_t>(h.type)].name;
    d.metadata = h.metadata;
    for (int index : p.deparser.order) d.emitted = d.emitted || index == static_cast<int>(i);
    for (int f = h.first_field; f < h.first_field + h.nfields; ++f) {
      const FieldInfo& fi = p.fields[static_cast<std::size_t>(f)];
      d.fields.emplace_back(fi.name.substr(h.name.size() + 1), fi.width);
    }
    out.push_back(std::move(d));
  }
  return out;
}

std::vector<ObjectDesc> Engine::describe_objects() const {
  const Program& p = impl_->program;
  std::vector<ObjectDesc> out;
  auto table_name = [&](int t) { return t >= 0 ? p.tables[static_cast<std::size_t>(t)].name : std::string(); };
  for (const CounterInfo& c : p.counters) out.push_back({c.name, "counter", c.size, 0, table_name(c.direct_table)});
  for (const MeterInfo& m : p.meters) out.push_back({m.name, "meter", m.size, m.rate_count, table_name(m.direct_table)});
  for (const RegisterInfo& r : p.registers) out.push_back({r.name, "register", r.size, r.width, ""});
  for (const ActionProfileInfo& a : p.action_profiles) out.push_back({a.name, "action_profile", a.max_size, 0, ""});
  for (const ParseVsetInfo& v : p.parse_vsets) out.push_back({v.name, "parse_vset", v.max_size, v.bitwidth, ""});
  for (const FieldListInfo& l : p.learn_lists) out.push_back({l.name, "learn_list", 0, 0, ""});
  return out;
}

const LoadOptions& Engine::load_options() const { return impl_->options; }

// --- MetadataRun ---------------------------------------------------------------------

int MetadataRun::field_handle(const std::string& name) const {
  const Program& p = m_.program;
  auto it = p.field_by_name.find(name);
  return it == p.field_by_name.end() ? -1 : it->second;
}

int MetadataRun::field_width(int handle) const {
  const Program& p = m_.program;
  return handle >= 0 && handle < static_cast<int>(p.fields.size()) ? p.fields[handle].width : 0;
}

Verdict MetadataRun::run(const std::vector<std::pair<int, Value>>& inputs) {
  EngineState& m = m_;
  const Program& p = m.program;
  Executor& x = *m.exec;
  static const std::uint8_t kNoFrame[1] = {0};
  x.begin_frame(kNoFrame, 0, 0);
  for (const auto& [handle, value] : inputs)
    if (handle >= 0 && handle < static_cast<int>(p.fields.size())) x.store_field(handle, value);
  x.st.egress_spec_written = false;
  x.run_pipeline(p.ingress);
  Verdict v;
  if (x.st.fault != nullptr) {
    v.dropped = true;
    v.reason = DropReason::kFault;
    v.fault = x.st.fault;
  } else if (p.f_egress_spec >= 0 && x.field_u64(p.f_egress_spec) == P4_V1MODEL_DROP_PORT) {
    v.dropped = true;
    v.reason = DropReason::kIngressDrop;
  } else if (x.st.stop) {
    v.reason = DropReason::kExternStop;
  }
  return v;
}

Value MetadataRun::read_field(int handle) const {
  Value v = Value::zero();
  if (handle >= 0 && handle < static_cast<int>(m_.program.fields.size())) m_.exec->load_field(handle, v);
  return v;
}

void MetadataRun::set_extern_context(void* context) { m_.exec->st.extern_context = context; }

}  // namespace dpusim::p4
