// Actions and their primitives (JSON_format.md "actions", simple_switch's primitives.cpp
// for the v1model ones), and extern instances.
#include <algorithm>
#include <set>

#include "dpusim/p4/limits.h"
#include "loader.h"

namespace dpusim::p4 {

namespace {

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
    // An instance of a type the target lacks loads (simple_switch instantiates nothing for
    // it); a call to it is refused by name, below.
    const ExternType* type = externs_ == nullptr ? nullptr : externs_->find(inst.type);
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
    if (type != nullptr && type->validate != nullptr && !type->validate(inst, &error)) refuse(LoadCode::kBadValue, where + ": " + error);
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
    if (width > 0 && p_.exprs[v].op == ExprOp::kConst && !literal_fits(p_.consts[p_.exprs[v].a], width))
      refuse(LoadCode::kLiteralWidth, w + ": literal " + p_.consts[p_.exprs[v].a].to_hex() + " is wider than its " +
                                          std::to_string(width) + "-bit destination");
    return v;
  };
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
    // drop writes egress_spec and zeroes intrinsic_metadata.mcast_grp; mark_to_drop(h)
    // writes h's egress_spec and zeroes h's mcast_grp (h: any header of the standard
    // metadata's shape, as primitives.cpp finds the fields by name).
    prim.op = op == "drop" ? PrimOp::kDrop : PrimOp::kMarkToDrop;
    prim.a = p_.f_egress_spec;
    prim.b = op == "drop" ? p_.f_mcast_grp : p_.f_mark_to_drop_mcast;
    if (params.empty() && prim.a < 0)
      refuse(LoadCode::kNoEgressSpec, where + ": " + op + " writes standard_metadata.egress_spec, which the program does not have");
    if (params.size() == 1) {
      int h = header_operand(params[0], scope, where);
      if (p_.exprs[h].op != ExprOp::kHeader)
        refuse(LoadCode::kOperandKind, where + ": operand is not a header instance");
      const HeaderInfo& hi = p_.headers[static_cast<std::size_t>(p_.exprs[h].a)];
      prim.a = prim.b = -1;
      for (int k = 0; k < hi.nfields; ++k) {
        const std::string& fname = p_.fields[static_cast<std::size_t>(hi.first_field + k)].name;
        if (fname == hi.name + ".egress_spec") prim.a = hi.first_field + k;
        if (fname == hi.name + ".mcast_grp") prim.b = hi.first_field + k;
      }
      if (prim.a < 0) refuse(LoadCode::kOperandKind, where + ": header '" + hi.name + "' has no egress_spec field");
    }
    return prim;
  }
  if (op == "exit" || op == "no_op") {
    arity(0, 0);
    prim.op = op == "exit" ? PrimOp::kExit : PrimOp::kNoOp;
    return prim;
  }
  if (op == "log_msg") {
    arity(1, 2);
    const Json& fmt = params[0];
    if (!fmt.is_object() || !find(fmt, "type") || !(*find(fmt, "type") == "string") || !member(fmt, "value", where).is_string())
      refuse(LoadCode::kSchema, where + ": the format is not a string operand");
    std::string text = member(fmt, "value", where).get<std::string>();
    if (text.size() > P4_MAX_NAME_BYTES) refuse(LoadCode::kBadValue, where + ": format of " + std::to_string(text.size()) + " bytes exceeds " + std::to_string(P4_MAX_NAME_BYTES));
    prim.op = PrimOp::kLogMsg;
    prim.a = static_cast<int>(p_.log_formats.size());
    p_.log_formats.push_back(text);
    if (params.size() == 2) {
      const Json& vec = member(params[1], "value", where);
      check_array(vec, P4_MAX_ACTION_PARAMS, where + " parameters");
      for (const Json& item : vec) prim.args.push_back(expr_of_kind(item, ExprKind::kData, scope, where + " parameter"));
    }
    return prim;
  }
  if (op == "count") {
    arity(2, 2);
    prim.op = PrimOp::kCount;
    prim.a = named_operand(params[0], "counter_array", p_.counter_by_name, where);
    if (p_.counters[static_cast<std::size_t>(prim.a)].direct_table >= 0 || direct_counter_named(prim.a))
      refuse(LoadCode::kOperandKind, where + ": '" + p_.counters[static_cast<std::size_t>(prim.a)].name + "' is a direct counter (its table counts)");
    prim.b = expr_of_kind(params[1], ExprKind::kData, scope, where);
    return prim;
  }
  if (op == "execute_meter") {
    arity(3, 3);
    prim.op = PrimOp::kExecuteMeter;
    prim.a = named_operand(params[0], "meter_array", p_.meter_by_name, where);
    if (p_.meters[static_cast<std::size_t>(prim.a)].result_field >= 0)
      refuse(LoadCode::kOperandKind, where + ": '" + p_.meters[static_cast<std::size_t>(prim.a)].name + "' is a direct meter (its table executes it)");
    prim.b = expr_of_kind(params[1], ExprKind::kData, scope, where);
    prim.c = lvalue(params[2], scope, where);
    return prim;
  }
  if (op == "register_read") {
    arity(3, 3);
    prim.op = PrimOp::kRegisterRead;
    prim.a = lvalue(params[0], scope, where);
    prim.b = named_operand(params[1], "register_array", p_.register_by_name, where);
    prim.c = expr_of_kind(params[2], ExprKind::kData, scope, where);
    return prim;
  }
  if (op == "register_write") {
    arity(3, 3);
    prim.op = PrimOp::kRegisterWrite;
    prim.a = named_operand(params[0], "register_array", p_.register_by_name, where);
    prim.b = expr_of_kind(params[1], ExprKind::kData, scope, where);
    prim.c = expr_of_kind(params[2], ExprKind::kData, scope, where);
    return prim;
  }
  if (op == "clone_ingress_pkt_to_egress" || op == "clone_egress_pkt_to_egress") {
    arity(2, 2);
    prim.op = op == "clone_ingress_pkt_to_egress" ? PrimOp::kCloneI2E : PrimOp::kCloneE2E;
    prim.a = expr_of_kind(params[0], ExprKind::kData, scope, where);
    prim.b = field_list_operand(params[1], scope, where, false);
    return prim;
  }
  if (op == "resubmit" || op == "recirculate") {
    arity(1, 1);
    prim.op = op == "resubmit" ? PrimOp::kResubmit : PrimOp::kRecirculate;
    prim.a = field_list_operand(params[0], scope, where, false);
    return prim;
  }
  if (op == "generate_digest") {
    arity(2, 2);
    prim.op = PrimOp::kGenerateDigest;
    prim.a = expr_of_kind(params[0], ExprKind::kData, scope, where);
    prim.b = field_list_operand(params[1], scope, where, true);
    return prim;
  }
  if (op == "modify_field_with_hash_based_offset") {
    arity(4, 4);
    prim.op = PrimOp::kHashOffset;
    prim.a = lvalue(params[0], scope, where);
    prim.b = expr_of_kind(params[1], ExprKind::kData, scope, where);
    prim.c = named_operand(params[2], "calculation", p_.calculation_by_name, where);
    prim.args.push_back(expr_of_kind(params[3], ExprKind::kData, scope, where));
    return prim;
  }
  if (op == "modify_field_rng_uniform") {
    arity(3, 3);
    prim.op = PrimOp::kRandom;
    prim.a = lvalue(params[0], scope, where);
    prim.b = expr_of_kind(params[1], ExprKind::kData, scope, where);
    prim.c = expr_of_kind(params[2], ExprKind::kData, scope, where);
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
    const ExternType* type = externs_ == nullptr ? nullptr : externs_->find(inst.type);
    if (type == nullptr) refuse_feature("extern " + inst.type, where + " calls instance '" + inst.name + "'");
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
  // `f(a, b)`: an extern function the target registered (simple_switch's --load-modules).
  if (const ExternFunction* fn = externs_ == nullptr ? nullptr : externs_->find_function(op)) {
    if (fn->invoke == nullptr) refuse_feature("extern function " + op, where + " (registered without a body)");
    int nargs = static_cast<int>(params.size());
    if (nargs < fn->min_args || nargs > fn->max_args)
      refuse(LoadCode::kSchema, where + " takes " + std::to_string(fn->min_args) + "-" + std::to_string(fn->max_args) +
                                    " arguments, not " + std::to_string(nargs));
    prim.op = PrimOp::kExternFunction;
    prim.a = static_cast<int>(p_.extern_functions.size());
    p_.extern_functions.push_back(fn);
    for (int k = 0; k < nargs; ++k) {
      bool out = std::find(fn->out_args.begin(), fn->out_args.end(), k) != fn->out_args.end();
      prim.args.push_back(out ? lvalue(params[static_cast<std::size_t>(k)], scope, where)
                              : expr_of_kind(params[static_cast<std::size_t>(k)], ExprKind::kData, scope, where));
    }
    return prim;
  }
  check_name(op, where);
  refuse_feature("primitive " + op, where + " (neither a primitive of simple_switch nor a registered extern function)");
}

