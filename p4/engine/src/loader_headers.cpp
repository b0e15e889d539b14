// Header types, header instances (metadata included), stacks, unions, errors and field
// aliases (JSON_format.md sections of the same names), and the packet header vector layout.
#include <set>

#include "dpusim/p4/limits.h"
#include "loader.h"

namespace dpusim::p4 {

std::vector<HeaderTypeInfo> load_header_types(const Json& doc) {
  const Json& arr = jf::array(doc, "header_types", P4_MAX_HEADER_TYPES, "program");
  std::vector<HeaderTypeInfo> types;
  std::set<std::int64_t> ids;
  std::map<std::string, int> by_name;
  for (const Json& ht : arr) {
    HeaderTypeInfo t;
    jf::Identity me = jf::identify(ht, "header type", &ids, &by_name, static_cast<int>(types.size()));
    t.name = me.name;
    t.id = me.id;
    const std::string& where = me.where;
    const Json& fields = jf::array(ht, "fields", P4_MAX_FIELDS_PER_HEADER, where, false);
    std::set<std::string> names;
    for (const Json& f : fields) {
      if (!f.is_array() || f.size() < 2 || f.size() > 4)
        refuse(LoadCode::kSchema, where + ": a field is not a [name, width, signed, saturating] tuple");
      if (!f[0].is_string()) refuse(LoadCode::kSchema, where + ": a field name is not a string");
      std::string fname = f[0].get<std::string>();
      jf::check_name(fname, where + " field");
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
      if (jf::find(ht, "length_exp") != nullptr && !jf::find(ht, "length_exp")->is_null())
        refuse_feature("varbit length expressions", where);
      t.max_bytes = static_cast<int>(jf::integer(ht, "max_length", where, 1, P4_MAX_PHV_BYTES));
      int bits = t.max_bytes * 8 - t.fixed_bits;
      std::string what = "header type '" + t.name + "' field '" + t.fields[static_cast<std::size_t>(t.varbit_field)].first + "'";
      if (bits < 8)
        refuse(LoadCode::kBadValue, what + ": max_length " + std::to_string(t.max_bytes) + " leaves no room for the varbit field");
      if (bits > P4_MAX_FIELD_BITS)
        refuse(LoadCode::kValueWidth, what + ": varbit of up to " + std::to_string(bits) + " bits exceeds the " +
                                          std::to_string(P4_MAX_FIELD_BITS) + "-bit limit of carried values");
      t.fields[static_cast<std::size_t>(t.varbit_field)].second = bits;
    }
    types.push_back(std::move(t));
  }
  return types;
}

void load_headers(const Json& doc, Program& p) {
  const Json& arr = jf::array(doc, "headers", P4_MAX_HEADERS, "program");
  std::map<std::string, int> type_by_name;
  for (std::size_t i = 0; i < p.header_types.size(); ++i) type_by_name[p.header_types[i].name] = static_cast<int>(i);
  std::set<std::int64_t> ids;
  for (const Json& h : arr) {
    HeaderInfo hi;
    jf::Identity me = jf::identify(h, "header", &ids, &p.header_by_name, static_cast<int>(p.headers.size()));
    hi.name = me.name;
    hi.id = me.id;
    const std::string& where = me.where;
    std::string type = jf::string(h, "header_type", where);
    auto t = type_by_name.find(type);
    if (t == type_by_name.end()) refuse(LoadCode::kDanglingRef, where + " has undeclared header type '" + type + "'");
    hi.type = t->second;
    hi.metadata = jf::boolean(h, "metadata", where, false);
    const HeaderTypeInfo& ht = p.header_types[hi.type];
    if (!hi.metadata && ht.fixed_bits % 8 != 0)
      refuse(LoadCode::kWireBytes, where + " of type '" + ht.name + "' is " + std::to_string(ht.fixed_bits) +
                                       " bits: a header that goes on a wire must be a whole number of bytes");
    hi.first_field = static_cast<int>(p.fields.size());
    hi.nfields = static_cast<int>(ht.fields.size());
    hi.wire_bytes = ht.fixed_bits / 8;
    hi.phv_bytes = ht.varbit_field >= 0 ? ht.max_bytes : (ht.fixed_bits + 7) / 8;
    int bit = 0;
    for (std::size_t k = 0; k < ht.fields.size(); ++k) {
      FieldInfo fi;
      fi.name = hi.name + "." + ht.fields[k].first;
      fi.header = static_cast<int>(p.headers.size());
      fi.offset = static_cast<int>(k);
      fi.width = ht.fields[k].second;
      fi.is_signed = (ht.field_flags[k] & kFieldSigned) != 0;
      fi.saturating = (ht.field_flags[k] & kFieldSaturating) != 0;
      fi.bit_offset = bit;
      // Offsets count a varbit field as empty; the executor adds its width per frame.
      fi.varbit = static_cast<int>(k) == ht.varbit_field;
      if (fi.varbit) hi.varbit_field = static_cast<int>(p.fields.size());
      else bit += fi.width;
      p.field_by_name[fi.name] = static_cast<int>(p.fields.size());
      p.fields.push_back(std::move(fi));
    }
    p.headers.push_back(std::move(hi));
  }
}

void load_stacks_and_unions(const Json& doc, Program& p) {
  std::map<std::int64_t, int> header_by_id;
  for (std::size_t i = 0; i < p.headers.size(); ++i) header_by_id[p.headers[i].id] = static_cast<int>(i);
  auto resolve_header_id = [&](const Json& v, const std::string& where) {
    std::int64_t id = jf::as_integer(v, where + " header id", 0, INT32_MAX);
    auto it = header_by_id.find(id);
    if (it == header_by_id.end()) refuse(LoadCode::kDanglingRef, where + " names header id " + std::to_string(id) + ", which does not exist");
    return it->second;
  };
  std::set<std::int64_t> ids;
  for (const Json& s : jf::array(doc, "header_stacks", P4_MAX_HEADER_STACKS, "program")) {
    StackInfo si;
    jf::Identity me = jf::identify(s, "header stack", &ids, &p.stack_by_name, static_cast<int>(p.stacks.size()));
    si.name = me.name;
    si.id = me.id;
    const std::string& where = me.where;
    const Json& hids = jf::array(s, "header_ids", P4_MAX_STACK_DEPTH, where, false);
    if (hids.empty()) refuse(LoadCode::kBadValue, where + " has no elements");
    for (const Json& v : hids) {
      int h = resolve_header_id(v, where);
      HeaderInfo& hi = p.headers[h];
      if (hi.stack >= 0) refuse(LoadCode::kDuplicate, where + ": header '" + hi.name + "' is already an element of a stack");
      if (hi.metadata) refuse(LoadCode::kOperandKind, where + ": element '" + hi.name + "' is metadata");
      if (!si.headers.empty() && hi.type != p.headers[si.headers[0]].type)
        refuse(LoadCode::kOperandKind, where + ": element '" + hi.name + "' is not of the stack's header type");
      hi.stack = static_cast<int>(p.stacks.size());
      si.headers.push_back(h);
    }
    si.type = p.headers[si.headers[0]].type;
    p.stacks.push_back(std::move(si));
  }
  ids.clear();
  std::map<std::string, std::vector<std::pair<std::string, int>>> union_types;  // members: name, type
  std::map<std::string, int> type_by_name;
  for (std::size_t i = 0; i < p.header_types.size(); ++i) type_by_name[p.header_types[i].name] = static_cast<int>(i);
  for (const Json& ut : jf::array(doc, "header_union_types", P4_MAX_UNIONS, "program")) {
    std::string un = jf::name(ut, "header union type");
    std::string where = "header union type '" + un + "'";
    std::vector<std::pair<std::string, int>> members;
    for (const Json& m : jf::array(ut, "headers", P4_MAX_FIELDS_PER_HEADER, where, false)) {
      if (!m.is_array() || m.size() != 2 || !m[0].is_string() || !m[1].is_string())
        refuse(LoadCode::kSchema, where + ": a member is not a [name, header type] pair");
      jf::check_name(m[0].get<std::string>(), where + " member");
      auto t = type_by_name.find(m[1].get<std::string>());
      if (t == type_by_name.end()) refuse(LoadCode::kDanglingRef, where + " names header type '" + m[1].get<std::string>() + "', which does not exist");
      members.emplace_back(m[0].get<std::string>(), t->second);
    }
    if (!union_types.emplace(un, std::move(members)).second) refuse(LoadCode::kDuplicate, "duplicate header union type name '" + un + "'");
  }
  for (const Json& u : jf::array(doc, "header_unions", P4_MAX_UNIONS, "program")) {
    UnionInfo ui;
    jf::Identity me = jf::identify(u, "header union", &ids, &p.union_by_name, static_cast<int>(p.unions.size()));
    ui.name = me.name;
    ui.id = me.id;
    const std::string& where = me.where;
    auto ut = union_types.find(jf::string(u, "union_type", where));
    if (ut == union_types.end()) refuse(LoadCode::kDanglingRef, where + " has an undeclared union type");
    const Json& hids = jf::array(u, "header_ids", P4_MAX_FIELDS_PER_HEADER, where, false);
    for (const Json& v : hids) {
      int h = resolve_header_id(v, where);
      HeaderInfo& hi = p.headers[h];
      if (hi.union_index >= 0) refuse(LoadCode::kDuplicate, where + ": header '" + hi.name + "' is already a member of a union");
      hi.union_index = static_cast<int>(p.unions.size());
      hi.union_member = static_cast<int>(ui.headers.size());
      ui.headers.push_back(h);
    }
    if (ui.headers.size() != ut->second.size())
      refuse(LoadCode::kOperandKind, where + " has " + std::to_string(ui.headers.size()) + " headers; its type has " +
                                         std::to_string(ut->second.size()) + " members");
    for (std::size_t m = 0; m < ui.headers.size(); ++m) {
      if (p.headers[ui.headers[m]].type != ut->second[m].second)
        refuse(LoadCode::kOperandKind, where + ": header '" + p.headers[ui.headers[m]].name + "' is not of member '" +
                                           ut->second[m].first + "''s type");
      ui.members.push_back(ut->second[m].first);
    }
    p.unions.push_back(std::move(ui));
  }
  ids.clear();
  for (const Json& s : jf::array(doc, "header_union_stacks", P4_MAX_HEADER_STACKS, "program")) {
    UnionStackInfo us;
    jf::Identity me = jf::identify(s, "header union stack", &ids, &p.union_stack_by_name, static_cast<int>(p.union_stacks.size()));
    us.name = me.name;
    us.id = me.id;
    const std::string& where = me.where;
    const Json& uids = jf::array(s, "header_union_ids", P4_MAX_STACK_DEPTH, where, false);
    if (uids.empty()) refuse(LoadCode::kBadValue, where + " has no elements");
    for (const Json& v : uids) {
      std::int64_t id = jf::as_integer(v, where + " union id", 0, INT32_MAX);
      int found = -1;
      for (std::size_t k = 0; k < p.unions.size(); ++k)
        if (p.unions[k].id == id) found = static_cast<int>(k);
      if (found < 0) refuse(LoadCode::kDanglingRef, where + " names header union id " + std::to_string(id) + ", which does not exist");
      UnionInfo& ui = p.unions[found];
      if (ui.union_stack >= 0) refuse(LoadCode::kDuplicate, where + ": union '" + ui.name + "' is already in a stack");
      if (!us.unions.empty() && ui.headers.size() != p.unions[us.unions[0]].headers.size())
        refuse(LoadCode::kOperandKind, where + ": union '" + ui.name + "' differs from the stack's first element");
      ui.union_stack = static_cast<int>(p.union_stacks.size());
      us.unions.push_back(found);
    }
    p.union_stacks.push_back(std::move(us));
  }
}

void load_errors(const Json& doc, Program& p) {
  std::set<std::string> names;
  std::set<std::uint64_t> values;
  bool have[7] = {};
  std::uint64_t* core[7] = {&p.core_errors.no_error, &p.core_errors.packet_too_short,
                            &p.core_errors.no_match, &p.core_errors.stack_out_of_bounds,
                            &p.core_errors.header_too_short, &p.core_errors.parser_timeout,
                            &p.core_errors.parser_invalid_argument};
  static const char* core_names[7] = {"NoError", "PacketTooShort", "NoMatch", "StackOutOfBounds",
                                      "HeaderTooShort", "ParserTimeout", "ParserInvalidArgument"};
  for (const Json& e : jf::array(doc, "errors", P4_MAX_ERRORS, "program")) {
    if (!e.is_array() || e.size() != 2 || !e[0].is_string())
      refuse(LoadCode::kSchema, "an error is not a [name, value] pair");
    std::string n = e[0].get<std::string>();
    jf::check_name(n, "error");
    // bmv2 reserves 2^31 - 1.
    auto v = static_cast<std::uint64_t>(jf::as_integer(e[1], "error '" + n + "' value", 0, INT32_MAX - 1));
    if (!names.insert(n).second) refuse(LoadCode::kDuplicate, "error '" + n + "' is declared twice");
    if (!values.insert(v).second) refuse(LoadCode::kDuplicate, "error '" + n + "' reuses value " + std::to_string(v));
    for (int k = 0; k < 7; ++k)
      if (n == core_names[k]) {
        *core[k] = v;
        have[k] = true;
      }
    p.errors.emplace_back(n, v);
  }
  // A core error the program does not declare still needs a value distinct from the
  // declared ones (bmv2 assigns them the same way: after the largest declared value).
  std::uint64_t next = values.empty() ? 0 : *values.rbegin() + 1;
  for (int k = 0; k < 7; ++k)
    if (!have[k] && !values.empty()) *core[k] = next++;
}

void load_field_aliases(const Json& doc, ExprCompiler& ex) {
  Program& p = ex.p;
  for (const Json& a : jf::array(doc, "field_aliases", P4_MAX_FIELD_ALIASES, "program")) {
    if (!a.is_array() || a.size() != 2 || !a[0].is_string())
      refuse(LoadCode::kSchema, "a field alias is not a [name, [header, field]] pair");
    std::string n = a[0].get<std::string>();
    jf::check_name(n, "field alias");
    int f = ex.field_ref(a[1], "field alias '" + n + "'");
    // p4c repeats aliases; bmv2 takes a repeat that names the same field.
    auto [it, fresh] = ex.aliases.emplace(n, f);
    if (!fresh && it->second != f)
      refuse(LoadCode::kDuplicate, "field alias '" + n + "' is declared twice, for '" + p.fields[it->second].name + "' and '" +
                                       p.fields[f].name + "'");
  }
}

void resolve_v1model_fields(Program& p, const std::map<std::string, int>& aliases) {
  // The alias wins over a field of the same name, as in bmv2's PHV::add_field_alias.
  auto role = [&](const std::string& n) {
    auto a = aliases.find(n);
    if (a != aliases.end()) return a->second;
    auto f = p.field_by_name.find(n);
    return f == p.field_by_name.end() ? -1 : f->second;
  };
  // "A program without that field cannot say where a packet goes and is refused at load"
  // (the P4 engine guide of rocm-ernic), by every feature policy, as simple_switch refuses it
  // (load_program).
  p.f_egress_spec = role("standard_metadata.egress_spec");
  if (p.f_egress_spec < 0)
    p.not_v1model.emplace_back(LoadCode::kNoEgressSpec,
                                "program has no field standard_metadata.egress_spec (nor a field alias for it), so it "
                                "cannot say where a packet goes and is refused at load");
  p.f_ingress_port = role("standard_metadata.ingress_port");
  p.f_egress_port = role("standard_metadata.egress_port");
  p.f_packet_length = role("standard_metadata.packet_length");
  p.f_instance_type = role("standard_metadata.instance_type");
  p.f_parser_error = role("standard_metadata.parser_error");
  p.f_checksum_error = role("standard_metadata.checksum_error");
  // simple_switch reads these under their P4_14 intrinsic_metadata names; p4c aliases the
  // standard_metadata fields to them.
  p.f_mcast_grp = role("intrinsic_metadata.mcast_grp");
  p.f_egress_rid = role("intrinsic_metadata.egress_rid");
  p.f_priority = role("intrinsic_metadata.priority");
  p.f_ingress_global_timestamp = role("intrinsic_metadata.ingress_global_timestamp");
  p.f_egress_global_timestamp = role("intrinsic_metadata.egress_global_timestamp");
  p.f_enq_timestamp = role("queueing_metadata.enq_timestamp");
  p.f_enq_qdepth = role("queueing_metadata.enq_qdepth");
  p.f_deq_timedelta = role("queueing_metadata.deq_timedelta");
  p.f_deq_qdepth = role("queueing_metadata.deq_qdepth");
  p.f_qid = role("queueing_metadata.qid");
  // simple_switch fills the queueing fields only when all four exist.
  p.queueing_metadata = p.f_enq_timestamp >= 0 && p.f_enq_qdepth >= 0 && p.f_deq_timedelta >= 0 && p.f_deq_qdepth >= 0;
  // mark_to_drop zeroes the mcast_grp field of the header that holds egress_spec.
  if (p.f_egress_spec >= 0) {
    const HeaderInfo& sm = p.headers[p.fields[p.f_egress_spec].header];
    for (int k = 0; k < sm.nfields; ++k)
      if (p.fields[sm.first_field + k].name == sm.name + ".mcast_grp") p.f_mark_to_drop_mcast = sm.first_field + k;
  }
  for (int f : {p.f_egress_spec, p.f_ingress_port, p.f_egress_port}) {
    if (f >= 0 && p.fields[f].width != P4_V1MODEL_PORT_BITS)
      refuse(LoadCode::kV1modelWidth, "field '" + p.fields[f].name + "' is " + std::to_string(p.fields[f].width) +
                                          " bits; v1model's port fields are " + std::to_string(P4_V1MODEL_PORT_BITS) + " bits");
  }
}

void layout_phv(Program& p) {
  int limb = 0, bytes = 0;
  for (HeaderInfo& h : p.headers) {
    bytes += h.phv_bytes;
    h.limb = limb;
    for (int k = 0; k < h.nfields; ++k) {
      FieldInfo& f = p.fields[h.first_field + k];
      f.limb = limb;
      f.nlimbs = (f.width + 63) / 64;
      f.plain = f.nlimbs == 1 && !f.is_signed && !f.saturating;
      f.width_mask = f.width >= 64 ? ~0ull : (1ull << f.width) - 1;
      limb += f.nlimbs;
    }
    h.nlimbs = limb - h.limb;
    h.narrow = h.varbit_field < 0 && h.nlimbs == h.nfields;
    for (int k = 0; h.narrow && k < h.nfields; ++k) {
      const int w = p.fields[static_cast<std::size_t>(h.first_field + k)].width;
      h.narrow = w >= 1 && w <= 64;
      h.widths.push_back(static_cast<std::uint8_t>(w));
    }
    if (!h.narrow) h.widths.clear();
  }
  if (bytes > P4_MAX_PHV_BYTES)
    refuse(LoadCode::kPhvSize, "headers and metadata need " + std::to_string(bytes) + " bytes; the packet header vector holds " +
                                   std::to_string(P4_MAX_PHV_BYTES));
  p.phv_limbs = limb;
  p.phv_bytes = bytes;
}

}  // namespace dpusim::p4
