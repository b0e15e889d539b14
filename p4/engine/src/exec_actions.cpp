// Actions, primitives, table application and the pipeline walk.
#include <cstring>

#include "bits.h"
#include "dpusim/p4/limits.h"
#include "exec.h"

namespace dpusim::p4 {

void Executor::run_action(int action, const std::uint64_t* data) {
  const std::uint64_t* saved = st.action_data;
  st.action_data = data;
  const std::vector<Prim>& prims = p_.actions[action].prims;
  std::size_t i = 0;
  const std::size_t n = prims.size();
  int steps = 0;
  while (i < n) {
    const Prim& pr = prims[i];
    if (++steps > P4_MAX_ACTION_STEPS) {
      fault("an action ran more than 65536 primitives (a loop that does not end)");
      break;
    }
    if (pr.op == PrimOp::kJump) {
      i = static_cast<std::size_t>(pr.a);
      continue;
    }
    if (pr.op == PrimOp::kJumpIfZero) {
      current_prim_ = &pr;
      Value c;
      eval(pr.a, c);
      if (c.is_zero()) {
        i = static_cast<std::size_t>(pr.b);
        continue;
      }
    } else {
      exec_prim(pr);
    }
    if (st.fault != nullptr || st.exit || st.stop) break;
    ++i;
  }
  st.action_data = saved;
}

void Executor::exec_prim(const Prim& pr) {
  current_prim_ = &pr;
  switch (pr.op) {
    case PrimOp::kAssign: {
      Value v;
      eval(pr.b, v);
      int f = lvalue_field(pr.a);
      if (f >= 0) store_field(f, v);
      return;
    }
    case PrimOp::kAssignHeader: {
      int d = eval_header(pr.a), s = eval_header(pr.b);
      if (d >= 0 && s >= 0) copy_header(d, s);
      return;
    }
    case PrimOp::kAssignUnion: {
      int d = eval_union(pr.a), s = eval_union(pr.b);
      if (d < 0 || s < 0) return;
      for (std::size_t i = 0; i < p_.unions[d].headers.size(); ++i) copy_header(p_.unions[d].headers[i], p_.unions[s].headers[i]);
      return;
    }
    case PrimOp::kAssignHeaderStack: {
      st.stack_next[pr.a] = st.stack_next[pr.b];
      for (std::size_t i = 0; i < p_.stacks[pr.a].headers.size(); ++i) copy_header(p_.stacks[pr.a].headers[i], p_.stacks[pr.b].headers[i]);
      return;
    }
    case PrimOp::kAssignUnionStack: {
      st.union_stack_next[pr.a] = st.union_stack_next[pr.b];
      const auto& du = p_.union_stacks[pr.a].unions;
      const auto& su = p_.union_stacks[pr.b].unions;
      for (std::size_t i = 0; i < du.size(); ++i)
        for (std::size_t m = 0; m < p_.unions[du[i]].headers.size(); ++m)
          copy_header(p_.unions[du[i]].headers[m], p_.unions[su[i]].headers[m]);
      return;
    }
    case PrimOp::kAddToField:
    case PrimOp::kSubtractFromField: {
      int f = lvalue_field(pr.a);
      if (f < 0) return;
      Value cur, v;
      load_field(f, cur);
      eval(pr.b, v);
      if (pr.op == PrimOp::kAddToField) value_add(cur, cur, v);
      else value_sub(cur, cur, v);
      store_field(f, cur);
      return;
    }
    case PrimOp::kAdd:
    case PrimOp::kSubtract:
    case PrimOp::kBitAnd:
    case PrimOp::kBitOr:
    case PrimOp::kBitXor:
    case PrimOp::kShiftLeft:
    case PrimOp::kShiftRight: {
      Value a, b, r;
      eval(pr.b, a);
      eval(pr.c, b);
      switch (pr.op) {
        case PrimOp::kAdd: value_add(r, a, b); break;
        case PrimOp::kSubtract: value_sub(r, a, b); break;
        case PrimOp::kBitAnd: value_and(r, a, b); break;
        case PrimOp::kBitOr: value_or(r, a, b); break;
        case PrimOp::kBitXor: value_xor(r, a, b); break;
        default: {
          std::uint64_t n;
          if (!b.fits_u64(&n) || n >= static_cast<std::uint64_t>(kValueBits)) {
            fault("a shift past the carried width of 576 bits");
            return;
          }
          if (pr.op == PrimOp::kShiftLeft) value_shl(r, a, static_cast<unsigned>(n));
          else value_shr(r, a, static_cast<unsigned>(n));
        }
      }
      int f = lvalue_field(pr.a);
      if (f >= 0) store_field(f, r);
      return;
    }
    case PrimOp::kAddHeader: {
      int h = eval_header(pr.a);
      if (h < 0 || st.valid[h]) return;
      // bmv2 zeroes a header that becomes valid this way, and grows the packet length.
      const HeaderInfo& hi = p_.headers[h];
      std::memset(&st.phv[static_cast<std::size_t>(hi.limb)], 0, static_cast<std::size_t>(hi.nlimbs) * 8);
      set_valid(h);
      st.length_reg += static_cast<std::int64_t>(header_bytes(h));
      return;
    }
    case PrimOp::kRemoveHeader: {
      int h = eval_header(pr.a);
      if (h < 0 || !st.valid[h]) return;
      set_invalid(h);
      st.length_reg -= static_cast<std::int64_t>(header_bytes(h));
      return;
    }
    case PrimOp::kPush:
    case PrimOp::kPop: {
      Value c;
      eval(pr.b, c);
      std::uint64_t n;
      if (!c.fits_u64(&n)) n = ~0ull;
      if (pr.op == PrimOp::kPush) push_stack(pr.a, n);
      else pop_stack(pr.a, n);
      return;
    }
    case PrimOp::kMarkToDrop:
      store_field(p_.f_egress_spec, Value::of(P4_V1MODEL_DROP_PORT));
      return;
    case PrimOp::kExit:
      st.exit = true;
      return;
    case PrimOp::kTruncate: {
      Value v;
      eval(pr.a, v);
      std::uint64_t n;
      if (!v.fits_u64(&n) || n > P4_MAX_FRAME_BYTES + P4_MAX_PHV_BYTES) n = P4_MAX_FRAME_BYTES + P4_MAX_PHV_BYTES;
      st.truncate_len = static_cast<std::int64_t>(n);
      return;
    }
    case PrimOp::kAssert:
      if (!eval_bool(pr.a)) fault("an assert or assume failed");
      return;
    case PrimOp::kExtern: {
      const ExternInstance& inst = p_.externs[static_cast<std::size_t>(pr.a)];
      for (std::size_t k = 0; k < pr.args.size(); ++k) eval(pr.args[k], st.extern_args[k]);
      ExternCall call;
      call.instance = &inst;
      call.args = st.extern_args.data();
      call.nargs = static_cast<int>(pr.args.size());
      call.context = st.extern_context;
      ExternResult r = p_.extern_calls[static_cast<std::size_t>(pr.b)](call);
      if (r == ExternResult::kStopPipeline) st.stop = true;
      if (r == ExternResult::kFault) fault("an extern method failed");
      return;
    }
    case PrimOp::kAssignVL: {
      // bmv2's assign_VL: the value and the current width.
      const FieldInfo& d = p_.fields[static_cast<std::size_t>(pr.a)];
      const FieldInfo& s = p_.fields[static_cast<std::size_t>(pr.b)];
      std::uint16_t bits = st.vl_bits[static_cast<std::size_t>(s.header)];
      if (bits > d.width) {
        fault("a varbit assignment wider than its destination");
        return;
      }
      Value v;
      load_field(pr.b, v);
      store_field(pr.a, v);
      st.vl_bits[static_cast<std::size_t>(d.header)] = bits;
      return;
    }
    case PrimOp::kNoOp:
    case PrimOp::kJump:
    case PrimOp::kJumpIfZero:
      return;
  }
}

void Executor::build_key(const TableInfo& t) {
  std::uint8_t* key = st.key.data();
  for (const KeyField& kf : t.keys) {
    std::uint8_t* at = key + kf.offset;
    if (kf.field >= 0) {
      const FieldInfo& f = p_.fields[kf.field];
      limbs_to_be(&st.phv[static_cast<std::size_t>(f.limb)], f.nlimbs, kf.nbytes, at);
    } else {
      *at = st.valid[kf.header];
    }
    // p4c's `field & constant`: the packet's key goes under the mask, as every entry did.
    if (!kf.mask.empty())
      for (int i = 0; i < kf.nbytes; ++i) at[i] &= kf.mask[static_cast<std::size_t>(i)];
  }
}

int Executor::apply_table(int index) {
  const TableInfo& t = p_.tables[index];
  TableRuntime& rt = tables_[static_cast<std::size_t>(index)];
  // The entry's meta word (action, rank) followed by its runtime data.
  const std::uint64_t* meta = nullptr;
  if (rt.count > 0) {
    build_key(t);
    switch (t.match_type) {
      case TableMatchType::kExact: meta = rt.exact.find(st.key.data(), 0); break;
      case TableMatchType::kLpm: meta = rt.lpm.lookup(st.key.data(), st.key_scratch.data()); break;
      case TableMatchType::kTernary: {
        int slot = rt.ternary->lookup(st.key.data(), st.key_scratch.data());
        if (slot >= 0) meta = rt.store.meta(slot);
        break;
      }
      case TableMatchType::kRange: break;
    }
  }
  if (meta != nullptr) {
    int action = meta_action(*meta);
    run_action(action, meta + 1);
    return t.hit_miss ? t.next_hit : t.next_by_action[static_cast<std::size_t>(action)];
  }
  if (rt.default_entry.present) {
    // Not copied (a copy would allocate): nothing changes a default while a frame runs.
    run_action(rt.default_entry.action, rt.default_entry.data.data());
    return t.hit_miss ? t.next_miss : t.next_by_action[static_cast<std::size_t>(rt.default_entry.action)];
  }
  // No default entry (legacy p4c-bm JSON): no action runs on a miss.
  return t.hit_miss ? t.next_miss : t.base_default_next;
}

void Executor::run_pipeline(const PipelineInfo& pipeline) {
  st.exit = false;
  int node = pipeline.init_node;
  // The graph is acyclic (checked at load), so the walk ends.
  while (node >= 0 && !st.exit && !st.stop && st.fault == nullptr) {
    if (p_.is_table_node(node)) {
      node = apply_table(node);
    } else {
      const ConditionalInfo& c = p_.conditionals[static_cast<std::size_t>(node) - p_.tables.size()];
      current_prim_ = nullptr;
      node = eval_bool(c.expr) ? c.true_next : c.false_next;
    }
  }
}

}  // namespace dpusim::p4
