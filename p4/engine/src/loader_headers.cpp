// Header types, header instances (metadata included), stacks, unions, errors and field
// aliases (JSON_format.md sections of the same names), and the packet header vector layout.
#include <set>

#include "dpusim/p4/limits.h"
#include "loader.h"

namespace dpusim::p4 {

namespace {

std::string field_what(const std::string& hdr, const std::string& field) {
  return "field '" + hdr + "." + field + "'";
}

}  // namespace

void Loader::load_header_types() {
  const Json& arr = array(doc_, "header_types", P4_MAX_HEADER_TYPES, "program");
  std::set<std::int64_t> ids;
  std::map<std::string, int> by_name;
  for (const Json& ht : arr) {
    HeaderTypeInfo t;
    Identity me = identify(ht, "header type", &ids, &by_name, static_cast<int>(p_.header_types.size()));
    t.name = me.name;
    t.id = me.id;
    const std::string& where = me.where;
    const Json& fields = array(ht, "fields", P4_MAX_FIELDS_PER_HEADER, where, false);
    std::set<std::string> names;
    for (const Json& f : fields) {
      if (!f.is_array() || f.size() < 2 || f.size() > 4)
        refuse(LoadCode::kSchema, where + ": a field is not a [name, width, signed, saturating] tuple");
      if (!f[0].is_string()) refuse(LoadCode::kSchema, where + ": a field name is not a string");
      std::string fname = f[0].get<std::string>();
      check_name(fname, where + " field");
      std::string what = "header type '" + t.name + "' field '" + fname + "'";
      if (!names.insert(fname).second) refuse(LoadCode::kDuplicate, what + " is declared twice");
      // bmv2's optional third and fourth elements: signed (two's complement) and saturating.
      std::uint8_t flags = 0;
      for (std::size_t k = 2; k < f.size(); ++k) {
        // p4c writes a boolean; some versions write 0 or 1.
        bool is_int = f[k].is_number_integer() && (f[k].get<std::int64_t>() == 0 || f[k].get<std::int64_t>() == 1);
        if (!f[k].is_boolean() && !is_int)
          refuse(LoadCode::kSchema, what + (k == 2 ? ": signedness" : ": saturation") + " is not a boolean");
        if (is_int ? f[k].get<std::int64_t>() == 1 : f[k].get<bool>()) flags |= k == 2 ? kFieldSigned : kFieldSaturating;
      }
      int width;
      if (f[1].is_string()) {
        if (f[1].get<std::string>() != "*")
          refuse(LoadCode::kBadWidth, what + ": width '" + f[1].get<std::string>() + "' is not an integer");
        // A variable-length field: its width is set per frame by extract_VL, up to what the
        // type's max_length leaves (computed below, once the fixed fields are known).
        if (t.varbit_field >= 0) refuse(LoadCode::kSchema, what + ": a header type has at most one varbit field");
        t.varbit_field = static_cast<int>(t.fields.size());
        width = 0;
      } else {
        if (f[1].is_number_float())
          refuse(LoadCode::kBadWidth, what + ": width " + f[1].dump() + " is not an integer");
        if (!f[1].is_number_integer()) refuse(LoadCode::kBadWidth, what + ": width is not an integer");
        if (f[1].is_number_unsigned() ? f[1].get<std::uint64_t>() > static_cast<std::uint64_t>(P4_MAX_FIELD_BITS)
                                      : f[1].get<std::int64_t>() > P4_MAX_FIELD_BITS)
          refuse(LoadCode::kValueWidth, what + ": width " + f[1].dump() + " exceeds the " +
                                            std::to_string(P4_MAX_FIELD_BITS) + "-bit limit of carried values");
        std::int64_t w = f[1].get<std::int64_t>();
        if (w < 1) refuse(LoadCode::kBadWidth, what + ": width " + std::to_string(w) + " is not positive");
        width = static_cast<int>(w);
      }
      if ((flags & kFieldSigned) && width == 1)
        refuse(LoadCode::kBadWidth, what + " is signed and 1 bit wide: a signed field needs at least 2 bits");
      t.fields.emplace_back(fname, width);
      t.field_flags.push_back(flags);
      t.fixed_bits += width;
    }
    if (t.varbit_field >= 0) {
      if (find(ht, "length_exp") != nullptr && !find(ht, "length_exp")->is_null())
        refuse_feature("varbit length expressions", where);
      t.max_bytes = static_cast<int>(integer(ht, "max_length", where, 1, P4_MAX_PHV_BYTES));
      int bits = t.max_bytes * 8 - t.fixed_bits;
      std::string what = "header type '" + t.name + "' field '" + t.fields[static_cast<std::size_t>(t.varbit_field)].first + "'";
      if (bits < 8)
        refuse(LoadCode::kBadValue, what + ": max_length " + std::to_string(t.max_bytes) + " leaves no room for the varbit field");
      if (bits > P4_MAX_FIELD_BITS)
        refuse(LoadCode::kValueWidth, what + ": varbit of up to " + std::to_string(bits) + " bits exceeds the " +
                                          std::to_string(P4_MAX_FIELD_BITS) + "-bit limit of carried values");
      t.fields[static_cast<std::size_t>(t.varbit_field)].second = bits;
    }
    p_.header_types.push_back(std::move(t));
  }
}

void Loader::load_headers() {
  const Json& arr = array(doc_, "headers", P4_MAX_HEADERS, "program");
  std::map<std::string, int> type_by_name;
  for (std::size_t i = 0; i < p_.header_types.size(); ++i) type_by_name[p_.header_types[i].name] = static_cast<int>(i);
  std::set<std::int64_t> ids;
  for (const Json& h : arr) {
    HeaderInfo hi;
    Identity me = identify(h, "header", &ids, &p_.header_by_name, static_cast<int>(p_.headers.size()));
    hi.name = me.name;
    hi.id = me.id;
    const std::string& where = me.where;
    std::string type = string(h, "header_type", where);
    auto t = type_by_name.find(type);
    if (t == type_by_name.end()) refuse(LoadCode::kDanglingRef, where + " has undeclared header type '" + type + "'");
    hi.type = t->second;
    hi.metadata = boolean(h, "metadata", where, false);
    const HeaderTypeInfo& ht = p_.header_types[hi.type];
    if (!hi.metadata && ht.fixed_bits % 8 != 0)
      refuse(LoadCode::kWireBytes, where + " of type '" + ht.name + "' is " + std::to_string(ht.fixed_bits) +
                                       " bits: a header that goes on a wire must be a whole number of bytes");
    hi.first_field = static_cast<int>(p_.fields.size());
    hi.nfields = static_cast<int>(ht.fields.size());
    hi.wire_bytes = ht.fixed_bits / 8;
    hi.phv_bytes = ht.varbit_field >= 0 ? ht.max_bytes : (ht.fixed_bits + 7) / 8;
    int bit = 0;
    for (std::size_t k = 0; k < ht.fields.size(); ++k) {
      FieldInfo fi;
      fi.name = hi.name + "." + ht.fields[k].first;
      fi.header = static_cast<int>(p_.headers.size());
      fi.offset = static_cast<int>(k);
      fi.width = ht.fields[k].second;
      fi.is_signed = (ht.field_flags[k] & kFieldSigned) != 0;
      fi.saturating = (ht.field_flags[k] & kFieldSaturating) != 0;
      fi.bit_offset = bit;
      // Offsets count a varbit field as empty; the executor adds its width per frame.
      fi.varbit = static_cast<int>(k) == ht.varbit_field;
      if (fi.varbit) hi.varbit_field = static_cast<int>(p_.fields.size());
      else bit += fi.width;
      p_.field_by_name[fi.name] = static_cast<int>(p_.fields.size());
      p_.fields.push_back(std::move(fi));
    }
    p_.headers.push_back(std::move(hi));
  }
}

void Loader::load_stacks_and_unions() {
  std::map<std::int64_t, int> header_by_id;
  for (std::size_t i = 0; i < p_.headers.size(); ++i) header_by_id[p_.headers[i].id] = static_cast<int>(i);
  auto resolve_header_id = [&](const Json& v, const std::string& where) {
    std::int64_t id = as_integer(v, where + " header id", 0, INT32_MAX);
    auto it = header_by_id.find(id);
    if (it == header_by_id.end()) refuse(LoadCode::kDanglingRef, where + " names header id " + std::to_string(id) + ", which does not exist");
    return it->second;
  };
  std::set<std::int64_t> ids;
  for (const Json& s : array(doc_, "header_stacks", P4_MAX_HEADER_STACKS, "program")) {
    StackInfo si;
    Identity me = identify(s, "header stack", &ids, &p_.stack_by_name, static_cast<int>(p_.stacks.size()));
    si.name = me.name;
    si.id = me.id;
    const std::string& where = me.where;
    const Json& hids = array(s, "header_ids", P4_MAX_STACK_DEPTH, where, false);
    if (hids.empty()) refuse(LoadCode::kBadValue, where + " has no elements");
    for (const Json& v : hids) {
      int h = resolve_header_id(v, where);
      HeaderInfo& hi = p_.headers[h];
      if (hi.stack >= 0) refuse(LoadCode::kDuplicate, where + ": header '" + hi.name + "' is already an element of a stack");
      if (hi.metadata) refuse(LoadCode::kOperandKind, where + ": element '" + hi.name + "' is metadata");
      if (!si.headers.empty() && hi.type != p_.headers[si.headers[0]].type)
        refuse(LoadCode::kOperandKind, where + ": element '" + hi.name + "' is not of the stack's header type");
      hi.stack = static_cast<int>(p_.stacks.size());
      si.headers.push_back(h);
    }
    si.type = p_.headers[si.headers[0]].type;
    p_.stacks.push_back(std::move(si));
  }
  ids.clear();
  std::map<std::string, std::vector<std::pair<std::string, int>>> union_types;  // members: name, type
  std::map<std::string, int> type_by_name;
  for (std::size_t i = 0; i < p_.header_types.size(); ++i) type_by_name[p_.header_types[i].name] = static_cast<int>(i);
  for (const Json& ut : array(doc_, "header_union_types", P4_MAX_UNIONS, "program")) {
    std::string un = name(ut, "header union type");
    std::string where = "header union type '" + un + "'";
    std::vector<std::pair<std::string, int>> members;
    for (const Json& m : array(ut, "headers", P4_MAX_FIELDS_PER_HEADER, where, false)) {
      if (!m.is_array() || m.size() != 2 || !m[0].is_string() || !m[1].is_string())
        refuse(LoadCode::kSchema, where + ": a member is not a [name, header type] pair");
      check_name(m[0].get<std::string>(), where + " member");
      auto t = type_by_name.find(m[1].get<std::string>());
      if (t == type_by_name.end()) refuse(LoadCode::kDanglingRef, where + " names header type '" + m[1].get<std::string>() + "', which does not exist");
      members.emplace_back(m[0].get<std::string>(), t->second);
    }
    if (!union_types.emplace(un, std::move(members)).second) refuse(LoadCode::kDuplicate, "duplicate header union type name '" + un + "'");
  }
  for (const Json& u : array(doc_, "header_unions", P4_MAX_UNIONS, "program")) {
    UnionInfo ui;
    Identity me = identify(u, "header union", &ids, &p_.union_by_name, static_cast<int>(p_.unions.size()));
    ui.name = me.name;
    ui.id = me.id;
    const std::string& where = me.where;
    auto ut = union_types.find(string(u, "union_type", where));
    if (ut == union_types.end()) refuse(LoadCode::kDanglingRef, where + " has an undeclared union type");
    const Json& hids = array(u, "header_ids", P4_MAX_FIELDS_PER_HEADER, where, false);
    for (const Json& v : hids) {
      int h = resolve_header_id(v, where);
      HeaderInfo& hi = p_.headers[h];
      if (hi.union_index >= 0) refuse(LoadCode::kDuplicate, where + ": header '" + hi.name + "' is already a member of a union");
      hi.union_index = static_cast<int>(p_.unions.size());
      hi.union_member = static_cast<int>(ui.headers.size());
      ui.headers.push_back(h);
    }
    if (ui.headers.size() != ut->second.size())
      refuse(LoadCode::kOperandKind, where + " has " + std::to_string(ui.headers.size()) + " headers; its type has " +
                                         std::to_string(ut->second.size()) + " members");
    for (std::size_t m = 0; m < ui.headers.size(); ++m) {
      if (p_.headers[ui.headers[m]].type != ut->second[m].second)
        refuse(LoadCode::kOperandKind, where + ": header '" + p_.headers[ui.headers[m]].name + "' is not of member '" +
                                           ut->second[m].first + "''s type");
      ui.members.push_back(ut->second[m].first);
    }
    p_.unions.push_back(std::move(ui));
  }
  ids.clear();
  for (const Json& s : array(doc_, "header_union_stacks", P4_MAX_HEADER_STACKS, "program")) {
    UnionStackInfo us;
    Identity me = identify(s, "header union stack", &ids, &p_.union_stack_by_name, static_cast<int>(p_.union_stacks.size()));
    us.name = me.name;
    us.id = me.id;
    const std::string& where = me.where;
    const Json& uids = array(s, "header_union_ids", P4_MAX_STACK_DEPTH, where, false);
    if (uids.empty()) refuse(LoadCode::kBadValue, where + " has no elements");
    for (const Json& v : uids) {
      std::int64_t id = as_integer(v, where + " union id", 0, INT32_MAX);
      int found = -1;
      for (std::size_t k = 0; k < p_.unions.size(); ++k)
        if (p_.unions[k].id == id) found = static_cast<int>(k);
      if (found < 0) refuse(LoadCode::kDanglingRef, where + " names header union id " + std::to_string(id) + ", which does not exist");
      UnionInfo& ui = p_.unions[found];
      if (ui.union_stack >= 0) refuse(LoadCode::kDuplicate, where + ": union '" + ui.name + "' is already in a stack");
      if (!us.unions.empty() && ui.headers.size() != p_.unions[us.unions[0]].headers.size())
        refuse(LoadCode::kOperandKind, where + ": union '" + ui.name + "' differs from the stack's first element");
      ui.union_stack = static_cast<int>(p_.union_stacks.size());
      us.unions.push_back(found);
    }
    p_.union_stacks.push_back(std::move(us));
  }
}

void Loader::load_errors() {
  std::set<std::string> names;
  std::set<std::uint64_t> values;
  bool have[7] = {};
  std::uint64_t* core[7] = {&p_.core_errors.no_error, &p_.core_errors.packet_too_short,
                            &p_.core_errors.no_match, &p_.core_errors.stack_out_of_bounds,
                            &p_.core_errors.header_too_short, &p_.core_errors.parser_timeout,
                            &p_.core_errors.parser_invalid_argument};
  static const char* core_names[7] = {"NoError", "PacketTooShort", "NoMatch", "StackOutOfBounds",
                                      "HeaderTooShort", "ParserTimeout", "ParserInvalidArgument"};
  for (const Json& e : array(doc_, "errors", P4_MAX_ERRORS, "program")) {
    if (!e.is_array() || e.size() != 2 || !e[0].is_string())
      refuse(LoadCode::kSchema, "an error is not a [name, value] pair");
    std::string n = e[0].get<std::string>();
    check_name(n, "error");
    // bmv2 reserves 2^31 - 1.
    auto v = static_cast<std::uint64_t>(as_integer(e[1], "error '" + n + "' value", 0, INT32_MAX - 1));
    if (!names.insert(n).second) refuse(LoadCode::kDuplicate, "error '" + n + "' is declared twice");
    if (!values.insert(v).second) refuse(LoadCode::kDuplicate, "error '" + n + "' reuses value " + std::to_string(v));
    for (int k = 0; k < 7; ++k)
      if (n == core_names[k]) {
        *core[k] = v;
        have[k] = true;
      }
    p_.errors.emplace_back(n, v);
  }
  // A core error the program does not declare still needs a value distinct from the
  // declared ones (bmv2 assigns them the same way: after the largest declared value).
  std::uint64_t next = values.empty() ? 0 : *values.rbegin() + 1;
  for (int k = 0; k < 7; ++k)
    if (!have[k] && !values.empty()) *core[k] = next++;
}

void Loader::load_field_aliases() {
  for (const Json& a : array(doc_, "field_aliases", P4_MAX_FIELD_ALIASES, "program")) {
    if (!a.is_array() || a.size() != 2 || !a[0].is_string())
      refuse(LoadCode::kSchema, "a field alias is not a [name, [header, field]] pair");
    std::string n = a[0].get<std::string>();
    check_name(n, "field alias");
    int f = field_ref(a[1], "field alias '" + n + "'");
    // p4c repeats aliases; bmv2 takes a repeat that names the same field.
    auto [it, fresh] = aliases_.emplace(n, f);
    if (!fresh && it->second != f)
      refuse(LoadCode::kDuplicate, "field alias '" + n + "' is declared twice, for '" + p_.fields[it->second].name + "' and '" +
                                       p_.fields[f].name + "'");
  }
}

void Loader::resolve_v1model_fields() {
  // The alias wins over a field of the same name, as in bmv2's PHV::add_field_alias.
  auto role = [&](const std::string& n) {
    auto a = aliases_.find(n);
    if (a != aliases_.end()) return a->second;
    auto f = p_.field_by_name.find(n);
    return f == p_.field_by_name.end() ? -1 : f->second;
  };
  // "A program without that field cannot say where a packet goes and is refused at load"
  // (the P4 engine guide of rocm-ernic), by every feature policy, as simple_switch refuses it
  // (Engine::load).
  p_.f_egress_spec = role("standard_metadata.egress_spec");
  if (p_.f_egress_spec < 0)
    p_.not_v1model.emplace_back(LoadCode::kNoEgressSpec,
                                "program has no field standard_metadata.egress_spec (nor a field alias for it), so it "
                                "cannot say where a packet goes and is refused at load");
  p_.f_ingress_port = role("standard_metadata.ingress_port");
  p_.f_egress_port = role("standard_metadata.egress_port");
  p_.f_packet_length = role("standard_metadata.packet_length");
  p_.f_instance_type = role("standard_metadata.instance_type");
  p_.f_parser_error = role("standard_metadata.parser_error");
  p_.f_checksum_error = role("standard_metadata.checksum_error");
  // simple_switch reads these under their P4_14 intrinsic_metadata names; p4c aliases the
  // standard_metadata fields to them.
  p_.f_mcast_grp = role("intrinsic_metadata.mcast_grp");
  p_.f_egress_rid = role("intrinsic_metadata.egress_rid");
  p_.f_priority = role("intrinsic_metadata.priority");
  p_.f_ingress_global_timestamp = role("intrinsic_metadata.ingress_global_timestamp");
  p_.f_egress_global_timestamp = role("intrinsic_metadata.egress_global_timestamp");
  p_.f_enq_timestamp = role("queueing_metadata.enq_timestamp");
  p_.f_enq_qdepth = role("queueing_metadata.enq_qdepth");
  p_.f_deq_timedelta = role("queueing_metadata.deq_timedelta");
  p_.f_deq_qdepth = role("queueing_metadata.deq_qdepth");
  p_.f_qid = role("queueing_metadata.qid");
  // simple_switch fills the queueing fields only when all four exist.
  p_.queueing_metadata = p_.f_enq_timestamp >= 0 && p_.f_enq_qdepth >= 0 && p_.f_deq_timedelta >= 0 && p_.f_deq_qdepth >= 0;
  // mark_to_drop zeroes the mcast_grp field of the header that holds egress_spec.
  if (p_.f_egress_spec >= 0) {
    const HeaderInfo& sm = p_.headers[p_.fields[p_.f_egress_spec].header];
    for (int k = 0; k < sm.nfields; ++k)
      if (p_.fields[sm.first_field + k].name == sm.name + ".mcast_grp") p_.f_mark_to_drop_mcast = sm.first_field + k;
  }
  for (int f : {p_.f_egress_spec, p_.f_ingress_port, p_.f_egress_port}) {
    if (f >= 0 && p_.fields[f].width != P4_V1MODEL_PORT_BITS)
      refuse(LoadCode::kV1modelWidth, "field '" + p_.fields[f].name + "' is " + std::to_string(p_.fields[f].width) +
                                          " bits; v1model's port fields are " + std::to_string(P4_V1MODEL_PORT_BITS) + " bits");
  }
}

void Loader::layout_phv() {
  int limb = 0, bytes = 0;
  for (HeaderInfo& h : p_.headers) {
    bytes += h.phv_bytes;
    h.limb = limb;
    for (int k = 0; k < h.nfields; ++k) {
      FieldInfo& f = p_.fields[h.first_field + k];
      f.limb = limb;
      f.nlimbs = (f.width + 63) / 64;
      f.plain = f.nlimbs == 1 && !f.is_signed && !f.saturating;
      f.width_mask = f.width >= 64 ? ~0ull : (1ull << f.width) - 1;
      limb += f.nlimbs;
    }
    h.nlimbs = limb - h.limb;
    h.narrow = h.varbit_field < 0 && h.nlimbs == h.nfields;
    for (int k = 0; h.narrow && k < h.nfields; ++k) {
      const int w = p_.fields[static_cast<std::size_t>(h.first_field + k)].width;
      h.narrow = w >= 1 && w <= 64;
      h.widths.push_back(static_cast<std::uint8_t>(w));
    }
    if (!h.narrow) h.widths.clear();
  }
  if (bytes > P4_MAX_PHV_BYTES)
    refuse(LoadCode::kPhvSize, "headers and metadata need " + std::to_string(bytes) + " bytes; the packet header vector holds " +
                                   std::to_string(P4_MAX_PHV_BYTES));
  p_.phv_limbs = limb;
  p_.phv_bytes = bytes;
}

int Loader::header_ref(const std::string& n, const std::string& where) {
  auto it = p_.header_by_name.find(n);
  if (it == p_.header_by_name.end()) refuse(LoadCode::kDanglingRef, where + " names header '" + n + "', which does not exist");
  return it->second;
}

int Loader::field_ref(const Json& v, const std::string& where) {
  if (!v.is_array() || v.size() != 2 || !v[0].is_string() || !v[1].is_string())
    refuse(LoadCode::kSchema, where + ": a field reference is not a [header, field] pair");
  std::string h = v[0].get<std::string>(), f = v[1].get<std::string>();
  auto it = p_.field_by_name.find(h + "." + f);
  if (it == p_.field_by_name.end()) {
    auto a = aliases_.find(h + "." + f);
    if (a != aliases_.end()) return a->second;
    if (p_.header_by_name.count(h) == 0 && p_.stack_by_name.count(h) == 0)
      refuse(LoadCode::kDanglingRef, where + " names header '" + h + "', which does not exist");
    refuse(LoadCode::kDanglingRef, where + " names " + field_what(h, f) + ", which does not exist");
  }
  return it->second;
}


}  // namespace dpusim::p4
