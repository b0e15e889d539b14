// Pipelines (JSON_format.md "pipelines"): their nodes' names, action profiles, conditionals,
// action data and the cycle check; each table is loaded by loader_tables.cpp.
#include <algorithm>
#include <set>

#include "dpusim/p4/limits.h"
#include "loader.h"

namespace dpusim::p4 {

std::vector<std::uint64_t> action_data(const Program& p, const Json& arr, int action, const std::string& where) {
  const ActionInfo& a = p.actions[action];
  jf::check_array(arr, P4_MAX_ACTION_PARAMS, where + " action_data");
  if (arr.size() != a.params.size())
    refuse(LoadCode::kSchema, where + " gives " + std::to_string(arr.size()) + " arguments to action '" + a.name +
                                  "', which takes " + std::to_string(a.params.size()));
  std::vector<std::uint64_t> data(static_cast<std::size_t>(a.data_limbs), 0);
  for (std::size_t i = 0; i < arr.size(); ++i) {
    const ActionParam& prm = a.params[i];
    Value v = jf::hexstr_fitting(arr[i], prm.width, where + " argument '" + prm.name + "'");
    for (int l = 0; l < prm.nlimbs; ++l) data[prm.limb + l] = v.w[l];
  }
  return data;
}

// Named apart from the other loader files' helpers, with which a unity batch compiles this.
namespace pipeline_loading {
namespace {

// A pipeline's action_profiles (their ids unique across pipelines: `ids`).
void load_action_profiles(const TableContext& ctx, const Json& pipeline, const std::string& where,
                          std::set<std::int64_t>* ids) {
  Program& p = ctx.ex.p;
  for (const Json& aj : jf::array(pipeline, "action_profiles", P4_MAX_TABLES, where)) {
    jf::Identity me = jf::identify(aj, "action profile", ids, &p.action_profile_by_name,
                           static_cast<int>(p.action_profiles.size()));
    ActionProfileInfo ap;
    ap.name = me.name;
    ap.id = me.id;
    ap.max_size = static_cast<std::uint32_t>(jf::integer(aj, "max_size", me.where, 0, INT32_MAX));
    if (const Json* sel = jf::find(aj, "selector"); sel != nullptr && !sel->is_null())
      ap.selector = ctx.calcs.add_calculation(me.name + " selector", -1, jf::string(*sel, "algo", me.where + " selector"),
                                    ctx.calcs.calc_inputs(jf::array(*sel, "input", P4_MAX_CALC_INPUTS, me.where + " selector", false),
                                                me.where + " selector", true),
                                    me.where + " selector");
    p.action_profiles.push_back(std::move(ap));
  }
}

}  // namespace
}  // namespace pipeline_loading

void load_pipelines(const Json& doc, const TableContext& ctx) {
  Program& p = ctx.ex.p;
  std::set<std::int64_t> action_profile_ids;
  const Json& pipes = jf::array(doc, "pipelines", 64, "program");
  const Json* pj[2] = {nullptr, nullptr};
  std::string unused;  // pipelines simple_switch does not run
  for (const Json& pl : pipes) {
    std::string n = jf::name(pl, "pipeline");
    if (n == "ingress") pj[0] = &pl;
    else if (n == "egress") pj[1] = &pl;
    else unused += (unused.empty() ? "; not run: '" : ", '") + n + "'";
  }
  // A missing pipeline is recorded and read as an empty one, so the rest of the program is
  // still checked; load_program then refuses the program (check_v1model).
  static const Json kEmpty = {{"init_table", nullptr}};
  for (int pi = 0; pi < 2; ++pi) {
    if (pj[pi] != nullptr) continue;
    pj[pi] = &kEmpty;
    p.not_v1model.emplace_back(LoadCode::kDanglingRef,
                                std::string("program has no pipeline named '") + (pi == 0 ? "ingress" : "egress") +
                                    "' (simple_switch runs that one" + unused + ")");
  }

  // Pass 1: every node name, in one namespace across pipelines (as in bmv2, where a next
  // table and a table update reach only the first of a name).
  PipelineNodes nodes;
  std::set<std::int64_t> table_ids, cond_ids;
  std::vector<const Json*> table_json, cond_json;
  for (int pi = 0; pi < 2; ++pi) {
    std::string pw = pi == 0 ? "pipeline 'ingress'" : "pipeline 'egress'";
    pipeline_loading::load_action_profiles(ctx, *pj[pi], pw, &action_profile_ids);
    if (!jf::array(*pj[pi], "action_calls", P4_MAX_TABLES, pw).empty()) refuse_feature("action_calls", pw);
    for (const Json& t : jf::array(*pj[pi], "tables", P4_MAX_TABLES, pw)) {
      TableInfo ti;
      jf::Identity me = jf::identify(t, "table", &table_ids, nullptr, 0);
      ti.name = me.name;
      ti.id = me.id;
      ti.pipeline = pi;
      if (p.tables.size() >= P4_MAX_TABLES) refuse(LoadCode::kArraySize, "program has more than " + std::to_string(P4_MAX_TABLES) + " tables");
      p.tables.push_back(std::move(ti));
      table_json.push_back(&t);
    }
    for (const Json& c : jf::array(*pj[pi], "conditionals", P4_MAX_CONDITIONALS, pw)) {
      ConditionalInfo ci;
      jf::Identity me = jf::identify(c, "conditional", &cond_ids, nullptr, 0);
      ci.name = me.name;
      ci.id = me.id;
      ci.pipeline = pi;
      if (p.conditionals.size() >= P4_MAX_CONDITIONALS)
        refuse(LoadCode::kArraySize, "program has more than " + std::to_string(P4_MAX_CONDITIONALS) + " conditionals");
      p.conditionals.push_back(std::move(ci));
      cond_json.push_back(&c);
    }
  }
  for (std::size_t i = 0; i < p.tables.size(); ++i) {
    if (!nodes.by_name.emplace(p.tables[i].name, std::make_pair(static_cast<int>(i), p.tables[i].pipeline)).second)
      refuse(LoadCode::kDuplicate, "duplicate table or conditional name '" + p.tables[i].name + "'");
    p.table_by_name[p.tables[i].name] = static_cast<int>(i);
  }
  for (std::size_t i = 0; i < p.conditionals.size(); ++i) {
    if (!nodes.by_name.emplace(p.conditionals[i].name,
                               std::make_pair(p.conditional_node(static_cast<int>(i)), p.conditionals[i].pipeline)).second)
      refuse(LoadCode::kDuplicate, "duplicate table or conditional name '" + p.conditionals[i].name + "'");
    p.conditional_by_name[p.conditionals[i].name] = static_cast<int>(i);
  }
  p.ingress.name = "ingress";
  p.ingress.init_node = nodes.ref(jf::find(*pj[0], "init_table"), 0, "pipeline 'ingress' init_table");
  p.egress.name = "egress";
  p.egress.init_node = nodes.ref(jf::find(*pj[1], "init_table"), 1, "pipeline 'egress' init_table");

  // Pass 2: tables (loader_tables.cpp).
  std::uint64_t budget = 0;
  for (std::size_t ti = 0; ti < p.tables.size(); ++ti) load_table(ctx, *table_json[ti], p.tables[ti], nodes, &budget);
  p.entries_budget_used = budget;

  // Pass 3: conditionals.
  for (std::size_t ci = 0; ci < p.conditionals.size(); ++ci) {
    const Json& c = *cond_json[ci];
    ConditionalInfo& cond = p.conditionals[ci];
    std::string where = "conditional '" + cond.name + "'";
    ExprScope scope;
    cond.expr = ctx.ex.expr_of_kind(jf::member(c, "expression", where), ExprKind::kBool, scope, where);
    cond.true_next = nodes.ref(jf::find(c, "true_next"), cond.pipeline, where + " true_next");
    cond.false_next = nodes.ref(jf::find(c, "false_next"), cond.pipeline, where + " false_next");
  }
}

void check_cycles(const Program& p) {
  // An iterative depth-first search with an explicit stack: a loop in the pipeline graph
  // would spin the thread running it on every frame, and a recursive search could itself
  // overflow on a deep graph. All four kinds of edge are followed.
  const int n = static_cast<int>(p.tables.size() + p.conditionals.size());
  auto successors = [&](int node) {
    std::vector<std::pair<int, std::string>> out;
    if (p.is_table_node(node)) {
      const TableInfo& t = p.tables[node];
      for (int a : t.actions) out.emplace_back(t.next_by_action[a], "action '" + p.actions[a].name + "' next table");
      out.emplace_back(t.base_default_next, "base_default_next");
      if (t.hit_miss) {
        out.emplace_back(t.next_hit, "__HIT__ next table");
        out.emplace_back(t.next_miss, "__MISS__ next table");
      }
    } else {
      const ConditionalInfo& c = p.conditionals[node - p.tables.size()];
      out.emplace_back(c.true_next, "true_next");
      out.emplace_back(c.false_next, "false_next");
    }
    return out;
  };
  auto node_name = [&](int node) {
    return p.is_table_node(node) ? "table '" + p.tables[node].name + "'"
                                  : "conditional '" + p.conditionals[node - p.tables.size()].name + "'";
  };
  std::vector<std::uint8_t> state(static_cast<std::size_t>(n), 0);  // 0 new, 1 on stack, 2 done
  // Roots: the pipelines' first nodes, then any node nothing reaches, so that a reported
  // cycle reads in the order a frame would walk it.
  std::vector<int> roots;
  for (int init : {p.ingress.init_node, p.egress.init_node})
    if (init >= 0) roots.push_back(init);
  for (int i = 0; i < n; ++i) roots.push_back(i);
  struct Frame {
    int node;
    std::size_t next;  // successor to visit next
    std::vector<std::pair<int, std::string>> succ;
  };
  for (int root : roots) {
    if (state[static_cast<std::size_t>(root)] != 0) continue;
    std::vector<Frame> stack;
    stack.push_back({root, 0, successors(root)});
    state[static_cast<std::size_t>(root)] = 1;
    while (!stack.empty()) {
      Frame& top = stack.back();
      if (top.next == top.succ.size()) {
        state[static_cast<std::size_t>(top.node)] = 2;
        stack.pop_back();
        continue;
      }
      auto [next, edge] = top.succ[top.next++];
      if (next < 0) continue;
      if (state[static_cast<std::size_t>(next)] == 1) {
        // Name the whole loop: each node on it and the edge it leaves by.
        std::string loop;
        std::size_t from = 0;
        while (stack[from].node != next) ++from;
        for (std::size_t k = from; k < stack.size(); ++k)
          loop += node_name(stack[k].node) + " " + stack[k].succ[stack[k].next - 1].second + " -> ";
        refuse(LoadCode::kPipelineCycle, "pipeline graph has a cycle: " + loop + node_name(next));
      }
      if (state[static_cast<std::size_t>(next)] == 0) {
        state[static_cast<std::size_t>(next)] = 1;
        stack.push_back({next, 0, successors(next)});
      }
    }
  }
}

}  // namespace dpusim::p4
