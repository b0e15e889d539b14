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

int Loader::add_node(ExprOp op, ExprKind kind, int a, int b, int c) {
  ExprNode n{op, kind, a, b, c};
  n.small_bits = static_cast<std::int16_t>(small_bits(n));
  p_.exprs.push_back(n);
  return static_cast<int>(p_.exprs.size()) - 1;
}

int Loader::small_bits(const ExprNode& n) const {
  // The bound on a value's bits through the operators that cannot make it negative.
  auto sub = [&](int node) { return node >= 0 ? static_cast<int>(p_.exprs[static_cast<std::size_t>(node)].small_bits) : -1; };
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
      const FieldInfo& f = p_.fields[static_cast<std::size_t>(n.a)];
      return f.is_signed || f.varbit ? -1 : fits(f.width);
    }
    case ExprOp::kConst: {
      const Value& v = p_.consts[static_cast<std::size_t>(n.a)];
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

int Loader::add_const(const Value& v) {
  p_.consts.push_back(v);
  return add_node(ExprOp::kConst, ExprKind::kData, static_cast<int>(p_.consts.size()) - 1);
}

int Loader::static_width(int node) const {
  const ExprNode& n = p_.exprs[node];
  switch (n.op) {
    case ExprOp::kField: return p_.fields[n.a].width;
    case ExprOp::kValidField: return 1;
    case ExprOp::kStackLastField: {
      const HeaderTypeInfo& t = p_.header_types[p_.stacks[n.a].type];
      return t.fields[n.b].second;
    }
    case ExprOp::kUnionStackLastField: {
      const UnionInfo& u0 = p_.unions[p_.union_stacks[n.a].unions[0]];
      return p_.header_types[p_.headers[u0.headers[n.b]].type].fields[n.c].second;
    }
    case ExprOp::kAccessField: {
      const ExprNode& h = p_.exprs[n.a];
      int type = -1;
      if (h.op == ExprOp::kHeader) type = p_.headers[h.a].type;
      if (h.op == ExprOp::kDerefStack) type = p_.stacks[p_.exprs[h.a].a].type;
      return type < 0 ? -1 : p_.header_types[type].fields[n.b].second;
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

int Loader::expr_of_kind(const Json& v, ExprKind kind, const ExprScope& scope, const std::string& where) {
  int n = expr(v, scope, where);
  if (p_.exprs[n].kind != kind)
    refuse(LoadCode::kOperandKind, where + ": operand is " + kind_name(p_.exprs[n].kind) + " where " +
                                       kind_name(kind) + " is required");
  return n;
}

int Loader::expr(const Json& v, const ExprScope& scope, const std::string& where) {
  if (!v.is_object()) refuse(LoadCode::kSchema, where + ": operand is a JSON " + std::string(v.type_name()) + ", not a {type, value} object");
  std::string type = string(v, "type", where);
  const Json& val = member(v, "value", where);
  if (type == "field") {
    if (val.is_array() && val.size() == 2 && val[1].is_string() && val[1].get<std::string>() == "$valid$" && val[0].is_string())
      return add_node(ExprOp::kValidField, ExprKind::kData, header_ref(val[0].get<std::string>(), where));
    int f = field_ref(val, where);
    return add_node(ExprOp::kField, ExprKind::kData, f);
  }
  if (type == "hexstr") {
    Value literal = hexstr(val, where);
    // Only an action takes action data: that scope is an action's (the ernic feature set
    // refuses "negative literals in actions").
    if (literal.is_negative() && scope.num_params >= 0 && p_.negative_literal_at.empty()) p_.negative_literal_at = where;
    return add_const(literal);
  }
  if (type == "bool") {
    if (!val.is_boolean()) refuse(LoadCode::kSchema, where + ": bool operand is not true or false");
    return add_node(ExprOp::kBoolConst, ExprKind::kBool, val.get<bool>() ? 1 : 0);
  }
  if (type == "runtime_data" || type == "local") {
    if (scope.num_params < 0) refuse(LoadCode::kOperandKind, where + ": action data used outside an action");
    int idx = static_cast<int>(as_integer(val, where + " runtime data index", 0, INT32_MAX));
    if (idx >= scope.num_params)
      refuse(LoadCode::kDanglingRef, where + ": runtime data index " + std::to_string(idx) + " past the action's " +
                                         std::to_string(scope.num_params) + " parameters");
    const ActionParam& prm = (*scope.params)[idx];
    int node = add_node(ExprOp::kLocal, ExprKind::kData, idx, prm.limb, prm.nlimbs);
    p_.exprs[static_cast<std::size_t>(node)].small_bits = static_cast<std::int16_t>(prm.width <= kSmallBits ? prm.width : -1);
    return node;
  }
  if (type == "header" || type == "header_stack" || type == "stack" || type == "header_union" ||
      type == "header_union_stack") {
    if (!val.is_string()) refuse(LoadCode::kSchema, where + ": " + type + " operand is not a name");
    std::string n = val.get<std::string>();
    if (type == "header") return add_node(ExprOp::kHeader, ExprKind::kHeader, header_ref(n, where));
    const std::map<std::string, int>& m = (type == "header_union") ? p_.union_by_name
                                          : (type == "header_union_stack") ? p_.union_stack_by_name
                                                                          : p_.stack_by_name;
    auto it = m.find(n);
    if (it == m.end()) refuse(LoadCode::kDanglingRef, where + " names " + type + " '" + n + "', which does not exist");
    if (type == "header_union") return add_node(ExprOp::kUnion, ExprKind::kUnion, it->second);
    if (type == "header_union_stack") return add_node(ExprOp::kUnionStack, ExprKind::kUnionStack, it->second);
    return add_node(ExprOp::kStack, ExprKind::kStack, it->second);
  }
  if (type == "stack_field") {
    if (!val.is_array() || val.size() != 2 || !val[0].is_string() || !val[1].is_string())
      refuse(LoadCode::kSchema, where + ": stack_field is not a [stack, field] pair");
    auto it = p_.stack_by_name.find(val[0].get<std::string>());
    if (it == p_.stack_by_name.end())
      refuse(LoadCode::kDanglingRef, where + " names header stack '" + val[0].get<std::string>() + "', which does not exist");
    const HeaderTypeInfo& t = p_.header_types[p_.stacks[it->second].type];
    for (std::size_t k = 0; k < t.fields.size(); ++k)
      if (t.fields[k].first == val[1].get<std::string>())
        return add_node(ExprOp::kStackLastField, ExprKind::kData, it->second, static_cast<int>(k));
    refuse(LoadCode::kDanglingRef, where + " names field '" + val[1].get<std::string>() + "' of stack '" + val[0].get<std::string>() + "', which does not exist");
  }
  if (type == "union_stack_field") {
    if (!scope.parser) refuse(LoadCode::kOperandKind, where + ": union_stack_field outside a parser");
    if (!val.is_array() || val.size() != 3 || !val[0].is_string() || !val[1].is_string() || !val[2].is_string())
      refuse(LoadCode::kSchema, where + ": union_stack_field is not a [stack, member, field] triple");
    auto it = p_.union_stack_by_name.find(val[0].get<std::string>());
    if (it == p_.union_stack_by_name.end())
      refuse(LoadCode::kDanglingRef, where + " names header union stack '" + val[0].get<std::string>() + "', which does not exist");
    const UnionInfo& u0 = p_.unions[p_.union_stacks[it->second].unions[0]];
    for (std::size_t m = 0; m < u0.members.size(); ++m) {
      if (u0.members[m] != val[1].get<std::string>()) continue;
      const HeaderTypeInfo& t = p_.header_types[p_.headers[u0.headers[m]].type];
      for (std::size_t k = 0; k < t.fields.size(); ++k)
        if (t.fields[k].first == val[2].get<std::string>())
          return add_node(ExprOp::kUnionStackLastField, ExprKind::kData, it->second, static_cast<int>(m), static_cast<int>(k));
    }
    refuse(LoadCode::kDanglingRef, where + " names member field '" + val[1].get<std::string>() + "." + val[2].get<std::string>() +
                                       "' of union stack '" + val[0].get<std::string>() + "', which does not exist");
  }
  if (type == "lookahead") {
    if (!scope.parser) refuse(LoadCode::kOperandKind, where + ": lookahead outside a parser");
    if (!val.is_array() || val.size() != 2) refuse(LoadCode::kSchema, where + ": lookahead is not an [offset, width] pair");
    int off = static_cast<int>(as_integer(val[0], where + " lookahead offset", 0, P4_MAX_FRAME_BYTES * 8));
    int w = static_cast<int>(as_integer(val[1], where + " lookahead width", 1, P4_MAX_FIELD_BITS));
    return add_node(ExprOp::kLookahead, ExprKind::kData, off, w);
  }
  if (type == "expression") {
    if (val.is_object() && find(val, "op") == nullptr) return expr(val, scope, where);
    std::string op = string(val, "op", where + " expression");
    const Json* left = find(val, "left");
    const Json* right = find(val, "right");
    auto need = [&](const Json* side, const char* which) -> const Json& {
      if (side == nullptr || side->is_null()) refuse(LoadCode::kSchema, where + ": operator '" + op + "' has no " + which + " operand");
      return *side;
    };
    for (const auto& b : kBinaryData)
      if (op == b.name) {
        int l = expr_of_kind(need(left, "left"), ExprKind::kData, scope, where + " '" + op + "'");
        int r = expr_of_kind(need(right, "right"), ExprKind::kData, scope, where + " '" + op + "'");
        return add_node(b.op, ExprKind::kData, l, r);
      }
    for (const auto& b : kCompare)
      if (op == b.name) {
        int l = expr_of_kind(need(left, "left"), ExprKind::kData, scope, where + " '" + op + "'");
        int r = expr_of_kind(need(right, "right"), ExprKind::kData, scope, where + " '" + op + "'");
        return add_node(b.op, ExprKind::kBool, l, r);
      }
    if (op == "==" || op == "!=") {
      int l = expr(need(left, "left"), scope, where + " '" + op + "'");
      int r = expr(need(right, "right"), scope, where + " '" + op + "'");
      ExprKind lk = p_.exprs[l].kind, rk = p_.exprs[r].kind;
      if (lk != rk)
        refuse(LoadCode::kOperandKind, where + ": '" + op + "' compares " + kind_name(lk) + " with " + kind_name(rk));
      bool eq = op == "==";
      switch (lk) {
        case ExprKind::kData: return add_node(eq ? ExprOp::kEq : ExprOp::kNe, ExprKind::kBool, l, r);
        case ExprKind::kBool: return add_node(eq ? ExprOp::kEqBool : ExprOp::kNeBool, ExprKind::kBool, l, r);
        case ExprKind::kHeader:
          if (header_type_of(p_, l) != header_type_of(p_, r))
            refuse(LoadCode::kOperandKind, where + ": '" + op + "' compares headers of different types");
          return add_node(eq ? ExprOp::kEqHeader : ExprOp::kNeHeader, ExprKind::kBool, l, r);
        case ExprKind::kUnion:
          if (union_members_of(p_, l) != union_members_of(p_, r))
            refuse(LoadCode::kOperandKind, where + ": '" + op + "' compares unions of different types");
          return add_node(eq ? ExprOp::kEqUnion : ExprOp::kNeUnion, ExprKind::kBool, l, r);
        default:
          refuse(LoadCode::kOperandKind, where + ": '" + op + "' cannot compare " + kind_name(lk));
      }
    }
    if (op == "and" || op == "or") {
      int l = expr_of_kind(need(left, "left"), ExprKind::kBool, scope, where + " '" + op + "'");
      int r = expr_of_kind(need(right, "right"), ExprKind::kBool, scope, where + " '" + op + "'");
      return add_node(op == "and" ? ExprOp::kAnd : ExprOp::kOr, ExprKind::kBool, l, r);
    }
    if (op == "not")
      return add_node(ExprOp::kNot, ExprKind::kBool,
                      expr_of_kind(need(right, "right"), ExprKind::kBool, scope, where + " 'not'"));
    if (op == "~")
      return add_node(ExprOp::kBitNeg, ExprKind::kData,
                      expr_of_kind(need(right, "right"), ExprKind::kData, scope, where + " '~'"));
    if (op == "d2b")
      return add_node(ExprOp::kD2B, ExprKind::kBool,
                      expr_of_kind(need(right, "right"), ExprKind::kData, scope, where + " 'd2b'"));
    if (op == "b2d")
      return add_node(ExprOp::kB2D, ExprKind::kData,
                      expr_of_kind(need(right, "right"), ExprKind::kBool, scope, where + " 'b2d'"));
    if (op == "valid")
      return add_node(ExprOp::kValid, ExprKind::kBool,
                      expr_of_kind(need(right, "right"), ExprKind::kHeader, scope, where + " 'valid'"));
    if (op == "valid_union")
      return add_node(ExprOp::kValidUnion, ExprKind::kBool,
                      expr_of_kind(need(right, "right"), ExprKind::kUnion, scope, where + " 'valid_union'"));
    if (op == "?") {
      const Json* cond = find(val, "cond");
      int c = expr_of_kind(need(cond, "cond"), ExprKind::kBool, scope, where + " '?'");
      int l = expr(need(left, "left"), scope, where + " '?'");
      int r = expr(need(right, "right"), scope, where + " '?'");
      if (p_.exprs[l].kind != p_.exprs[r].kind)
        refuse(LoadCode::kOperandKind, where + ": '?' chooses between " + kind_name(p_.exprs[l].kind) + " and " +
                                           kind_name(p_.exprs[r].kind));
      if (p_.exprs[l].kind == ExprKind::kHeader && header_type_of(p_, l) != header_type_of(p_, r))
        refuse(LoadCode::kOperandKind, where + ": '?' chooses between headers of different types");
      if (p_.exprs[l].kind != ExprKind::kData && p_.exprs[l].kind != ExprKind::kBool &&
          p_.exprs[l].kind != ExprKind::kHeader)
        refuse(LoadCode::kOperandKind, where + ": '?' cannot choose " + std::string(kind_name(p_.exprs[l].kind)));
      return add_node(ExprOp::kTernary, p_.exprs[l].kind, l, r, c);
    }
    if (op == "usat_cast" || op == "sat_cast" || op == "two_comp_mod") {
      int l = expr_of_kind(need(left, "left"), ExprKind::kData, scope, where + " '" + op + "'");
      const Json& r = need(right, "right");
      if (!r.is_object() || find(r, "type") == nullptr || !(*find(r, "type") == "hexstr"))
        refuse(LoadCode::kOperandKind, where + ": '" + op + "' takes a constant width");
      Value w = hexstr(member(r, "value", where), where);
      std::uint64_t width = 0;
      if (!w.fits_u64(&width) || width < 1 || width > static_cast<std::uint64_t>(P4_MAX_FIELD_BITS))
        refuse(LoadCode::kBadWidth, where + ": '" + op + "' width " + w.to_hex() + " is not in [1, " +
                                        std::to_string(P4_MAX_FIELD_BITS) + "]");
      ExprOp eop = op == "usat_cast" ? ExprOp::kUsatCast : op == "sat_cast" ? ExprOp::kSatCast : ExprOp::kTwoCompMod;
      return add_node(eop, ExprKind::kData, l, static_cast<int>(width));
    }
    if (op == "dereference_header_stack" || op == "dereference_stack") {
      int s = expr_of_kind(need(left, "left"), ExprKind::kStack, scope, where + " '" + op + "'");
      int i = expr_of_kind(need(right, "right"), ExprKind::kData, scope, where + " '" + op + "'");
      return add_node(ExprOp::kDerefStack, ExprKind::kHeader, s, i);
    }
    if (op == "dereference_union_stack") {
      int s = expr_of_kind(need(left, "left"), ExprKind::kUnionStack, scope, where + " '" + op + "'");
      int i = expr_of_kind(need(right, "right"), ExprKind::kData, scope, where + " '" + op + "'");
      return add_node(ExprOp::kDerefUnionStack, ExprKind::kUnion, s, i);
    }
    if (op == "access_field") {
      int h = expr_of_kind(need(left, "left"), ExprKind::kHeader, scope, where + " 'access_field'");
      int type = header_type_of(p_, h);
      int nf = type < 0 ? 0 : static_cast<int>(p_.header_types[type].fields.size());
      int off = static_cast<int>(as_integer(need(right, "right"), where + " field offset", 0, INT32_MAX));
      if (off >= nf) refuse(LoadCode::kDanglingRef, where + ": field offset " + std::to_string(off) + " past the header's " + std::to_string(nf) + " fields");
      return add_node(ExprOp::kAccessField, ExprKind::kData, h, off);
    }
    if (op == "access_union_header") {
      int u = expr_of_kind(need(left, "left"), ExprKind::kUnion, scope, where + " 'access_union_header'");
      int off = static_cast<int>(as_integer(need(right, "right"), where + " union member", 0, INT32_MAX));
      if (off >= union_members_of(p_, u)) refuse(LoadCode::kDanglingRef, where + ": union member " + std::to_string(off) + " does not exist");
      return add_node(ExprOp::kAccessUnionHeader, ExprKind::kHeader, u, off);
    }
    if (op == "last_stack_index" || op == "size_stack") {
      int s = expr_of_kind(need(right, "right"), ExprKind::kStack, scope, where + " '" + op + "'");
      return add_node(op == "size_stack" ? ExprOp::kSizeStack : ExprOp::kLastStackIndex, ExprKind::kData, s);
    }
    refuse_feature("expression operator " + op, where);
  }
  if (type == "register") refuse_feature("registers", where);
  if (type == "calculation") refuse_feature("calculations", where);
  if (type == "counter_array") refuse_feature("counters", where);
  if (type == "meter_array") refuse_feature("meters", where);
  if (type == "register_array") refuse_feature("registers", where);
  refuse(LoadCode::kOperandKind, where + ": operand of type '" + type + "' is not a value");
}

int Loader::lvalue(const Json& v, const ExprScope& scope, const std::string& where) {
  return as_lvalue(expr(v, scope, where), where);
}

int Loader::as_lvalue(int n, const std::string& where) {
  const ExprNode& node = p_.exprs[n];
  switch (node.op) {
    case ExprOp::kField:
      return n;
    case ExprOp::kAccessField:
    case ExprOp::kStackLastField:
      return n;
    case ExprOp::kValidField:
      refuse(LoadCode::kOperandKind, where + ": writes the read-only field '" + p_.headers[node.a].name + ".$valid$'");
    default:
      refuse(LoadCode::kOperandKind, where + ": destination is not a field");
  }
}

int Loader::header_operand(const Json& v, const ExprScope& scope, const std::string& where) {
  return expr_of_kind(v, ExprKind::kHeader, scope, where);
}

}  // namespace dpusim::p4
