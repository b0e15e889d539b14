// Actions and their primitives (JSON_format.md "actions", simple_switch's primitives.cpp
// for the v1model ones), and extern instances.
#include <set>

#include "dpusim/p4/limits.h"
#include "loader.h"

namespace dpusim::p4 {

namespace {

struct NamedRefusal {
  const char* primitive;
  const char* feature;
};
// Primitives of simple_switch that need machinery this engine does not model.
const NamedRefusal kRefusedPrimitives[] = {
    {"count", "counters"},
    {"execute_meter", "meters"},
    {"register_read", "registers"},
    {"register_write", "registers"},
    {"clone_ingress_pkt_to_egress", "clone"},
    {"clone_egress_pkt_to_egress", "clone"},
    {"resubmit", "resubmit"},
    {"recirculate", "recirculate"},
    {"generate_digest", "digests"},
    {"modify_field_with_hash_based_offset", "calculations"},
    {"modify_field_rng_uniform", "random numbers"},
    {"extern_func", "extern functions"},
};

struct BinaryPrim {
  const char* name;
  PrimOp op;
};
const BinaryPrim kBinaryPrims[] = {
    {"add", PrimOp::kAdd},           {"subtract", PrimOp::kSubtract},
    {"bit_and", PrimOp::kBitAnd},    {"bit_or", PrimOp::kBitOr},
    {"bit_xor", PrimOp::kBitXor},    {"shift_left", PrimOp::kShiftLeft},
    {"shift_right", PrimOp::kShiftRight},
};

}  // namespace

void Loader::load_externs() {
  std::set<std::int64_t> ids;
  for (const Json& e : array(doc_, "extern_instances", P4_MAX_HEADERS, "program")) {
    ExternInstance inst;
    Identity me = identify(e, "extern instance", &ids, &p_.extern_by_name, static_cast<int>(p_.externs.size()));
    inst.name = me.name;
    inst.id = me.id;
    const std::string& where = me.where;
    inst.type = string(e, "type", where);
    check_name(inst.type, where + " type");
    const ExternType* type = externs_ == nullptr ? nullptr : externs_->find(inst.type);
    if (type == nullptr) refuse_feature("extern " + inst.type, where);
    for (const Json& a : array(e, "attribute_values", P4_MAX_ACTION_PARAMS, where)) {
      std::string an = name(a, where + " attribute");
      std::string at = string(a, "type", where + " attribute '" + an + "'");
      if (at == "hexstr")
        inst.int_attributes[an] = hexstr(member(a, "value", where), where + " attribute '" + an + "'");
      else if (at == "string" && member(a, "value", where).is_string())
        inst.text_attributes[an] = member(a, "value", where).get<std::string>();
      else
        refuse(LoadCode::kOperandKind, where + " attribute '" + an + "' of type '" + at + "' is not a hexstr or a string");
    }
    std::string error;
    if (type->validate != nullptr && !type->validate(inst, &error)) refuse(LoadCode::kBadValue, where + ": " + error);
    p_.externs.push_back(std::move(inst));
  }
}

void Loader::load_actions() {
  std::set<std::int64_t> ids;
  for (const Json& a : array(doc_, "actions", P4_MAX_ACTIONS, "program")) {
    ActionInfo ai;
    Identity me = identify(a, "action", &ids, nullptr, 0);
    ai.name = me.name;
    ai.id = me.id;
    const std::string& where = me.where;
    // p4c gives two controls' actions of one name (NoAction, say) one name and two ids:
    // ids are unique, names only within a table (checked there).
    if (!p_.action_by_name.emplace(ai.name, static_cast<int>(p_.actions.size())).second)
      duplicate_action_names_.insert(ai.name);
    std::set<std::string> pnames;
    for (const Json& rd : array(a, "runtime_data", P4_MAX_ACTION_PARAMS, where)) {
      ActionParam prm;
      prm.name = name(rd, where + " parameter");
      std::string pw = where + " parameter '" + prm.name + "'";
      if (!pnames.insert(prm.name).second) refuse(LoadCode::kDuplicate, pw + " is declared twice");
      const Json& bw = member(rd, "bitwidth", pw);
      if (bw.is_number_float()) refuse(LoadCode::kBadWidth, pw + ": width " + bw.dump() + " is not an integer");
      std::int64_t w = as_integer(bw, pw + " bitwidth", INT32_MIN, INT32_MAX);
      if (w < 1) refuse(LoadCode::kBadWidth, pw + ": width " + std::to_string(w) + " is not positive");
      if (w > P4_MAX_ENTRY_FIELD_BITS)
        refuse(LoadCode::kEntryFieldWidth, pw + " is " + std::to_string(w) + " bits; a table entry carries at most " +
                                               std::to_string(P4_MAX_ENTRY_FIELD_BITS) + " bits of an action argument");
      prm.width = static_cast<int>(w);
      prm.limb = ai.data_limbs;
      prm.nlimbs = (prm.width + 63) / 64;
      ai.data_limbs += prm.nlimbs;
      ai.params.push_back(std::move(prm));
    }
    p_.actions.push_back(std::move(ai));
  }
  // Primitives second, once every action's parameters are known.
  std::size_t idx = 0;
  for (const Json& a : array(doc_, "actions", P4_MAX_ACTIONS, "program")) {
    ActionInfo& ai = p_.actions[idx++];
    ExprScope scope;
    scope.num_params = static_cast<int>(ai.params.size());
    scope.params = &ai.params;
    const Json& prims = array(a, "primitives", P4_MAX_PRIMITIVES, "action '" + ai.name + "'");
    for (std::size_t i = 0; i < prims.size(); ++i)
      ai.prims.push_back(primitive(prims[i], scope, "action '" + ai.name + "'", i, prims.size()));
  }
}

Prim Loader::primitive(const Json& pj, const ExprScope& scope, const std::string& owner, std::size_t index,
                       std::size_t count) {
  std::string op = string(pj, "op", owner + " primitive " + std::to_string(index));
  std::string where = owner + " primitive " + std::to_string(index) + " '" + op + "'";
  Prim prim;
  if (const Json* si = find(pj, "source_info"))
    if (const Json* frag = find(*si, "source_fragment"))
      if (frag->is_string()) prim.where = frag->get<std::string>().substr(0, 200);
  const Json& params = array(pj, "parameters", P4_MAX_PRIMITIVES, where);
  auto arity = [&](std::size_t lo, std::size_t hi) {
    if (params.size() < lo || params.size() > hi)
      refuse(LoadCode::kSchema, where + " takes " + std::to_string(lo) + (lo == hi ? "" : "-" + std::to_string(hi)) +
                                    " parameters, not " + std::to_string(params.size()));
  };
  auto value_into = [&](int dst, const Json& src, const std::string& w) {
    int v = expr_of_kind(src, ExprKind::kData, scope, w);
    int width = static_width(dst);
    if (width > 0 && p_.exprs[v].op == ExprOp::kConst && p_.consts[p_.exprs[v].a].bit_length() > width)
      refuse(LoadCode::kLiteralWidth, w + ": literal " + p_.consts[p_.exprs[v].a].to_hex() + " is wider than its " +
                                          std::to_string(width) + "-bit destination");
    return v;
  };
  for (const auto& r : kRefusedPrimitives)
    if (op == r.primitive) refuse_feature(r.feature, where);
  if (op == "assign" || op == "modify_field") {
    arity(2, 2);
    int first = expr(params[0], scope, where);
    ExprKind k = p_.exprs[first].kind;
    if (k == ExprKind::kHeader) {  // a whole-header assignment written as 'assign'
      prim.op = PrimOp::kAssignHeader;
      prim.a = first;
      prim.b = header_operand(params[1], scope, where);
      return prim;
    }
    prim.op = PrimOp::kAssign;
    prim.a = as_lvalue(first, where);
    prim.b = value_into(prim.a, params[1], where);
    return prim;
  }
  if (op == "assign_VL") {
    arity(2, 2);
    prim.op = PrimOp::kAssignVL;
    for (int k = 0; k < 2; ++k) {
      int n = k == 0 ? lvalue(params[0], scope, where) : expr_of_kind(params[1], ExprKind::kData, scope, where);
      if (p_.exprs[n].op != ExprOp::kField || !p_.fields[p_.exprs[n].a].varbit)
        refuse(LoadCode::kOperandKind, where + ": operand " + std::to_string(k) + " is not a varbit field");
      (k == 0 ? prim.a : prim.b) = p_.exprs[n].a;
    }
    return prim;
  }
  if (op == "assign_header" || op == "copy_header") {
    arity(2, 2);
    prim.op = PrimOp::kAssignHeader;
    prim.a = header_operand(params[0], scope, where);
    prim.b = header_operand(params[1], scope, where);
    return prim;
  }
  if (op == "assign_union") {
    arity(2, 2);
    prim.op = PrimOp::kAssignUnion;
    prim.a = expr_of_kind(params[0], ExprKind::kUnion, scope, where);
    prim.b = expr_of_kind(params[1], ExprKind::kUnion, scope, where);
    return prim;
  }
  if (op == "assign_header_stack" || op == "assign_union_stack") {
    arity(2, 2);
    ExprKind k = op == "assign_header_stack" ? ExprKind::kStack : ExprKind::kUnionStack;
    prim.op = op == "assign_header_stack" ? PrimOp::kAssignHeaderStack : PrimOp::kAssignUnionStack;
    prim.a = p_.exprs[expr_of_kind(params[0], k, scope, where)].a;
    prim.b = p_.exprs[expr_of_kind(params[1], k, scope, where)].a;
    std::size_t da = k == ExprKind::kStack ? p_.stacks[prim.a].headers.size() : p_.union_stacks[prim.a].unions.size();
    std::size_t db = k == ExprKind::kStack ? p_.stacks[prim.b].headers.size() : p_.union_stacks[prim.b].unions.size();
    if (da != db) refuse(LoadCode::kOperandKind, where + ": stacks of different depths");
    return prim;
  }
  if (op == "add_to_field" || op == "subtract_from_field") {
    arity(2, 2);
    prim.op = op == "add_to_field" ? PrimOp::kAddToField : PrimOp::kSubtractFromField;
    prim.a = lvalue(params[0], scope, where);
    prim.b = expr_of_kind(params[1], ExprKind::kData, scope, where);
    return prim;
  }
  for (const auto& b : kBinaryPrims)
    if (op == b.name) {
      arity(3, 3);
      prim.op = b.op;
      prim.a = lvalue(params[0], scope, where);
      prim.b = expr_of_kind(params[1], ExprKind::kData, scope, where);
      prim.c = expr_of_kind(params[2], ExprKind::kData, scope, where);
      return prim;
    }
  if (op == "add_header" || op == "remove_header") {
    arity(1, 1);
    prim.op = op == "add_header" ? PrimOp::kAddHeader : PrimOp::kRemoveHeader;
    prim.a = header_operand(params[0], scope, where);
    if (p_.exprs[prim.a].op == ExprOp::kHeader && p_.headers[p_.exprs[prim.a].a].metadata)
      refuse(LoadCode::kOperandKind, where + ": '" + p_.headers[p_.exprs[prim.a].a].name + "' is metadata, which is always valid");
    return prim;
  }
  if (op == "push" || op == "pop") {
    arity(2, 2);
    prim.op = op == "push" ? PrimOp::kPush : PrimOp::kPop;
    prim.a = expr(params[0], scope, where);
    ExprKind k = p_.exprs[prim.a].kind;
    if (k != ExprKind::kStack && k != ExprKind::kUnionStack)
      refuse(LoadCode::kOperandKind, where + ": first operand is not a stack");
    prim.b = expr_of_kind(params[1], ExprKind::kData, scope, where);
    return prim;
  }
  if (op == "mark_to_drop" || op == "drop") {
    arity(0, op == "drop" ? 0 : 1);
    if (params.size() == 1) {
      int h = header_operand(params[0], scope, where);
      if (p_.exprs[h].op != ExprOp::kHeader || p_.exprs[h].a != p_.fields[p_.f_egress_spec].header)
        refuse(LoadCode::kOperandKind, where + ": operand is not the standard_metadata that holds egress_spec");
    }
    prim.op = PrimOp::kMarkToDrop;
    return prim;
  }
  if (op == "exit" || op == "no_op" || op == "log_msg") {
    if (op != "log_msg") arity(0, 0);
    if (op == "log_msg") {
      // Validate what the message would read; the engine has no console to print it to.
      arity(2, 2);
      if (const Json* vec = find(params[1], "value"); vec != nullptr && vec->is_array()) {
        check_array(*vec, P4_MAX_ACTION_PARAMS, where + " parameters");
        for (const Json& item : *vec) expr(item, scope, where);
      }
    }
    prim.op = op == "exit" ? PrimOp::kExit : PrimOp::kNoOp;
    return prim;
  }
  if (op == "_jump" || op == "_jump_if_zero") {
    bool cond = op == "_jump_if_zero";
    arity(cond ? 2 : 1, cond ? 2 : 1);
    const Json& tj = params[cond ? 1 : 0];
    if (!tj.is_object() || find(tj, "type") == nullptr || !(*find(tj, "type") == "hexstr"))
      refuse(LoadCode::kBadJump, where + ": jump target is not a constant");
    Value t = hexstr(member(tj, "value", where), where);
    std::uint64_t target = 0;
    // p4c emits backward jumps for loops in actions; the executor bounds the primitives
    // one action may run (P4_MAX_ACTION_STEPS), so a loop cannot spin the thread.
    if (!t.fits_u64(&target) || target > count)
      refuse(LoadCode::kBadJump, where + ": jump target " + t.to_hex() + " is outside the action's " + std::to_string(count) +
                                     " primitives");
    prim.op = cond ? PrimOp::kJumpIfZero : PrimOp::kJump;
    if (cond) {
      prim.a = expr(params[0], scope, where);
      if (p_.exprs[prim.a].kind == ExprKind::kBool) prim.a = add_node(ExprOp::kB2D, ExprKind::kData, prim.a);
      if (p_.exprs[prim.a].kind != ExprKind::kData) refuse(LoadCode::kOperandKind, where + ": condition is not a value");
      prim.b = static_cast<int>(target);
    } else {
      prim.a = static_cast<int>(target);
    }
    return prim;
  }
  if (op == "truncate") {
    arity(1, 1);
    prim.op = PrimOp::kTruncate;
    prim.a = expr_of_kind(params[0], ExprKind::kData, scope, where);
    return prim;
  }
  if (op == "assert" || op == "assume") {
    arity(1, 1);
    prim.op = PrimOp::kAssert;
    prim.a = expr(params[0], scope, where);
    if (p_.exprs[prim.a].kind == ExprKind::kData) prim.a = add_node(ExprOp::kD2B, ExprKind::kBool, prim.a);
    if (p_.exprs[prim.a].kind != ExprKind::kBool) refuse(LoadCode::kOperandKind, where + ": condition is not a boolean");
    return prim;
  }
  // `_<type>_<method>`: a method of an extern instance.
  if (op.size() > 1 && op[0] == '_' && !params.empty() && params[0].is_object() && find(params[0], "type") != nullptr &&
      *find(params[0], "type") == "extern") {
    const Json& iv = member(params[0], "value", where);
    if (!iv.is_string()) refuse(LoadCode::kSchema, where + ": extern instance is not a name");
    auto it = p_.extern_by_name.find(iv.get<std::string>());
    if (it == p_.extern_by_name.end())
      refuse(LoadCode::kDanglingRef, where + " names extern instance '" + iv.get<std::string>() + "', which does not exist");
    const ExternInstance& inst = p_.externs[it->second];
    const ExternType* type = externs_->find(inst.type);
    std::string prefix = "_" + inst.type + "_";
    if (op.compare(0, prefix.size(), prefix) != 0)
      refuse(LoadCode::kOperandKind, where + ": instance '" + inst.name + "' is of type '" + inst.type + "'");
    std::string method = op.substr(prefix.size());
    for (std::size_t m = 0; m < type->methods.size(); ++m) {
      const ExternMethod& em = type->methods[m];
      if (em.name != method) continue;
      if (em.invoke == nullptr) refuse_feature("extern method " + inst.type + "." + method, where + " (registered without a body)");
      int nargs = static_cast<int>(params.size()) - 1;
      if (nargs < em.min_args || nargs > em.max_args)
        refuse(LoadCode::kSchema, where + " takes " + std::to_string(em.min_args) + "-" + std::to_string(em.max_args) +
                                      " arguments, not " + std::to_string(nargs));
      prim.op = PrimOp::kExtern;
      prim.a = it->second;
      prim.b = static_cast<int>(p_.extern_calls.size());
      p_.extern_calls.push_back(em.invoke);
      for (std::size_t k = 1; k < params.size(); ++k)
        prim.args.push_back(expr_of_kind(params[k], ExprKind::kData, scope, where));
      return prim;
    }
    refuse_feature("extern method " + inst.type + "." + method, where);
  }
  refuse_feature("primitive " + op, where);
}

}  // namespace dpusim::p4