int Loader::named_operand(const Json& v, const char* type, const std::map<std::string, int>& names, const std::string& where) {
  if (!v.is_object() || find(v, "type") == nullptr || !(*find(v, "type") == type))
    refuse(LoadCode::kOperandKind, where + ": operand is not a " + type);
  const Json& n = member(v, "value", where);
  if (!n.is_string()) refuse(LoadCode::kSchema, where + ": " + type + " operand is not a name");
  auto it = names.find(n.get<std::string>());
  if (it == names.end()) refuse(LoadCode::kDanglingRef, where + " names " + type + " '" + n.get<std::string>().substr(0, 100) + "', which does not exist");
  return it->second;
}

int Loader::field_list_operand(const Json& v, const ExprScope& scope, const std::string& where, bool learn) {
  int node = expr_of_kind(v, ExprKind::kData, scope, where);
  // A constant id must name a list: bmv2 would dereference a missing one.
  if (p_.exprs[node].op == ExprOp::kConst) {
    const Value& id = p_.consts[p_.exprs[node].a];
    std::uint64_t n = 0;
    const auto& lists = learn ? p_.learn_lists : p_.field_lists;
    bool found = false;
    for (const FieldListInfo& fl : lists) found = found || (id.fits_u64(&n) && n == static_cast<std::uint64_t>(fl.id));
    // Id 0 asks for nothing (simple_switch keeps the request in a register where 0 is none).
    if (!found && !(id.fits_u64(&n) && n == 0))
      refuse(LoadCode::kDanglingRef, where + " names " + (learn ? "learn list " : "field list ") + id.to_hex() + ", which does not exist");
  }
  return node;
}

}  // namespace dpusim::p4
