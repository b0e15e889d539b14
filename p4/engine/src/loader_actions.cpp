// Actions (JSON_format.md "actions"; their primitives: loader_primitives.cpp), extern
// instances, and the operands naming stateful objects and field lists.
#include <algorithm>
#include <set>

#include "dpusim/p4/limits.h"
#include "loader.h"

namespace dpusim::p4 {

void load_externs(const Json& doc, const ExternRegistry* externs, Program& p) {
  std::set<std::int64_t> ids;
  for (const Json& e : jf::array(doc, "extern_instances", P4_MAX_HEADERS, "program")) {
    ExternInstance inst;
    jf::Identity me = jf::identify(e, "extern instance", &ids, &p.extern_by_name, static_cast<int>(p.externs.size()));
    inst.name = me.name;
    inst.id = me.id;
    const std::string& where = me.where;
    inst.type = jf::string(e, "type", where);
    jf::check_name(inst.type, where + " type");
    // An instance of a type the target lacks loads (simple_switch instantiates nothing for
    // it); a call to it is refused by name, below.
    const ExternType* type = externs == nullptr ? nullptr : externs->find(inst.type);
    for (const Json& a : jf::array(e, "attribute_values", P4_MAX_ACTION_PARAMS, where)) {
      std::string an = jf::name(a, where + " attribute");
      std::string at = jf::string(a, "type", where + " attribute '" + an + "'");
      if (at == "hexstr")
        inst.int_attributes[an] = jf::hexstr(jf::member(a, "value", where), where + " attribute '" + an + "'");
      else if (at == "string" && jf::member(a, "value", where).is_string())
        inst.text_attributes[an] = jf::member(a, "value", where).get<std::string>();
      else
        refuse(LoadCode::kOperandKind, where + " attribute '" + an + "' of type '" + at + "' is not a hexstr or a string");
    }
    std::string error;
    if (type != nullptr && type->validate != nullptr && !type->validate(inst, &error)) refuse(LoadCode::kBadValue, where + ": " + error);
    p.externs.push_back(std::move(inst));
  }
}

std::set<std::string> load_actions(const Json& doc, const PrimitiveContext& ctx) {
  Program& p = ctx.ex.p;
  std::set<std::string> duplicate_names;
  std::set<std::int64_t> ids;
  for (const Json& a : jf::array(doc, "actions", P4_MAX_ACTIONS, "program")) {
    ActionInfo ai;
    jf::Identity me = jf::identify(a, "action", &ids, nullptr, 0);
    ai.name = me.name;
    ai.id = me.id;
    const std::string& where = me.where;
    // p4c gives two controls' actions of one name (NoAction, say) one name and two ids:
    // ids are unique, names only within a table (checked there).
    if (!p.action_by_name.emplace(ai.name, static_cast<int>(p.actions.size())).second)
      duplicate_names.insert(ai.name);
    std::set<std::string> pnames;
    for (const Json& rd : jf::array(a, "runtime_data", P4_MAX_ACTION_PARAMS, where)) {
      ActionParam prm;
      prm.name = jf::name(rd, where + " parameter");
      std::string pw = where + " parameter '" + prm.name + "'";
      if (!pnames.insert(prm.name).second) refuse(LoadCode::kDuplicate, pw + " is declared twice");
      const Json& bw = jf::member(rd, "bitwidth", pw);
      if (bw.is_number_float()) refuse(LoadCode::kBadWidth, pw + ": width " + bw.dump() + " is not an integer");
      std::int64_t w = jf::as_integer(bw, pw + " bitwidth", INT32_MIN, INT32_MAX);
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
    p.actions.push_back(std::move(ai));
  }
  // Primitives second, once every action's parameters are known.
  std::size_t idx = 0;
  for (const Json& a : jf::array(doc, "actions", P4_MAX_ACTIONS, "program")) {
    ActionInfo& ai = p.actions[idx++];
    ExprScope scope;
    scope.num_params = static_cast<int>(ai.params.size());
    scope.params = &ai.params;
    const Json& prims = jf::array(a, "primitives", P4_MAX_PRIMITIVES, "action '" + ai.name + "'");
    for (std::size_t i = 0; i < prims.size(); ++i)
      ai.prims.push_back(load_primitive(ctx, prims[i], scope, "action '" + ai.name + "'", i, prims.size()));
  }
  return duplicate_names;
}

int ExprCompiler::named_operand(const Json& v, const char* type, const std::map<std::string, int>& names, const std::string& where) {
  if (!v.is_object() || jf::find(v, "type") == nullptr || !(*jf::find(v, "type") == type))
    refuse(LoadCode::kOperandKind, where + ": operand is not a " + type);
  const Json& n = jf::member(v, "value", where);
  if (!n.is_string()) refuse(LoadCode::kSchema, where + ": " + type + " operand is not a name");
  auto it = names.find(n.get<std::string>());
  if (it == names.end()) refuse(LoadCode::kDanglingRef, where + " names " + type + " '" + n.get<std::string>().substr(0, 100) + "', which does not exist");
  return it->second;
}

int ExprCompiler::field_list_operand(const Json& v, const ExprScope& scope, const std::string& where, bool learn) {
  int node = expr_of_kind(v, ExprKind::kData, scope, where);
  // A constant id must name a list: bmv2 would dereference a missing one.
  if (p.exprs[node].op == ExprOp::kConst) {
    const Value& id = p.consts[p.exprs[node].a];
    std::uint64_t n = 0;
    const auto& lists = learn ? p.learn_lists : p.field_lists;
    bool found = false;
    for (const FieldListInfo& fl : lists) found = found || (id.fits_u64(&n) && n == static_cast<std::uint64_t>(fl.id));
    // Id 0 asks for nothing (simple_switch keeps the request in a register where 0 is none).
    if (!found && !(id.fits_u64(&n) && n == 0))
      refuse(LoadCode::kDanglingRef, where + " names " + (learn ? "learn list " : "field list ") + id.to_hex() + ", which does not exist");
  }
  return node;
}

}  // namespace dpusim::p4
