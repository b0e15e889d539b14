// The parser (parse states, their operations and select transitions) and the deparser
// (JSON_format.md "parsers", "deparsers"). simple_switch runs the parser named "parser"
// and the deparser named "deparser"; so does this engine.
#include <algorithm>
#include <set>

#include "dpusim/p4/limits.h"
#include "loader.h"

namespace dpusim::p4 {

namespace {

const Json* find_named(const Json& arr, const char* wanted) {
  for (const Json& x : arr)
    if (x.is_object() && x.contains("name") && x["name"].is_string() && x["name"].get<std::string>() == wanted)
      return &x;
  return nullptr;
}

// ", not run: 'a', 'b'" for the blocks a program names other than the one simple_switch runs.
std::string others(const Json& arr) {
  std::string s;
  for (const Json& x : arr)
    if (x.is_object() && x.contains("name") && x["name"].is_string())
      s += (s.empty() ? "; not run: '" : ", '") + x["name"].get<std::string>() + "'";
  return s;
}

}  // namespace

// Named apart from the other loader files' helpers, with which a unity batch compiles this.
namespace parser_loading {
namespace {

using Scope = ExprScope;

// The parse states by name: a next-state reference resolved (null: accept, -1).
struct StateNames {
  std::map<std::string, int> by_name;
  int ref(const Json& v, const std::string& where) const {
    if (v.is_null()) return -1;
    if (!v.is_string()) refuse(LoadCode::kSchema, where + ": next state is not a name or null");
    auto it = by_name.find(v.get<std::string>());
    if (it == by_name.end()) refuse(LoadCode::kDanglingRef, where + " names parse state '" + v.get<std::string>() + "', which does not exist");
    return it->second;
  }
};

void arity(const Json& params, std::size_t n, const std::string& ow) {
  if (params.size() != n) refuse(LoadCode::kSchema, ow + " takes " + std::to_string(n) + " parameters, not " + std::to_string(params.size()));
}

int stack_named(const Program& p, const std::string& name, const std::string& ow) {
  auto it = p.stack_by_name.find(name);
  if (it == p.stack_by_name.end()) refuse(LoadCode::kDanglingRef, ow + " names header stack '" + name + "', which does not exist");
  return it->second;
}

void extract(ExprCompiler& ex, const Json& params, ParseOp& pop, const std::string& ow) {
  const Program& p = ex.p;
  arity(params, 1, ow);
  std::string type = jf::string(params[0], "type", ow);
  const Json& val = jf::member(params[0], "value", ow);
  if (type == "regular") {
    if (!val.is_string()) refuse(LoadCode::kSchema, ow + ": header is not a name");
    pop.a = ex.header_ref(val.get<std::string>(), ow);
    if (p.headers[pop.a].metadata) refuse(LoadCode::kOperandKind, ow + ": extracts metadata '" + p.headers[pop.a].name + "'");
    if (p.headers[pop.a].varbit_field >= 0)
      refuse(LoadCode::kOperandKind, ow + ": '" + p.headers[pop.a].name + "' has a varbit field: it is extracted with extract_VL");
  } else if (type == "stack") {
    if (!val.is_string()) refuse(LoadCode::kSchema, ow + ": stack is not a name");
    pop.kind = ParseOpKind::kExtractStack;
    pop.a = stack_named(p, val.get<std::string>(), ow);
  } else if (type == "union_stack") {
    if (!val.is_array() || val.size() != 2 || !val[0].is_string() || !val[1].is_string())
      refuse(LoadCode::kSchema, ow + ": union_stack extract is not a [stack, member] pair");
    auto it = p.union_stack_by_name.find(val[0].get<std::string>());
    if (it == p.union_stack_by_name.end())
      refuse(LoadCode::kDanglingRef, ow + " names header union stack '" + val[0].get<std::string>() + "', which does not exist");
    const UnionInfo& u0 = p.unions[p.union_stacks[it->second].unions[0]];
    int member_index = -1;
    for (std::size_t m = 0; m < u0.members.size(); ++m)
      if (u0.members[m] == val[1].get<std::string>()) member_index = static_cast<int>(m);
    if (member_index < 0) refuse(LoadCode::kDanglingRef, ow + " names union member '" + val[1].get<std::string>() + "', which does not exist");
    pop.kind = ParseOpKind::kExtractUnionStack;
    pop.a = it->second;
    pop.b = member_index;
  } else {
    refuse(LoadCode::kSchema, ow + ": extract of type '" + type + "'");
  }
}

void extract_vl(ExprCompiler& ex, const Json& params, const Scope& scope, ParseOp& pop, const std::string& ow) {
  const Program& p = ex.p;
  arity(params, 2, ow);
  std::string type = jf::string(params[0], "type", ow);
  const Json& val = jf::member(params[0], "value", ow);
  if (!val.is_string()) refuse(LoadCode::kSchema, ow + ": extract_VL target is not a name");
  pop.kind = ParseOpKind::kExtractVL;
  int type_index;
  if (type == "regular") {
    pop.a = ex.header_ref(val.get<std::string>(), ow);
    pop.c = 0;
    type_index = p.headers[pop.a].type;
  } else if (type == "stack") {
    pop.a = stack_named(p, val.get<std::string>(), ow);
    pop.c = 1;
    type_index = p.stacks[pop.a].type;
  } else {
    refuse(LoadCode::kSchema, ow + ": extract_VL of type '" + type + "'");
  }
  if (p.header_types[type_index].varbit_field < 0)
    refuse(LoadCode::kOperandKind, ow + ": extract_VL of '" + val.get<std::string>() + "', which has no varbit field");
  pop.b = ex.expr_of_kind(params[1], ExprKind::kData, scope, ow);
}

ParseOp parse_op(const PrimitiveContext& ctx, const Json& oj, std::size_t oi, const Scope& scope, const std::string& where) {
  ExprCompiler& ex = ctx.ex;
  const Program& p = ex.p;
  std::string op = jf::string(oj, "op", where + " op " + std::to_string(oi));
  std::string ow = where + " op " + std::to_string(oi) + " '" + op + "'";
  const Json& params = jf::array(oj, "parameters", P4_MAX_PRIMITIVES, ow);
  ParseOp pop;
  pop.kind = ParseOpKind::kExtract;
  if (op == "extract") {
    extract(ex, params, pop, ow);
  } else if (op == "extract_VL") {
    extract_vl(ex, params, scope, pop, ow);
  } else if (op == "set") {
    arity(params, 2, ow);
    pop.kind = ParseOpKind::kSet;
    pop.a = ex.lvalue(params[0], scope, ow);
    pop.b = ex.expr_of_kind(params[1], ExprKind::kData, scope, ow);
    int width = ex.static_width(pop.a);
    if (width > 0 && p.exprs[pop.b].op == ExprOp::kConst && !jf::literal_fits(p.consts[p.exprs[pop.b].a], width))
      refuse(LoadCode::kLiteralWidth, ow + ": literal " + p.consts[p.exprs[pop.b].a].to_hex() + " is wider than its " +
                                          std::to_string(width) + "-bit destination");
  } else if (op == "verify") {
    arity(params, 2, ow);
    pop.kind = ParseOpKind::kVerify;
    pop.a = ex.expr_of_kind(params[0], ExprKind::kBool, scope, ow);
    pop.b = ex.expr_of_kind(params[1], ExprKind::kData, scope, ow);
  } else if (op == "advance") {
    arity(params, 1, ow);
    pop.kind = ParseOpKind::kAdvance;
    pop.a = ex.expr_of_kind(params[0], ExprKind::kData, scope, ow);
  } else if (op == "shift") {
    arity(params, 1, ow);
    // The deprecated byte-count form of advance.
    pop.kind = ParseOpKind::kAdvance;
    int bytes = ex.expr_of_kind(params[0], ExprKind::kData, scope, ow);
    pop.a = ex.add_node(ExprOp::kMul, ExprKind::kData, bytes, ex.add_const(Value::of(8)));
  } else if (op == "primitive") {
    arity(params, 1, ow);
    pop.kind = ParseOpKind::kPrimitive;
    pop.prim = load_primitive(ctx, params[0], scope, ow, 0, 1);
  } else {
    refuse_feature("parser operation " + op, ow);
  }
  return pop;
}

void transition_key(ExprCompiler& ex, const Json& sj, const Scope& scope, ParseState& st, const std::string& where) {
  for (const Json& kj : jf::array(sj, "transition_key", P4_MAX_KEY_FIELDS, where)) {
    KeyPart part;
    part.expr = ex.expr_of_kind(kj, ExprKind::kData, scope, where + " transition key");
    const ExprNode& n = ex.p.exprs[part.expr];
    part.width = n.op == ExprOp::kLookahead ? n.b : ex.static_width(part.expr);
    if (part.width <= 0) refuse(LoadCode::kOperandKind, where + ": a transition key is not a field or a lookahead");
    part.nbytes = (part.width + 7) / 8;
    st.key_bytes += part.nbytes;
    if (n.op == ExprOp::kLookahead) st.lookahead_bytes = std::max(st.lookahead_bytes, (n.a + n.b + 7) / 8);
    st.key.push_back(part);
  }
}

// The set's members, added by the control plane at its compressed width, are laid out over the
// key's byte-padded fields, as bmv2's ParseVSet does.
void vset_case(Program& p, const Json& tj, int state, ParseState& st, Transition& t, const std::string& tw) {
  const Json& vn = jf::member(tj, "value", tw);
  if (!vn.is_string()) refuse(LoadCode::kSchema, tw + ": parse_vset value is not a name");
  auto it = p.parse_vset_by_name.find(vn.get<std::string>());
  if (it == p.parse_vset_by_name.end())
    refuse(LoadCode::kDanglingRef, tw + " names parse value set '" + vn.get<std::string>().substr(0, 100) + "', which does not exist");
  int bits = 0;
  for (const KeyPart& part : st.key) bits += part.width;
  const int set_bits = p.parse_vsets[static_cast<std::size_t>(it->second)].bitwidth;
  if (bits != set_bits)
    refuse(LoadCode::kBadValue, tw + ": the key's fields hold " + std::to_string(bits) + " bits; value set '" + vn.get<std::string>() +
                                    "' has compressed_bitwidth " + std::to_string(set_bits));
  t.vset = it->second;
  t.vset_case = static_cast<int>(p.vset_cases.size());
  p.vset_cases.push_back({it->second, state, static_cast<int>(st.transitions.size())});
  t.value.assign(static_cast<std::size_t>(st.key_bytes), 0);
}

void transitions(ExprCompiler& ex, const Json& sj, int state, const StateNames& states, ParseState& st, const std::string& where) {
  bool have_default = false;
  for (const Json& tj : jf::array(sj, "transitions", P4_MAX_TRANSITIONS, where)) {
    std::string tw = where + " transition";
    const Json* tt = jf::find(tj, "type");
    std::string type = (tt == nullptr || tt->is_null()) ? "hexstr" : jf::string(tj, "type", tw);
    // Legacy p4c-bm JSON has no "type" and writes the default as "value": "default".
    if (tt == nullptr && jf::find(tj, "value") != nullptr && *jf::find(tj, "value") == "default") type = "default";
    int next = states.ref(jf::member(tj, "next_state", tw), tw);
    if (type == "default") {
      // bmv2 takes the default only after every value case has failed, wherever the JSON
      // lists it.
      if (have_default) refuse(LoadCode::kDuplicate, where + " has two default transitions");
      have_default = true;
      st.default_next = next;
      continue;
    }
    if (type != "hexstr" && type != "parse_vset") refuse(LoadCode::kSchema, tw + " of type '" + type + "'");
    if (st.key.empty()) refuse(LoadCode::kSchema, tw + ": a value transition in a state without a transition key");
    Transition t;
    if (type == "parse_vset") vset_case(ex.p, tj, state, st, t, tw);
    else t.value = jf::hexbytes(jf::member(tj, "value", tw), st.key_bytes, tw + " value");
    const Json* mj = jf::find(tj, "mask");
    if (mj == nullptr || mj->is_null()) t.mask.assign(static_cast<std::size_t>(st.key_bytes), 0xff);
    else t.mask = jf::hexbytes(*mj, st.key_bytes, tw + " mask");
    for (int b = 0; b < st.key_bytes; ++b) t.value[b] &= t.mask[b];
    t.next = next;
    st.transitions.push_back(std::move(t));
  }
}

}  // namespace
}  // namespace parser_loading

ParserInfo load_parser(const Json& doc, const PrimitiveContext& ctx) {
  Program& p = ctx.ex.p;
  using namespace parser_loading;
  const Json& parsers = jf::array(doc, "parsers", P4_MAX_PARSE_STATES, "program");
  for (const Json& pj : parsers) jf::name(pj, "parser");
  const Json* pj = find_named(parsers, "parser");
  ParserInfo parser;
  parser.name = "parser";
  if (pj == nullptr) {  // recorded; load_program refuses the program (check_v1model)
    p.not_v1model.emplace_back(LoadCode::kDanglingRef,
                                "program has no parser named 'parser' (simple_switch runs that one" + others(parsers) + ")");
    return parser;
  }
  const Json& states = jf::array(*pj, "parse_states", P4_MAX_PARSE_STATES, "parser 'parser'");
  StateNames names;
  std::set<std::int64_t> ids;
  for (const Json& sj : states) {
    ParseState st;
    jf::Identity me = jf::identify(sj, "parse state", &ids, &names.by_name, static_cast<int>(parser.states.size()));
    st.name = me.name;
    st.id = me.id;
    parser.states.push_back(std::move(st));
  }
  parser.init_state = names.ref(jf::member(*pj, "init_state", "parser 'parser'"), "parser 'parser' init_state");
  ExprScope scope;
  scope.parser = true;
  for (std::size_t si = 0; si < states.size(); ++si) {
    const Json& sj = states[si];
    ParseState& st = parser.states[si];
    const std::string where = "parse state '" + st.name + "'";
    const Json& ops = jf::array(sj, "parser_ops", P4_MAX_PARSER_OPS, where);
    for (std::size_t oi = 0; oi < ops.size(); ++oi) st.ops.push_back(parse_op(ctx, ops[oi], oi, scope, where));
    transition_key(ctx.ex, sj, scope, st, where);
    transitions(ctx.ex, sj, static_cast<int>(si), names, st, where);
  }
  return parser;
}

DeparserInfo load_deparser(const Json& doc, const PrimitiveContext& ctx) {
  Program& p = ctx.ex.p;
  const Json& deparsers = jf::array(doc, "deparsers", P4_MAX_PARSE_STATES, "program");
  for (const Json& dj : deparsers) jf::name(dj, "deparser");
  const Json* dj = find_named(deparsers, "deparser");
  DeparserInfo deparser;
  deparser.name = "deparser";
  if (dj == nullptr) {  // recorded; load_program refuses the program (check_v1model)
    p.not_v1model.emplace_back(LoadCode::kDanglingRef,
                                "program has no deparser named 'deparser' (simple_switch runs that one" + others(deparsers) +
                                    ")");
    return deparser;
  }
  std::set<int> seen;
  for (const Json& h : jf::array(*dj, "order", P4_MAX_HEADERS, "deparser 'deparser'")) {
    if (!h.is_string()) refuse(LoadCode::kSchema, "deparser 'deparser': an order entry is not a header name");
    int hid = ctx.ex.header_ref(h.get<std::string>(), "deparser 'deparser'");
    if (p.headers[hid].metadata)
      refuse(LoadCode::kOperandKind, "deparser 'deparser' emits metadata '" + p.headers[hid].name +
                                         "': metadata is architecture state, not something to put on a wire");
    if (!seen.insert(hid).second) refuse(LoadCode::kDuplicate, "deparser 'deparser' emits header '" + p.headers[hid].name + "' twice");
    deparser.order.push_back(hid);
  }
  ExprScope scope;
  const Json& prims = jf::array(*dj, "primitives", P4_MAX_PRIMITIVES, "deparser 'deparser'");
  for (std::size_t i = 0; i < prims.size(); ++i) {
    Prim prim = load_primitive(ctx, prims[i], scope, "deparser 'deparser'", i, prims.size());
    if (prim.op == PrimOp::kJump || prim.op == PrimOp::kJumpIfZero)
      refuse(LoadCode::kBadJump, "deparser 'deparser' primitive " + std::to_string(i) + ": jumps are only taken inside actions");
    deparser.prims.push_back(std::move(prim));
  }
  return deparser;
}

}  // namespace dpusim::p4
