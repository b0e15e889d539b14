// The sections of JSON_format.md beside the pipeline: calculations and checksums, counter,
// meter and register arrays, field lists and learn lists (clone, resubmit, recirculate,
// digests) and parse value sets. Every array and size is bounded (limits.h) before
// anything is allocated for it.
#include <set>

#include "dpusim/p4/limits.h"
#include "hash_algos.h"
#include "loader.h"

namespace dpusim::p4 {

std::vector<CalcInput> Calculations::calc_inputs(const Json& arr, const std::string& where, bool fields_only) {
  jf::check_array(arr, P4_MAX_CALC_INPUTS, where + " 'input'");
  std::vector<CalcInput> out;
  for (std::size_t i = 0; i < arr.size(); ++i) {
    const Json& in = arr[i];
    std::string iw = where + " input " + std::to_string(i);
    std::string type = jf::string(in, "type", iw);
    CalcInput ci;
    if (type == "field") {
      ci.kind = CalcInput::Kind::kField;
      ci.a = ex_.field_ref(jf::member(in, "value", iw), iw);
      const FieldInfo& f = p_.fields[static_cast<std::size_t>(ci.a)];
      ci.limb = f.limb;
      ci.width = f.width;
      ci.header = f.header;
      ci.varbit = f.varbit;
    } else if (fields_only) {
      refuse(LoadCode::kSchema, iw + " is of type '" + type + "'; a selector's input is fields");
    } else if (type == "hexstr") {
      ci.kind = CalcInput::Kind::kConst;
      ci.bits = static_cast<int>(jf::integer(in, "bitwidth", iw, 1, P4_MAX_FIELD_BITS));
      Value v = jf::hexstr_fitting(jf::member(in, "value", iw), ci.bits, iw);
      p_.consts.push_back(v);
      ci.a = static_cast<int>(p_.consts.size()) - 1;
    } else if (type == "header") {
      const Json& hv = jf::member(in, "value", iw);
      if (!hv.is_string()) refuse(LoadCode::kSchema, iw + ": header is not a name");
      ci.kind = CalcInput::Kind::kHeader;
      ci.a = ex_.header_ref(hv.get<std::string>(), iw);
      if (p_.headers[ci.a].metadata) refuse(LoadCode::kOperandKind, iw + ": '" + p_.headers[ci.a].name + "' is metadata");
    } else if (type == "payload") {
      ci.kind = CalcInput::Kind::kPayload;
    } else {
      refuse(LoadCode::kSchema, iw + " is of type '" + type + "', not field, hexstr, header or payload");
    }
    out.push_back(ci);
  }
  return out;
}

int Calculations::add_calculation(const std::string& name, int id, const std::string& algo, std::vector<CalcInput> inputs,
                            const std::string& where) {
  CalculationInfo c;
  c.name = name;
  c.id = id;
  if (!hash_algo_by_name(algo, &c.algo)) {
    jf::check_name(algo, where + " algo");
    refuse_feature("hash algorithm " + algo.substr(0, 100), where);
  }
  c.inputs = std::move(inputs);
  for (const CalcInput& in : c.inputs) {
    switch (in.kind) {
      case CalcInput::Kind::kField: c.max_bytes += (p_.fields[static_cast<std::size_t>(in.a)].width + 7) / 8 + 1; break;
      case CalcInput::Kind::kConst: c.max_bytes += (in.bits + 7) / 8 + 1; break;
      case CalcInput::Kind::kHeader: c.max_bytes += p_.headers[static_cast<std::size_t>(in.a)].phv_bytes + 1; break;
      case CalcInput::Kind::kPayload: c.max_bytes += static_cast<int>(P4_MAX_FRAME_BYTES) + 1; break;
    }
  }
  c.run_at.assign(c.inputs.size(), -1);
  for (std::size_t i = 0; i < c.inputs.size();) {
    std::size_t j = i;
    if (c.inputs[i].kind == CalcInput::Kind::kField) {
      const FieldInfo& f0 = p_.fields[static_cast<std::size_t>(c.inputs[i].a)];
      const HeaderInfo& h = p_.headers[static_cast<std::size_t>(f0.header)];
      int end = f0.bit_offset + f0.width;
      if (!h.metadata && h.varbit_field < 0 && f0.bit_offset % 8 == 0) {
        while (j + 1 < c.inputs.size() && c.inputs[j + 1].kind == CalcInput::Kind::kField) {
          const FieldInfo& g = p_.fields[static_cast<std::size_t>(c.inputs[j + 1].a)];
          if (g.header != f0.header || g.bit_offset != end) break;
          end += g.width;
          ++j;
        }
        // Trim to the last input that ends on a byte.
        while (j > i && end % 8 != 0) {
          const FieldInfo& g = p_.fields[static_cast<std::size_t>(c.inputs[j].a)];
          end -= g.width;
          --j;
        }
        if (end % 8 == 0 && j > i) {
          c.run_at[i] = static_cast<std::int32_t>(c.runs.size());
          c.runs.push_back({f0.header, static_cast<int>(j - i + 1), f0.bit_offset / 8, (end - f0.bit_offset) / 8});
        }
      }
    }
    i = j + 1;
  }
  p_.calculations.push_back(std::move(c));
  return static_cast<int>(p_.calculations.size()) - 1;
}

void Calculations::load_calculations(const Json& doc) {
  std::set<std::int64_t> ids;
  for (const Json& cj : jf::array(doc, "calculations", P4_MAX_CALCULATIONS, "program")) {
    jf::Identity me = jf::identify(cj, "calculation", &ids, &p_.calculation_by_name, static_cast<int>(p_.calculations.size()));
    add_calculation(me.name, me.id, jf::string(cj, "algo", me.where), calc_inputs(jf::array(cj, "input", P4_MAX_CALC_INPUTS, me.where, false), me.where, false),
                    me.where);
  }
}

void Calculations::load_checksums(const Json& doc) {
  std::set<std::int64_t> ids;
  std::map<std::string, int> names;
  for (const Json& cj : jf::array(doc, "checksums", P4_MAX_CALCULATIONS, "program")) {
    jf::Identity me = jf::identify(cj, "checksum", &ids, &names, static_cast<int>(p_.checksums.size()));
    ChecksumInfo c;
    c.name = me.name;
    c.id = me.id;
    c.target = ex_.field_ref(jf::member(cj, "target", me.where), me.where + " target");
    if (p_.fields[c.target].varbit) refuse(LoadCode::kOperandKind, me.where + ": target '" + p_.fields[c.target].name + "' is a varbit field");
    std::string type = jf::find(cj, "type") ? jf::string(cj, "type", me.where) : "generic";
    if (type == "ipv4") {
      c.ipv4 = true;
      const HeaderInfo& h = p_.headers[p_.fields[c.target].header];
      // bmv2's built-in IPv4 checksum reads the header's bytes with bytes 10-11 zeroed.
      if (h.metadata || h.varbit_field >= 0 || h.wire_bytes < 12 || h.wire_bytes > 60)
        refuse(LoadCode::kOperandKind, me.where + ": an 'ipv4' checksum's target is in a header of 12 to 60 fixed bytes");
    } else if (type == "generic") {
      const Json& calc = jf::member(cj, "calculation", me.where);
      if (!calc.is_string()) refuse(LoadCode::kSchema, me.where + " 'calculation' is not a name");
      auto it = p_.calculation_by_name.find(calc.get<std::string>());
      if (it == p_.calculation_by_name.end())
        refuse(LoadCode::kDanglingRef, me.where + " names calculation '" + calc.get<std::string>().substr(0, 100) + "', which does not exist");
      c.calc = it->second;
    } else {
      refuse(LoadCode::kSchema, me.where + " has type '" + type.substr(0, 40) + "', not 'generic' or 'ipv4'");
    }
    c.update = jf::boolean(cj, "update", me.where, true);
    c.verify = jf::boolean(cj, "verify", me.where, true);
    if (const Json* cond = jf::find(cj, "if_cond"); cond != nullptr && !cond->is_null()) {
      ExprScope scope;
      c.cond = ex_.expr_of_kind(*cond, ExprKind::kBool, scope, me.where + " if_cond");
    }
    p_.verify_checksums = p_.verify_checksums || c.verify;
    p_.update_checksums = p_.update_checksums || c.update;
    p_.checksums.push_back(std::move(c));
  }
}

std::uint32_t StatefulArrays::stateful_size(const Json& obj, const std::string& where) {
  std::int64_t size = jf::integer(obj, "size", where, 0, INT32_MAX);
  stateful_cells_ += static_cast<std::uint64_t>(size);
  if (stateful_cells_ > P4_MAX_STATEFUL_CELLS)
    refuse(LoadCode::kStatefulBudget, where + ": counter, meter and register arrays ask for " + std::to_string(stateful_cells_) +
                                          " cells in all, more than the budget of " + std::to_string(P4_MAX_STATEFUL_CELLS));
  return static_cast<std::uint32_t>(size);
}

void StatefulArrays::load(const Json& doc) {
  std::set<std::int64_t> ids;
  for (const Json& cj : jf::array(doc, "counter_arrays", P4_MAX_STATEFUL_ARRAYS, "program")) {
    jf::Identity me = jf::identify(cj, "counter array", &ids, &p_.counter_by_name, static_cast<int>(p_.counters.size()));
    CounterInfo c;
    c.name = me.name;
    c.id = me.id;
    if (jf::boolean(cj, "is_direct", me.where, false)) {
      // Bound to its table's entries: sized by the table, resolved with the pipelines.
      direct_bindings_.push_back({jf::string(cj, "binding", me.where), static_cast<int>(p_.counters.size()), false, me.where});
    } else {
      c.size = stateful_size(cj, me.where);
    }
    p_.counters.push_back(std::move(c));
  }
  ids.clear();
  for (const Json& mj : jf::array(doc, "meter_arrays", P4_MAX_STATEFUL_ARRAYS, "program")) {
    jf::Identity me = jf::identify(mj, "meter array", &ids, &p_.meter_by_name, static_cast<int>(p_.meters.size()));
    MeterInfo m;
    m.name = me.name;
    m.id = me.id;
    std::string type = jf::string(mj, "type", me.where);
    if (type != "packets" && type != "bytes") refuse(LoadCode::kSchema, me.where + " has type '" + type.substr(0, 40) + "', not 'packets' or 'bytes'");
    m.packets = type == "packets";
    m.rate_count = static_cast<int>(jf::integer(mj, "rate_count", me.where, 1, P4_MAX_METER_RATES));
    if (jf::boolean(mj, "is_direct", me.where, false)) {
      direct_bindings_.push_back({jf::string(mj, "binding", me.where), static_cast<int>(p_.meters.size()), true, me.where});
      m.result_field = ex_.field_ref(jf::member(mj, "result_target", me.where), me.where + " result_target");
    } else {
      m.size = stateful_size(mj, me.where);
    }
    p_.meters.push_back(std::move(m));
  }
  ids.clear();
  for (const Json& rj : jf::array(doc, "register_arrays", P4_MAX_STATEFUL_ARRAYS, "program")) {
    jf::Identity me = jf::identify(rj, "register array", &ids, &p_.register_by_name, static_cast<int>(p_.registers.size()));
    RegisterInfo r;
    r.name = me.name;
    r.id = me.id;
    const Json& bw = jf::member(rj, "bitwidth", me.where);
    if (bw.is_number_float()) refuse(LoadCode::kBadWidth, me.where + ": bitwidth " + bw.dump() + " is not an integer");
    std::int64_t w = jf::as_integer(bw, me.where + " bitwidth", 1, INT32_MAX);
    if (w > P4_MAX_FIELD_BITS)
      refuse(LoadCode::kValueWidth, me.where + ": bitwidth " + std::to_string(w) + " exceeds the " + std::to_string(P4_MAX_FIELD_BITS) +
                                        "-bit limit of carried values");
    r.width = static_cast<int>(w);
    r.nlimbs = (r.width + 63) / 64;
    r.size = stateful_size(rj, me.where);
    p_.registers.push_back(std::move(r));
  }
}

void load_field_lists(const Json& doc, ExprCompiler& ex) {
  Program& p = ex.p;
  for (int pass = 0; pass < 2; ++pass) {
    const char* key = pass == 0 ? "field_lists" : "learn_lists";
    std::vector<FieldListInfo>& out = pass == 0 ? p.field_lists : p.learn_lists;
    std::set<std::int64_t> ids;
    for (const Json& lj : jf::array(doc, key, P4_MAX_FIELD_LISTS, "program")) {
      // bmv2 knows field lists by id only (p4c repeats their names); learn lists by name too.
      jf::Identity me = jf::identify(lj, pass == 0 ? "field list" : "learn list", &ids, pass == 0 ? nullptr : &p.learn_list_by_name,
                             static_cast<int>(out.size()));
      FieldListInfo fl;
      fl.name = me.name;
      fl.id = me.id;
      // bmv2 keeps field list and learn list ids in 16 bits of a packet register.
      if (fl.id < 1 || fl.id > 0xffff) refuse(LoadCode::kBadValue, me.where + ": id " + std::to_string(fl.id) + " is outside [1, 65535]");
      for (const Json& ej : jf::array(lj, "elements", P4_MAX_FIELD_LIST_FIELDS, me.where)) {
        std::string type = jf::string(ej, "type", me.where + " element");
        if (type != "field") refuse(LoadCode::kSchema, me.where + ": an element of type '" + type.substr(0, 40) + "', not 'field'");
        fl.fields.push_back(ex.field_ref(jf::member(ej, "value", me.where), me.where + " element"));
      }
      out.push_back(std::move(fl));
    }
  }
}

void load_parse_vsets(const Json& doc, Program& p) {
  std::set<std::int64_t> ids;
  for (const Json& vj : jf::array(doc, "parse_vsets", P4_MAX_STATEFUL_ARRAYS, "program")) {
    jf::Identity me = jf::identify(vj, "parse value set", &ids, &p.parse_vset_by_name, static_cast<int>(p.parse_vsets.size()));
    ParseVsetInfo v;
    v.name = me.name;
    v.id = me.id;
    v.bitwidth = static_cast<int>(jf::integer(vj, "compressed_bitwidth", me.where, 1, P4_MAX_FIELD_BITS));
    v.max_size = jf::find(vj, "max_size") ? static_cast<std::uint32_t>(jf::integer(vj, "max_size", me.where, 0, P4_MAX_VSET_VALUES))
                                      : static_cast<std::uint32_t>(P4_MAX_VSET_VALUES);
    p.parse_vsets.push_back(std::move(v));
  }
}

bool StatefulArrays::direct_counter_named(int counter) const {
  for (const DirectBinding& b : direct_bindings_)
    if (!b.meter && b.index == counter) return true;
  return false;
}

void StatefulArrays::bind_direct_resources() {
  for (const DirectBinding& b : direct_bindings_) {
    auto it = p_.table_by_name.find(b.table);
    if (it == p_.table_by_name.end())
      refuse(LoadCode::kDanglingRef, b.where + " is bound to table '" + b.table.substr(0, 100) + "', which does not exist");
    TableInfo& t = p_.tables[static_cast<std::size_t>(it->second)];
    if (b.meter) {
      if (t.direct_meter != b.index)
        refuse(LoadCode::kDanglingRef, b.where + " is bound to table '" + t.name + "', whose direct_meters names another");
      p_.meters[static_cast<std::size_t>(b.index)].direct_table = it->second;
    } else {
      if (t.direct_counter >= 0) refuse(LoadCode::kDuplicate, b.where + ": table '" + t.name + "' already has a direct counter");
      t.direct_counter = b.index;
      p_.counters[static_cast<std::size_t>(b.index)].direct_table = it->second;
    }
  }
  for (const TableInfo& t : p_.tables) {
    if (t.direct_meter >= 0 && p_.meters[static_cast<std::size_t>(t.direct_meter)].direct_table != static_cast<int>(&t - p_.tables.data()))
      refuse(LoadCode::kDanglingRef, "table '" + t.name + "' names direct meter '" + p_.meters[static_cast<std::size_t>(t.direct_meter)].name +
                                         "', which is not a direct meter bound to it");
  }
}

}  // namespace dpusim::p4
