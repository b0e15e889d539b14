// Action primitives (JSON_format.md "actions"; simple_switch's primitives.cpp for the v1model
// ones): a table from each op's name to the handler that builds its Prim, as bmv2 registers an
// ActionPrimitive per name; then the methods of extern instances and the extern functions a
// target registered. A handler checks the op's arity first, then each operand in order.
#include <algorithm>
#include <map>

#include "dpusim/p4/limits.h"
#include "loader.h"

namespace dpusim::p4 {

// Named apart from the other loader files' helpers, with which a unity batch compiles this.
namespace primitive_handlers {
namespace {

// What a primitive's handler is given: its parameters, the action's scope, its op, where it is
// (for messages), how many primitives the action has (jump targets), and what it is compiled
// against.
struct PrimCall {
  const Json& params;
  const ExprScope& scope;
  const std::string& op;
  const std::string& where;
  std::size_t count;
  const PrimitiveContext& ctx;
};
using Handler = void (*)(ExprCompiler& ex, const PrimCall& c, Prim& prim);

void arity(const PrimCall& c, std::size_t lo, std::size_t hi) {
  if (c.params.size() < lo || c.params.size() > hi)
    refuse(LoadCode::kSchema, c.where + " takes " + std::to_string(lo) + (lo == hi ? "" : "-" + std::to_string(hi)) +
                                  " parameters, not " + std::to_string(c.params.size()));
}

int data(ExprCompiler& ex, const PrimCall& c, std::size_t i) { return ex.expr_of_kind(c.params[i], ExprKind::kData, c.scope, c.where); }
int lvalue(ExprCompiler& ex, const PrimCall& c, std::size_t i) { return ex.lvalue(c.params[i], c.scope, c.where); }

// A value assigned into `dst`: a literal must fit the destination's static width.
int value_into(ExprCompiler& ex, const PrimCall& c, int dst, const Json& src) {
  int v = ex.expr_of_kind(src, ExprKind::kData, c.scope, c.where);
  int width = ex.static_width(dst);
  const Program& p = ex.p;
  if (width > 0 && p.exprs[v].op == ExprOp::kConst && !jf::literal_fits(p.consts[p.exprs[v].a], width))
    refuse(LoadCode::kLiteralWidth, c.where + ": literal " + p.consts[p.exprs[v].a].to_hex() + " is wider than its " +
                                        std::to_string(width) + "-bit destination");
  return v;
}

void assign(ExprCompiler& ex, const PrimCall& c, Prim& prim) {
  arity(c, 2, 2);
  int first = ex.expr(c.params[0], c.scope, c.where);
  if (ex.p.exprs[first].kind == ExprKind::kHeader) {  // a whole-header assignment written as 'assign'
    prim.op = PrimOp::kAssignHeader;
    prim.a = first;
    prim.b = ex.header_operand(c.params[1], c.scope, c.where);
    return;
  }
  prim.op = PrimOp::kAssign;
  prim.a = ex.as_lvalue(first, c.where);
  prim.b = value_into(ex, c, prim.a, c.params[1]);
}

void assign_vl(ExprCompiler& ex, const PrimCall& c, Prim& prim) {
  arity(c, 2, 2);
  prim.op = PrimOp::kAssignVL;
  for (int k = 0; k < 2; ++k) {
    int n = k == 0 ? lvalue(ex, c, 0) : data(ex, c, 1);
    if (ex.p.exprs[n].op != ExprOp::kField || !ex.p.fields[ex.p.exprs[n].a].varbit)
      refuse(LoadCode::kOperandKind, c.where + ": operand " + std::to_string(k) + " is not a varbit field");
    (k == 0 ? prim.a : prim.b) = ex.p.exprs[n].a;
  }
}

void assign_header(ExprCompiler& ex, const PrimCall& c, Prim& prim) {
  arity(c, 2, 2);
  prim.op = PrimOp::kAssignHeader;
  prim.a = ex.header_operand(c.params[0], c.scope, c.where);
  prim.b = ex.header_operand(c.params[1], c.scope, c.where);
}

void assign_union(ExprCompiler& ex, const PrimCall& c, Prim& prim) {
  arity(c, 2, 2);
  prim.op = PrimOp::kAssignUnion;
  prim.a = ex.expr_of_kind(c.params[0], ExprKind::kUnion, c.scope, c.where);
  prim.b = ex.expr_of_kind(c.params[1], ExprKind::kUnion, c.scope, c.where);
}

void assign_stack(ExprCompiler& ex, const PrimCall& c, Prim& prim) {
  arity(c, 2, 2);
  const bool headers = c.op == "assign_header_stack";
  ExprKind k = headers ? ExprKind::kStack : ExprKind::kUnionStack;
  prim.op = headers ? PrimOp::kAssignHeaderStack : PrimOp::kAssignUnionStack;
  const Program& p = ex.p;
  prim.a = p.exprs[ex.expr_of_kind(c.params[0], k, c.scope, c.where)].a;
  prim.b = p.exprs[ex.expr_of_kind(c.params[1], k, c.scope, c.where)].a;
  std::size_t da = headers ? p.stacks[prim.a].headers.size() : p.union_stacks[prim.a].unions.size();
  std::size_t db = headers ? p.stacks[prim.b].headers.size() : p.union_stacks[prim.b].unions.size();
  if (da != db) refuse(LoadCode::kOperandKind, c.where + ": stacks of different depths");
}

void add_to_field(ExprCompiler& ex, const PrimCall& c, Prim& prim) {
  arity(c, 2, 2);
  prim.op = c.op == "add_to_field" ? PrimOp::kAddToField : PrimOp::kSubtractFromField;
  prim.a = lvalue(ex, c, 0);
  prim.b = data(ex, c, 1);
}

// add, subtract, bit_and, bit_or, bit_xor, shift_left, shift_right: dst = a op b.
template <PrimOp kOp>
void binary(ExprCompiler& ex, const PrimCall& c, Prim& prim) {
  arity(c, 3, 3);
  prim.op = kOp;
  prim.a = lvalue(ex, c, 0);
  prim.b = data(ex, c, 1);
  prim.c = data(ex, c, 2);
}

void add_remove_header(ExprCompiler& ex, const PrimCall& c, Prim& prim) {
  arity(c, 1, 1);
  prim.op = c.op == "add_header" ? PrimOp::kAddHeader : PrimOp::kRemoveHeader;
  prim.a = ex.header_operand(c.params[0], c.scope, c.where);
  const Program& p = ex.p;
  if (p.exprs[prim.a].op == ExprOp::kHeader && p.headers[p.exprs[prim.a].a].metadata)
    refuse(LoadCode::kOperandKind, c.where + ": '" + p.headers[p.exprs[prim.a].a].name + "' is metadata, which is always valid");
}

void push_pop(ExprCompiler& ex, const PrimCall& c, Prim& prim) {
  arity(c, 2, 2);
  prim.op = c.op == "push" ? PrimOp::kPush : PrimOp::kPop;
  prim.a = ex.expr(c.params[0], c.scope, c.where);
  ExprKind k = ex.p.exprs[prim.a].kind;
  if (k != ExprKind::kStack && k != ExprKind::kUnionStack) refuse(LoadCode::kOperandKind, c.where + ": first operand is not a stack");
  prim.b = data(ex, c, 1);
}

// drop writes egress_spec and zeroes intrinsic_metadata.mcast_grp; mark_to_drop(h) writes h's
// egress_spec and zeroes h's mcast_grp (h: any header of the standard metadata's shape, as
// primitives.cpp finds the fields by name).
void drop(ExprCompiler& ex, const PrimCall& c, Prim& prim) {
  const bool plain = c.op == "drop";
  arity(c, 0, plain ? 0 : 1);
  const Program& p = ex.p;
  prim.op = plain ? PrimOp::kDrop : PrimOp::kMarkToDrop;
  prim.a = p.f_egress_spec;
  prim.b = plain ? p.f_mcast_grp : p.f_mark_to_drop_mcast;
  if (c.params.empty() && prim.a < 0)
    refuse(LoadCode::kNoEgressSpec, c.where + ": " + c.op + " writes standard_metadata.egress_spec, which the program does not have");
  if (c.params.size() != 1) return;
  int h = ex.header_operand(c.params[0], c.scope, c.where);
  if (p.exprs[h].op != ExprOp::kHeader) refuse(LoadCode::kOperandKind, c.where + ": operand is not a header instance");
  const HeaderInfo& hi = p.headers[static_cast<std::size_t>(p.exprs[h].a)];
  prim.a = prim.b = -1;
  for (int k = 0; k < hi.nfields; ++k) {
    const std::string& fname = p.fields[static_cast<std::size_t>(hi.first_field + k)].name;
    if (fname == hi.name + ".egress_spec") prim.a = hi.first_field + k;
    if (fname == hi.name + ".mcast_grp") prim.b = hi.first_field + k;
  }
  if (prim.a < 0) refuse(LoadCode::kOperandKind, c.where + ": header '" + hi.name + "' has no egress_spec field");
}

void exit_or_no_op(ExprCompiler&, const PrimCall& c, Prim& prim) {
  arity(c, 0, 0);
  prim.op = c.op == "exit" ? PrimOp::kExit : PrimOp::kNoOp;
}

void log_msg(ExprCompiler& ex, const PrimCall& c, Prim& prim) {
  arity(c, 1, 2);
  const Json& fmt = c.params[0];
  if (!fmt.is_object() || !jf::find(fmt, "type") || !(*jf::find(fmt, "type") == "string") ||
      !jf::member(fmt, "value", c.where).is_string())
    refuse(LoadCode::kSchema, c.where + ": the format is not a string operand");
  std::string text = jf::member(fmt, "value", c.where).get<std::string>();
  if (text.size() > P4_MAX_NAME_BYTES)
    refuse(LoadCode::kBadValue, c.where + ": format of " + std::to_string(text.size()) + " bytes exceeds " +
                                    std::to_string(P4_MAX_NAME_BYTES));
  prim.op = PrimOp::kLogMsg;
  prim.a = static_cast<int>(ex.p.log_formats.size());
  ex.p.log_formats.push_back(text);
  if (c.params.size() != 2) return;
  const Json& vec = jf::member(c.params[1], "value", c.where);
  jf::check_array(vec, P4_MAX_ACTION_PARAMS, c.where + " parameters");
  for (const Json& item : vec) prim.args.push_back(ex.expr_of_kind(item, ExprKind::kData, c.scope, c.where + " parameter"));
}

void count(ExprCompiler& ex, const PrimCall& c, Prim& prim) {
  arity(c, 2, 2);
  prim.op = PrimOp::kCount;
  prim.a = ex.named_operand(c.params[0], "counter_array", ex.p.counter_by_name, c.where);
  const CounterInfo& counter = ex.p.counters[static_cast<std::size_t>(prim.a)];
  if (counter.direct_table >= 0 || c.ctx.stateful.direct_counter_named(prim.a))
    refuse(LoadCode::kOperandKind, c.where + ": '" + counter.name + "' is a direct counter (its table counts)");
  prim.b = data(ex, c, 1);
}

void execute_meter(ExprCompiler& ex, const PrimCall& c, Prim& prim) {
  arity(c, 3, 3);
  prim.op = PrimOp::kExecuteMeter;
  prim.a = ex.named_operand(c.params[0], "meter_array", ex.p.meter_by_name, c.where);
  const MeterInfo& meter = ex.p.meters[static_cast<std::size_t>(prim.a)];
  if (meter.result_field >= 0)
    refuse(LoadCode::kOperandKind, c.where + ": '" + meter.name + "' is a direct meter (its table executes it)");
  prim.b = data(ex, c, 1);
  prim.c = lvalue(ex, c, 2);
}

void register_read(ExprCompiler& ex, const PrimCall& c, Prim& prim) {
  arity(c, 3, 3);
  prim.op = PrimOp::kRegisterRead;
  prim.a = lvalue(ex, c, 0);
  prim.b = ex.named_operand(c.params[1], "register_array", ex.p.register_by_name, c.where);
  prim.c = data(ex, c, 2);
}

void register_write(ExprCompiler& ex, const PrimCall& c, Prim& prim) {
  arity(c, 3, 3);
  prim.op = PrimOp::kRegisterWrite;
  prim.a = ex.named_operand(c.params[0], "register_array", ex.p.register_by_name, c.where);
  prim.b = data(ex, c, 1);
  prim.c = data(ex, c, 2);
}

void clone(ExprCompiler& ex, const PrimCall& c, Prim& prim) {
  arity(c, 2, 2);
  prim.op = c.op == "clone_ingress_pkt_to_egress" ? PrimOp::kCloneI2E : PrimOp::kCloneE2E;
  prim.a = data(ex, c, 0);
  prim.b = ex.field_list_operand(c.params[1], c.scope, c.where, false);
}

void resubmit(ExprCompiler& ex, const PrimCall& c, Prim& prim) {
  arity(c, 1, 1);
  prim.op = c.op == "resubmit" ? PrimOp::kResubmit : PrimOp::kRecirculate;
  prim.a = ex.field_list_operand(c.params[0], c.scope, c.where, false);
}

void generate_digest(ExprCompiler& ex, const PrimCall& c, Prim& prim) {
  arity(c, 2, 2);
  prim.op = PrimOp::kGenerateDigest;
  prim.a = data(ex, c, 0);
  prim.b = ex.field_list_operand(c.params[1], c.scope, c.where, true);
}

void hash_offset(ExprCompiler& ex, const PrimCall& c, Prim& prim) {
  arity(c, 4, 4);
  prim.op = PrimOp::kHashOffset;
  prim.a = lvalue(ex, c, 0);
  prim.b = data(ex, c, 1);
  prim.c = ex.named_operand(c.params[2], "calculation", ex.p.calculation_by_name, c.where);
  prim.args.push_back(data(ex, c, 3));
}

void random(ExprCompiler& ex, const PrimCall& c, Prim& prim) {
  arity(c, 3, 3);
  prim.op = PrimOp::kRandom;
  prim.a = lvalue(ex, c, 0);
  prim.b = data(ex, c, 1);
  prim.c = data(ex, c, 2);
}

// p4c emits backward jumps for loops in actions; the executor bounds the primitives one action
// may run (P4_MAX_ACTION_STEPS), so a loop cannot spin the thread.
void jump(ExprCompiler& ex, const PrimCall& c, Prim& prim) {
  const bool cond = c.op == "_jump_if_zero";
  arity(c, cond ? 2 : 1, cond ? 2 : 1);
  const Json& tj = c.params[cond ? 1 : 0];
  if (!tj.is_object() || jf::find(tj, "type") == nullptr || !(*jf::find(tj, "type") == "hexstr"))
    refuse(LoadCode::kBadJump, c.where + ": jump target is not a constant");
  Value t = jf::hexstr(jf::member(tj, "value", c.where), c.where);
  std::uint64_t target = 0;
  if (!t.fits_u64(&target) || target > c.count)
    refuse(LoadCode::kBadJump, c.where + ": jump target " + t.to_hex() + " is outside the action's " + std::to_string(c.count) +
                                   " primitives");
  prim.op = cond ? PrimOp::kJumpIfZero : PrimOp::kJump;
  if (!cond) {
    prim.a = static_cast<int>(target);
    return;
  }
  prim.a = ex.expr(c.params[0], c.scope, c.where);
  if (ex.p.exprs[prim.a].kind == ExprKind::kBool) prim.a = ex.add_node(ExprOp::kB2D, ExprKind::kData, prim.a);
  if (ex.p.exprs[prim.a].kind != ExprKind::kData) refuse(LoadCode::kOperandKind, c.where + ": condition is not a value");
  prim.b = static_cast<int>(target);
}

void truncate(ExprCompiler& ex, const PrimCall& c, Prim& prim) {
  arity(c, 1, 1);
  prim.op = PrimOp::kTruncate;
  prim.a = data(ex, c, 0);
}

void assert_or_assume(ExprCompiler& ex, const PrimCall& c, Prim& prim) {
  arity(c, 1, 1);
  prim.op = PrimOp::kAssert;
  prim.a = ex.expr(c.params[0], c.scope, c.where);
  if (ex.p.exprs[prim.a].kind == ExprKind::kData) prim.a = ex.add_node(ExprOp::kD2B, ExprKind::kBool, prim.a);
  if (ex.p.exprs[prim.a].kind != ExprKind::kBool) refuse(LoadCode::kOperandKind, c.where + ": condition is not a boolean");
}

const std::map<std::string, Handler>& handlers() {
  static const std::map<std::string, Handler> table = {
      {"assign", assign},
      {"modify_field", assign},
      {"assign_VL", assign_vl},
      {"assign_header", assign_header},
      {"copy_header", assign_header},
      {"assign_union", assign_union},
      {"assign_header_stack", assign_stack},
      {"assign_union_stack", assign_stack},
      {"add_to_field", add_to_field},
      {"subtract_from_field", add_to_field},
      {"add", binary<PrimOp::kAdd>},
      {"subtract", binary<PrimOp::kSubtract>},
      {"bit_and", binary<PrimOp::kBitAnd>},
      {"bit_or", binary<PrimOp::kBitOr>},
      {"bit_xor", binary<PrimOp::kBitXor>},
      {"shift_left", binary<PrimOp::kShiftLeft>},
      {"shift_right", binary<PrimOp::kShiftRight>},
      {"add_header", add_remove_header},
      {"remove_header", add_remove_header},
      {"push", push_pop},
      {"pop", push_pop},
      {"mark_to_drop", drop},
      {"drop", drop},
      {"exit", exit_or_no_op},
      {"no_op", exit_or_no_op},
      {"log_msg", log_msg},
      {"count", count},
      {"execute_meter", execute_meter},
      {"register_read", register_read},
      {"register_write", register_write},
      {"clone_ingress_pkt_to_egress", clone},
      {"clone_egress_pkt_to_egress", clone},
      {"resubmit", resubmit},
      {"recirculate", resubmit},
      {"generate_digest", generate_digest},
      {"modify_field_with_hash_based_offset", hash_offset},
      {"modify_field_rng_uniform", random},
      {"_jump", jump},
      {"_jump_if_zero", jump},
      {"truncate", truncate},
      {"assert", assert_or_assume},
      {"assume", assert_or_assume},
  };
  return table;
}

// `_<type>_<method>(instance, args...)`: a method of an extern instance. False when the call
// does not name an extern instance.
bool extern_method(ExprCompiler& ex, const PrimCall& c, Prim& prim) {
  const Json& params = c.params;
  const std::string& op = c.op;
  if (op.size() <= 1 || op[0] != '_' || params.empty() || !params[0].is_object() || jf::find(params[0], "type") == nullptr ||
      !(*jf::find(params[0], "type") == "extern"))
    return false;
  const Json& iv = jf::member(params[0], "value", c.where);
  if (!iv.is_string()) refuse(LoadCode::kSchema, c.where + ": extern instance is not a name");
  auto it = ex.p.extern_by_name.find(iv.get<std::string>());
  if (it == ex.p.extern_by_name.end())
    refuse(LoadCode::kDanglingRef, c.where + " names extern instance '" + iv.get<std::string>() + "', which does not exist");
  const ExternInstance& inst = ex.p.externs[it->second];
  const ExternType* type = c.ctx.externs == nullptr ? nullptr : c.ctx.externs->find(inst.type);
  if (type == nullptr) refuse_feature("extern " + inst.type, c.where + " calls instance '" + inst.name + "'");
  std::string prefix = "_" + inst.type + "_";
  if (op.compare(0, prefix.size(), prefix) != 0)
    refuse(LoadCode::kOperandKind, c.where + ": instance '" + inst.name + "' is of type '" + inst.type + "'");
  std::string method = op.substr(prefix.size());
  for (const ExternMethod& em : type->methods) {
    if (em.name != method) continue;
    if (em.invoke == nullptr) refuse_feature("extern method " + inst.type + "." + method, c.where + " (registered without a body)");
    int nargs = static_cast<int>(params.size()) - 1;
    if (nargs < em.min_args || nargs > em.max_args)
      refuse(LoadCode::kSchema, c.where + " takes " + std::to_string(em.min_args) + "-" + std::to_string(em.max_args) +
                                    " arguments, not " + std::to_string(nargs));
    prim.op = PrimOp::kExtern;
    prim.a = it->second;
    prim.b = static_cast<int>(ex.p.extern_calls.size());
    ex.p.extern_calls.push_back(em.invoke);
    for (std::size_t k = 1; k < params.size(); ++k) prim.args.push_back(data(ex, c, k));
    return true;
  }
  refuse_feature("extern method " + inst.type + "." + method, c.where);
}

// `f(a, b)`: an extern function the target registered (simple_switch's --load-modules). False
// when the target has none of that name.
bool extern_function(ExprCompiler& ex, const PrimCall& c, Prim& prim) {
  const ExternFunction* fn = c.ctx.externs == nullptr ? nullptr : c.ctx.externs->find_function(c.op);
  if (fn == nullptr) return false;
  if (fn->invoke == nullptr) refuse_feature("extern function " + c.op, c.where + " (registered without a body)");
  int nargs = static_cast<int>(c.params.size());
  if (nargs < fn->min_args || nargs > fn->max_args)
    refuse(LoadCode::kSchema, c.where + " takes " + std::to_string(fn->min_args) + "-" + std::to_string(fn->max_args) +
                                  " arguments, not " + std::to_string(nargs));
  prim.op = PrimOp::kExternFunction;
  prim.a = static_cast<int>(ex.p.extern_functions.size());
  ex.p.extern_functions.push_back(fn);
  for (int k = 0; k < nargs; ++k) {
    const bool out = std::find(fn->out_args.begin(), fn->out_args.end(), k) != fn->out_args.end();
    prim.args.push_back(out ? lvalue(ex, c, static_cast<std::size_t>(k)) : data(ex, c, static_cast<std::size_t>(k)));
  }
  return true;
}

}  // namespace
}  // namespace primitive_handlers

Prim load_primitive(const PrimitiveContext& ctx, const Json& pj, const ExprScope& scope, const std::string& owner,
                    std::size_t index, std::size_t count) {
  const std::string op = jf::string(pj, "op", owner + " primitive " + std::to_string(index));
  const std::string where = owner + " primitive " + std::to_string(index) + " '" + op + "'";
  Prim prim;
  if (const Json* si = jf::find(pj, "source_info"))
    if (const Json* frag = jf::find(*si, "source_fragment"))
      if (frag->is_string()) prim.where = frag->get<std::string>().substr(0, 200);
  using namespace primitive_handlers;
  const PrimCall call{jf::array(pj, "parameters", P4_MAX_PRIMITIVES, where), scope, op, where, count, ctx};
  const auto& table = handlers();
  auto it = table.find(op);
  if (it != table.end()) {
    it->second(ctx.ex, call, prim);
    return prim;
  }
  if (extern_method(ctx.ex, call, prim) || extern_function(ctx.ex, call, prim)) return prim;
  jf::check_name(op, where);
  refuse_feature("primitive " + op, where + " (neither a primitive of simple_switch nor a registered extern function)");
}

}  // namespace dpusim::p4
