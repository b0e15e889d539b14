// Expressions (JSON_format.md, "The type value object"): compiled to nodes of
// Program::exprs and typed as bmv2 types them, so the executor never reads a header as a
// number or a number as a condition.
#include <algorithm>

#include "dpusim/p4/limits.h"
#include "loader.h"

namespace dpusim::p4 {

namespace {

const char* kind_name(ExprKind k) {
  switch (k) {
    case ExprKind::kData: return "a value";
    case ExprKind::kBool: return "a boolean";
    case ExprKind::kHeader: return "a header";
    case ExprKind::kStack: return "a header stack";
    case ExprKind::kUnion: return "a header union";
    case ExprKind::kUnionStack: return "a header union stack";
  }
  return "?";
}

struct BinaryData {
  const char* name;
  ExprOp op;
};
const BinaryData kBinaryData[] = {
    {"+", ExprOp::kAdd},    {"-", ExprOp::kSub},    {"*", ExprOp::kMul},     {"/", ExprOp::kDiv},
    {"%", ExprOp::kMod},    {"<<", ExprOp::kShl},   {">>", ExprOp::kShr},    {"&", ExprOp::kBitAnd},
    {"|", ExprOp::kBitOr},  {"^", ExprOp::kBitXor},
};
const BinaryData kCompare[] = {
    {"<", ExprOp::kLt}, {"<=", ExprOp::kLe}, {">", ExprOp::kGt}, {">=", ExprOp::kGe},
};

}  // namespace

namespace expr_loading {
namespace {

std::string field_what(const std::string& hdr, const std::string& field) {
  return "field '" + hdr + "." + field + "'";
}

}  // namespace
}  // namespace expr_loading

int ExprCompiler::add_node(ExprOp op, ExprKind kind, int a, int b, int c) {
  ExprNode n{op, kind, a, b, c};
  n.small_bits = static_cast<std::int16_t>(small_bits(n));
  p.exprs.push_back(n);
  return static_cast<int>(p.exprs.size()) - 1;
}

int ExprCompiler::small_bits(const ExprNode& n) const {
  // The bound on a value's bits through the operators that cannot make it negative.
  auto sub = [&](int node) { return node >= 0 ? static_cast<int>(p.exprs[static_cast<std::size_t>(node)].small_bits) : -1; };
  auto fits = [](int bits) { return bits >= 0 && bits <= kSmallBits ? bits : -1; };
  int a = -1, b = -1;
  switch (n.op) {  // the operators whose a and b are both data nodes
    case ExprOp::kAdd: case ExprOp::kMul: case ExprOp::kBitAnd: case ExprOp::kBitOr: case ExprOp::kBitXor:
    case ExprOp::kShr: case ExprOp::kTernary:
      a = sub(n.a);
      b = sub(n.b);
      break;
    default: break;
  }
  switch (n.op) {
    case ExprOp::kField: {
      const FieldInfo& f = p.fields[static_cast<std::size_t>(n.a)];
      return f.is_signed || f.varbit ? -1 : fits(f.width);
    }
    case ExprOp::kConst: {
      const Value& v = p.consts[static_cast<std::size_t>(n.a)];
      return v.is_negative() ? -1 : fits(v.bit_length());
    }
    case ExprOp::kValidField:
    case ExprOp::kB2D: return 1;
    case ExprOp::kAdd: return a < 0 || b < 0 ? -1 : fits(std::max(a, b) + 1);
    case ExprOp::kMul: return a < 0 || b < 0 ? -1 : fits(a + b);
    case ExprOp::kBitAnd: return a < 0 || b < 0 ? -1 : std::min(a, b);
    case ExprOp::kBitOr:
    case ExprOp::kBitXor: return a < 0 || b < 0 ? -1 : std::max(a, b);
    case ExprOp::kShr: return a < 0 || b < 0 ? -1 : a;
    case ExprOp::kTernary: return n.kind != ExprKind::kData || a < 0 || b < 0 ? -1 : std::max(a, b);
    default: return -1;
  }
}

int ExprCompiler::add_const(const Value& v) {
  p.consts.push_back(v);
  return add_node(ExprOp::kConst, ExprKind::kData, static_cast<int>(p.consts.size()) - 1);
}

int ExprCompiler::static_width(int node) const {
  const ExprNode& n = p.exprs[node];
  switch (n.op) {
    case ExprOp::kField: return p.fields[n.a].width;
    case ExprOp::kValidField: return 1;
    case ExprOp::kStackLastField: {
      const HeaderTypeInfo& t = p.header_types[p.stacks[n.a].type];
      return t.fields[n.b].second;
    }
    case ExprOp::kUnionStackLastField: {
      const UnionInfo& u0 = p.unions[p.union_stacks[n.a].unions[0]];
      return p.header_types[p.headers[u0.headers[n.b]].type].fields[n.c].second;
    }
    case ExprOp::kAccessField: {
      const ExprNode& h = p.exprs[n.a];
      int type = -1;
      if (h.op == ExprOp::kHeader) type = p.headers[h.a].type;
      if (h.op == ExprOp::kDerefStack) type = p.stacks[p.exprs[h.a].a].type;
      return type < 0 ? -1 : p.header_types[type].fields[n.b].second;
    }
    default: return -1;
  }
}

namespace {

// The header type a header-kind node always has (bmv2's stacks and unions are typed).
int header_type_of(const Program& p, int node) {
  const ExprNode& n = p.exprs[node];
  switch (n.op) {
    case ExprOp::kHeader: return p.headers[n.a].type;
    case ExprOp::kDerefStack: return p.stacks[p.exprs[n.a].a].type;
    case ExprOp::kAccessUnionHeader: {
      const ExprNode& u = p.exprs[n.a];
      int uidx = u.op == ExprOp::kUnion ? u.a : p.union_stacks[p.exprs[u.a].a].unions[0];
      return p.headers[p.unions[uidx].headers[n.b]].type;
    }
    case ExprOp::kTernary: return header_type_of(p, n.a);
    default: return -1;
  }
}

int union_members_of(const Program& p, int node) {
  const ExprNode& n = p.exprs[node];
  if (n.op == ExprOp::kUnion) return static_cast<int>(p.unions[n.a].headers.size());
  if (n.op == ExprOp::kDerefUnionStack)
    return static_cast<int>(p.unions[p.union_stacks[p.exprs[n.a].a].unions[0]].headers.size());
  return -1;
}

}  // namespace

int ExprCompiler::expr_of_kind(const Json& v, ExprKind kind, const ExprScope& scope, const std::string& where) {
  int n = expr(v, scope, where);
  if (p.exprs[n].kind != kind)
    refuse(LoadCode::kOperandKind, where + ": operand is " + kind_name(p.exprs[n].kind) + " where " +
                                       kind_name(kind) + " is required");
  return n;
}

// Named apart from the other loader files' helpers, with which a unity batch compiles this.
namespace expr_loading {
namespace {

using Scope = ExprScope;

int runtime_data(ExprCompiler& ex, const Json& val, const Scope& scope, const std::string& where) {
  if (scope.num_params < 0) refuse(LoadCode::kOperandKind, where + ": action data used outside an action");
  int idx = static_cast<int>(jf::as_integer(val, where + " runtime data index", 0, INT32_MAX));
  if (idx >= scope.num_params)
    refuse(LoadCode::kDanglingRef, where + ": runtime data index " + std::to_string(idx) + " past the action's " +
                                       std::to_string(scope.num_params) + " parameters");
  const ActionParam& prm = (*scope.params)[idx];
  int node = ex.add_node(ExprOp::kLocal, ExprKind::kData, idx, prm.limb, prm.nlimbs);
  ex.p.exprs[static_cast<std::size_t>(node)].small_bits = static_cast<std::int16_t>(prm.width <= kSmallBits ? prm.width : -1);
  return node;
}

// header, header_stack (stack), header_union, header_union_stack: an instance by name.
int named_instance(ExprCompiler& ex, const std::string& type, const Json& val, const std::string& where) {
  const Program& p = ex.p;
  if (!val.is_string()) refuse(LoadCode::kSchema, where + ": " + type + " operand is not a name");
  std::string n = val.get<std::string>();
  if (type == "header") return ex.add_node(ExprOp::kHeader, ExprKind::kHeader, ex.header_ref(n, where));
  const std::map<std::string, int>& m = (type == "header_union")         ? p.union_by_name
                                        : (type == "header_union_stack") ? p.union_stack_by_name
                                                                         : p.stack_by_name;
  auto it = m.find(n);
  if (it == m.end()) refuse(LoadCode::kDanglingRef, where + " names " + type + " '" + n + "', which does not exist");
  if (type == "header_union") return ex.add_node(ExprOp::kUnion, ExprKind::kUnion, it->second);
  if (type == "header_union_stack") return ex.add_node(ExprOp::kUnionStack, ExprKind::kUnionStack, it->second);
  return ex.add_node(ExprOp::kStack, ExprKind::kStack, it->second);
}

int stack_field(ExprCompiler& ex, const Json& val, const std::string& where) {
  const Program& p = ex.p;
  if (!val.is_array() || val.size() != 2 || !val[0].is_string() || !val[1].is_string())
    refuse(LoadCode::kSchema, where + ": stack_field is not a [stack, field] pair");
  auto it = p.stack_by_name.find(val[0].get<std::string>());
  if (it == p.stack_by_name.end())
    refuse(LoadCode::kDanglingRef, where + " names header stack '" + val[0].get<std::string>() + "', which does not exist");
  const HeaderTypeInfo& t = p.header_types[p.stacks[it->second].type];
  for (std::size_t k = 0; k < t.fields.size(); ++k)
    if (t.fields[k].first == val[1].get<std::string>())
      return ex.add_node(ExprOp::kStackLastField, ExprKind::kData, it->second, static_cast<int>(k));
  refuse(LoadCode::kDanglingRef, where + " names field '" + val[1].get<std::string>() + "' of stack '" + val[0].get<std::string>() +
                                     "', which does not exist");
}

int union_stack_field(ExprCompiler& ex, const Json& val, const Scope& scope, const std::string& where) {
  const Program& p = ex.p;
  if (!scope.parser) refuse(LoadCode::kOperandKind, where + ": union_stack_field outside a parser");
  if (!val.is_array() || val.size() != 3 || !val[0].is_string() || !val[1].is_string() || !val[2].is_string())
    refuse(LoadCode::kSchema, where + ": union_stack_field is not a [stack, member, field] triple");
  auto it = p.union_stack_by_name.find(val[0].get<std::string>());
  if (it == p.union_stack_by_name.end())
    refuse(LoadCode::kDanglingRef, where + " names header union stack '" + val[0].get<std::string>() + "', which does not exist");
  const UnionInfo& u0 = p.unions[p.union_stacks[it->second].unions[0]];
  for (std::size_t m = 0; m < u0.members.size(); ++m) {
    if (u0.members[m] != val[1].get<std::string>()) continue;
    const HeaderTypeInfo& t = p.header_types[p.headers[u0.headers[m]].type];
    for (std::size_t k = 0; k < t.fields.size(); ++k)
      if (t.fields[k].first == val[2].get<std::string>())
        return ex.add_node(ExprOp::kUnionStackLastField, ExprKind::kData, it->second, static_cast<int>(m), static_cast<int>(k));
  }
  refuse(LoadCode::kDanglingRef, where + " names member field '" + val[1].get<std::string>() + "." + val[2].get<std::string>() +
                                     "' of union stack '" + val[0].get<std::string>() + "', which does not exist");
}

int lookahead(ExprCompiler& ex, const Json& val, const Scope& scope, const std::string& where) {
  if (!scope.parser) refuse(LoadCode::kOperandKind, where + ": lookahead outside a parser");
  if (!val.is_array() || val.size() != 2) refuse(LoadCode::kSchema, where + ": lookahead is not an [offset, width] pair");
  int off = static_cast<int>(jf::as_integer(val[0], where + " lookahead offset", 0, P4_MAX_FRAME_BYTES * 8));
  int w = static_cast<int>(jf::as_integer(val[1], where + " lookahead width", 1, P4_MAX_FIELD_BITS));
  return ex.add_node(ExprOp::kLookahead, ExprKind::kData, off, w);
}

// An operator's call: its name, operands and where it is.
struct OpCall {
  ExprCompiler& ex;
  const Json& val;
  const Scope& scope;
  const std::string& op;
  const std::string& where;
  const Json& need(const char* which) const {
    const Json* side = jf::find(val, which);
    if (side == nullptr || side->is_null()) refuse(LoadCode::kSchema, where + ": operator '" + op + "' has no " + which + " operand");
    return *side;
  }
  int operand(const char* which, ExprKind kind) const {
    return ex.expr_of_kind(need(which), kind, scope, where + " '" + op + "'");
  }
  int any(const char* which) const { return ex.expr(need(which), scope, where + " '" + op + "'"); }
};

// Unary operators: the node, its kind, and the kind its (right) operand must be.
struct Unary {
  const char* name;
  ExprOp op;
  ExprKind kind, operand;
};
const Unary kUnary[] = {
    {"not", ExprOp::kNot, ExprKind::kBool, ExprKind::kBool},
    {"~", ExprOp::kBitNeg, ExprKind::kData, ExprKind::kData},
    {"d2b", ExprOp::kD2B, ExprKind::kBool, ExprKind::kData},
    {"b2d", ExprOp::kB2D, ExprKind::kData, ExprKind::kBool},
    {"valid", ExprOp::kValid, ExprKind::kBool, ExprKind::kHeader},
    {"valid_union", ExprOp::kValidUnion, ExprKind::kBool, ExprKind::kUnion},
};

int equality(const OpCall& c) {
  const Program& p = c.ex.p;
  int l = c.any("left");
  int r = c.any("right");
  ExprKind lk = p.exprs[l].kind, rk = p.exprs[r].kind;
  if (lk != rk) refuse(LoadCode::kOperandKind, c.where + ": '" + c.op + "' compares " + kind_name(lk) + " with " + kind_name(rk));
  bool eq = c.op == "==";
  switch (lk) {
    case ExprKind::kData: return c.ex.add_node(eq ? ExprOp::kEq : ExprOp::kNe, ExprKind::kBool, l, r);
    case ExprKind::kBool: return c.ex.add_node(eq ? ExprOp::kEqBool : ExprOp::kNeBool, ExprKind::kBool, l, r);
    case ExprKind::kHeader:
      if (header_type_of(p, l) != header_type_of(p, r))
        refuse(LoadCode::kOperandKind, c.where + ": '" + c.op + "' compares headers of different types");
      return c.ex.add_node(eq ? ExprOp::kEqHeader : ExprOp::kNeHeader, ExprKind::kBool, l, r);
    case ExprKind::kUnion:
      if (union_members_of(p, l) != union_members_of(p, r))
        refuse(LoadCode::kOperandKind, c.where + ": '" + c.op + "' compares unions of different types");
      return c.ex.add_node(eq ? ExprOp::kEqUnion : ExprOp::kNeUnion, ExprKind::kBool, l, r);
    default:
      refuse(LoadCode::kOperandKind, c.where + ": '" + c.op + "' cannot compare " + kind_name(lk));
  }
}

int choice(const OpCall& c) {
  const Program& p = c.ex.p;
  const std::string w = c.where + " '?'";
  int cond = c.ex.expr_of_kind(c.need("cond"), ExprKind::kBool, c.scope, w);
  int l = c.ex.expr(c.need("left"), c.scope, w);
  int r = c.ex.expr(c.need("right"), c.scope, w);
  const ExprKind k = p.exprs[l].kind;
  if (k != p.exprs[r].kind)
    refuse(LoadCode::kOperandKind, c.where + ": '?' chooses between " + kind_name(k) + " and " + kind_name(p.exprs[r].kind));
  if (k == ExprKind::kHeader && header_type_of(p, l) != header_type_of(p, r))
    refuse(LoadCode::kOperandKind, c.where + ": '?' chooses between headers of different types");
  if (k != ExprKind::kData && k != ExprKind::kBool && k != ExprKind::kHeader)
    refuse(LoadCode::kOperandKind, c.where + ": '?' cannot choose " + std::string(kind_name(k)));
  return c.ex.add_node(ExprOp::kTernary, k, l, r, cond);
}

// usat_cast, sat_cast, two_comp_mod: a value and a constant width.
int cast(const OpCall& c) {
  int l = c.operand("left", ExprKind::kData);
  const Json& r = c.need("right");
  if (!r.is_object() || jf::find(r, "type") == nullptr || !(*jf::find(r, "type") == "hexstr"))
    refuse(LoadCode::kOperandKind, c.where + ": '" + c.op + "' takes a constant width");
  Value w = jf::hexstr(jf::member(r, "value", c.where), c.where);
  std::uint64_t width = 0;
  if (!w.fits_u64(&width) || width < 1 || width > static_cast<std::uint64_t>(P4_MAX_FIELD_BITS))
    refuse(LoadCode::kBadWidth, c.where + ": '" + c.op + "' width " + w.to_hex() + " is not in [1, " +
                                    std::to_string(P4_MAX_FIELD_BITS) + "]");
  ExprOp eop = c.op == "usat_cast" ? ExprOp::kUsatCast : c.op == "sat_cast" ? ExprOp::kSatCast : ExprOp::kTwoCompMod;
  return c.ex.add_node(eop, ExprKind::kData, l, static_cast<int>(width));
}

int access_field(const OpCall& c) {
  const Program& p = c.ex.p;
  int h = c.ex.expr_of_kind(c.need("left"), ExprKind::kHeader, c.scope, c.where + " 'access_field'");
  int type = header_type_of(p, h);
  int nf = type < 0 ? 0 : static_cast<int>(p.header_types[type].fields.size());
  int off = static_cast<int>(jf::as_integer(c.need("right"), c.where + " field offset", 0, INT32_MAX));
  if (off >= nf)
    refuse(LoadCode::kDanglingRef, c.where + ": field offset " + std::to_string(off) + " past the header's " + std::to_string(nf) + " fields");
  return c.ex.add_node(ExprOp::kAccessField, ExprKind::kData, h, off);
}

int access_union_header(const OpCall& c) {
  int u = c.ex.expr_of_kind(c.need("left"), ExprKind::kUnion, c.scope, c.where + " 'access_union_header'");
  int off = static_cast<int>(jf::as_integer(c.need("right"), c.where + " union member", 0, INT32_MAX));
  if (off >= union_members_of(c.ex.p, u))
    refuse(LoadCode::kDanglingRef, c.where + ": union member " + std::to_string(off) + " does not exist");
  return c.ex.add_node(ExprOp::kAccessUnionHeader, ExprKind::kHeader, u, off);
}

// An "expression" operand: an operator and its operands.
int expression(ExprCompiler& ex, const Json& val, const Scope& scope, const std::string& where) {
  if (val.is_object() && jf::find(val, "op") == nullptr) return ex.expr(val, scope, where);
  const std::string op = jf::string(val, "op", where + " expression");
  const OpCall c{ex, val, scope, op, where};
  for (const auto& b : kBinaryData)
    if (op == b.name) {
      // Unary minus and plus: bmv2's build_expression (P4Objects.cpp) takes a missing left
      // operand of "-" or "+" as the constant 0.
      const Json* left = jf::find(val, "left");
      const bool unary = (b.op == ExprOp::kSub || b.op == ExprOp::kAdd) && (left == nullptr || left->is_null());
      int l = unary ? ex.add_const(Value::zero()) : c.operand("left", ExprKind::kData);
      return ex.add_node(b.op, ExprKind::kData, l, c.operand("right", ExprKind::kData));
    }
  for (const auto& b : kCompare)
    if (op == b.name) {
      int l = c.operand("left", ExprKind::kData);
      return ex.add_node(b.op, ExprKind::kBool, l, c.operand("right", ExprKind::kData));
    }
  for (const auto& u : kUnary)
    if (op == u.name) return ex.add_node(u.op, u.kind, c.operand("right", u.operand));
  if (op == "==" || op == "!=") return equality(c);
  if (op == "and" || op == "or") {
    int l = c.operand("left", ExprKind::kBool);
    return ex.add_node(op == "and" ? ExprOp::kAnd : ExprOp::kOr, ExprKind::kBool, l, c.operand("right", ExprKind::kBool));
  }
  if (op == "?") return choice(c);
  if (op == "usat_cast" || op == "sat_cast" || op == "two_comp_mod") return cast(c);
  if (op == "dereference_header_stack" || op == "dereference_stack") {
    int s = c.operand("left", ExprKind::kStack);
    return ex.add_node(ExprOp::kDerefStack, ExprKind::kHeader, s, c.operand("right", ExprKind::kData));
  }
  if (op == "dereference_union_stack") {
    int s = c.operand("left", ExprKind::kUnionStack);
    return ex.add_node(ExprOp::kDerefUnionStack, ExprKind::kUnion, s, c.operand("right", ExprKind::kData));
  }
  if (op == "access_field") return access_field(c);
  if (op == "access_union_header") return access_union_header(c);
  if (op == "last_stack_index" || op == "size_stack")
    return ex.add_node(op == "size_stack" ? ExprOp::kSizeStack : ExprOp::kLastStackIndex, ExprKind::kData,
                      c.operand("right", ExprKind::kStack));
  refuse_feature("expression operator " + op, where);
}

}  // namespace
}  // namespace expr_loading

int ExprCompiler::expr(const Json& v, const ExprScope& scope, const std::string& where) {
  using namespace expr_loading;
  if (!v.is_object()) refuse(LoadCode::kSchema, where + ": operand is a JSON " + std::string(v.type_name()) + ", not a {type, value} object");
  std::string type = jf::string(v, "type", where);
  const Json& val = jf::member(v, "value", where);
  if (type == "field") {
    if (val.is_array() && val.size() == 2 && val[1].is_string() && val[1].get<std::string>() == "$valid$" && val[0].is_string())
      return add_node(ExprOp::kValidField, ExprKind::kData, header_ref(val[0].get<std::string>(), where));
    return add_node(ExprOp::kField, ExprKind::kData, field_ref(val, where));
  }
  if (type == "hexstr") {
    Value literal = jf::hexstr(val, where);
    // Only an action takes action data: that scope is an action's (the ernic feature set
    // refuses "negative literals in actions").
    if (literal.is_negative() && scope.num_params >= 0 && p.negative_literal_at.empty()) p.negative_literal_at = where;
    return add_const(literal);
  }
  if (type == "bool") {
    if (!val.is_boolean()) refuse(LoadCode::kSchema, where + ": bool operand is not true or false");
    return add_node(ExprOp::kBoolConst, ExprKind::kBool, val.get<bool>() ? 1 : 0);
  }
  if (type == "runtime_data" || type == "local") return runtime_data(*this, val, scope, where);
  if (type == "header" || type == "header_stack" || type == "stack" || type == "header_union" || type == "header_union_stack")
    return named_instance(*this, type, val, where);
  if (type == "stack_field") return stack_field(*this, val, where);
  if (type == "union_stack_field") return union_stack_field(*this, val, scope, where);
  if (type == "lookahead") return lookahead(*this, val, scope, where);
  if (type == "expression") return expression(*this, val, scope, where);
  if (type == "register") refuse_feature("registers", where);
  if (type == "calculation") refuse_feature("calculations", where);
  if (type == "counter_array") refuse_feature("counters", where);
  if (type == "meter_array") refuse_feature("meters", where);
  if (type == "register_array") refuse_feature("registers", where);
  refuse(LoadCode::kOperandKind, where + ": operand of type '" + type + "' is not a value");
}

int ExprCompiler::header_ref(const std::string& n, const std::string& where) {
  auto it = p.header_by_name.find(n);
  if (it == p.header_by_name.end()) refuse(LoadCode::kDanglingRef, where + " names header '" + n + "', which does not exist");
  return it->second;
}

int ExprCompiler::field_ref(const Json& v, const std::string& where) {
  using expr_loading::field_what;
  if (!v.is_array() || v.size() != 2 || !v[0].is_string() || !v[1].is_string())
    refuse(LoadCode::kSchema, where + ": a field reference is not a [header, field] pair");
  std::string h = v[0].get<std::string>(), f = v[1].get<std::string>();
  auto it = p.field_by_name.find(h + "." + f);
  if (it == p.field_by_name.end()) {
    auto a = aliases.find(h + "." + f);
    if (a != aliases.end()) return a->second;
    if (p.header_by_name.count(h) == 0 && p.stack_by_name.count(h) == 0)
      refuse(LoadCode::kDanglingRef, where + " names header '" + h + "', which does not exist");
    refuse(LoadCode::kDanglingRef, where + " names " + field_what(h, f) + ", which does not exist");
  }
  return it->second;
}

int ExprCompiler::lvalue(const Json& v, const ExprScope& scope, const std::string& where) {
  return as_lvalue(expr(v, scope, where), where);
}

int ExprCompiler::as_lvalue(int n, const std::string& where) {
  const ExprNode& node = p.exprs[n];
  switch (node.op) {
    case ExprOp::kField:
      return n;
    case ExprOp::kAccessField:
    case ExprOp::kStackLastField:
      return n;
    case ExprOp::kValidField:
      refuse(LoadCode::kOperandKind, where + ": writes the read-only field '" + p.headers[node.a].name + ".$valid$'");
    default:
      refuse(LoadCode::kOperandKind, where + ": destination is not a field");
  }
}

int ExprCompiler::header_operand(const Json& v, const ExprScope& scope, const std::string& where) {
  return expr_of_kind(v, ExprKind::kHeader, scope, where);
}

}  // namespace dpusim::p4
