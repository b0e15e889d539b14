// Actions, primitives, table application and the pipeline walk.
#include <cstring>

#include "bits.h"
#include "dpusim/p4/limits.h"
#include "exec.h"
#include "expr_wide.h"

namespace dpusim::p4 {

void Executor::run_action(int action, const std::uint64_t* data) {
  const std::vector<Prim>& prims = p_.actions[action].prims;
  if (prims.empty()) return;
  const std::uint64_t* saved = st.action_data;
  st.action_data = data;
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
      if (p_.exprs[static_cast<std::size_t>(pr.b)].small_bits >= 0) {
        std::uint64_t v = eval_u64(pr.b);
        int f = lvalue_field(pr.a);
        if (f >= 0) store_u64(f, v);
        return;
      }
      Value v;
      const int bits = eval_bits(pr.b, v);
      int f = lvalue_field(pr.a);
      if (f >= 0) store_bits(f, v, bits);
      return;
    }
    case PrimOp::kAssignHeader:
    case PrimOp::kAssignUnion:
    case PrimOp::kAssignHeaderStack:
    case PrimOp::kAssignUnionStack:
      exec_copy_prim(pr);
      return;
    case PrimOp::kAddToField:
    case PrimOp::kSubtractFromField:
    case PrimOp::kAdd:
    case PrimOp::kSubtract:
    case PrimOp::kBitAnd:
    case PrimOp::kBitOr:
    case PrimOp::kBitXor:
    case PrimOp::kShiftLeft:
    case PrimOp::kShiftRight:
      exec_arith_prim(pr);
      return;
    case PrimOp::kAddHeader:
    case PrimOp::kRemoveHeader:
    case PrimOp::kPush:
    case PrimOp::kPop:
      exec_validity_prim(pr);
      return;
    case PrimOp::kMarkToDrop:
    case PrimOp::kDrop: {
      // Both also cancel a multicast (primitives.cpp): a = egress_spec, b = mcast_grp.
      store_field(pr.a, Value::of(P4_V1MODEL_DROP_PORT));
      if (pr.b >= 0) store_field(pr.b, Value::zero());
      return;
    }
    case PrimOp::kExit:
      st.exit = true;
      return;
    case PrimOp::kTruncate: {
      Value v;
      eval(pr.a, v);
      std::uint64_t n;
      if (!v.fits_u64(&n) || n > P4_MAX_FRAME_BYTES + P4_MAX_PHV_BYTES) n = P4_MAX_FRAME_BYTES + P4_MAX_PHV_BYTES;
      // Packet::truncate keeps the least length asked for.
      if (st.truncate_len < 0 || static_cast<std::int64_t>(n) < st.truncate_len) st.truncate_len = static_cast<std::int64_t>(n);
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
    case PrimOp::kExternFunction:
    case PrimOp::kCount:
    case PrimOp::kExecuteMeter:
    case PrimOp::kRegisterRead:
    case PrimOp::kRegisterWrite:
    case PrimOp::kCloneI2E:
    case PrimOp::kCloneE2E:
    case PrimOp::kResubmit:
    case PrimOp::kRecirculate:
    case PrimOp::kGenerateDigest:
    case PrimOp::kHashOffset:
    case PrimOp::kRandom:
    case PrimOp::kLogMsg:
      exec_extern_prim(pr);
      return;
    case PrimOp::kNoOp:
    case PrimOp::kJump:
    case PrimOp::kJumpIfZero:
      return;
  }
}


// Copies of headers, unions and their stacks (bmv2's assign_header, assign_union,
// assign_header_stack, assign_union_stack).
void Executor::exec_copy_prim(const Prim& pr) {
  switch (pr.op) {
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
    default:
      return;
  }
}

// The P4-14 arithmetic primitives (add_to_field, add, shift_left...): bmv2's Data operators
// on the evaluated operands (expr_wide.h), truncated to the destination field on the store.
void Executor::exec_arith_prim(const Prim& pr) {
  ExprOp op;
  switch (pr.op) {
    case PrimOp::kAddToField:
    case PrimOp::kAdd: op = ExprOp::kAdd; break;
    case PrimOp::kSubtractFromField:
    case PrimOp::kSubtract: op = ExprOp::kSub; break;
    case PrimOp::kBitAnd: op = ExprOp::kBitAnd; break;
    case PrimOp::kBitOr: op = ExprOp::kBitOr; break;
    case PrimOp::kBitXor: op = ExprOp::kBitXor; break;
    case PrimOp::kShiftLeft: op = ExprOp::kShl; break;
    case PrimOp::kShiftRight: op = ExprOp::kShr; break;
    default: return;
  }
  Value a, b, r;
  int ka, kb, f;
  if (pr.op == PrimOp::kAddToField || pr.op == PrimOp::kSubtractFromField) {
    f = lvalue_field(pr.a);
    if (f < 0) return;
    load_field(f, a);
    ka = kWhole;
    kb = eval_bits(pr.b, b);
  } else {
    ka = eval_bits(pr.b, a);
    kb = eval_bits(pr.c, b);
    f = lvalue_field(pr.a);
    if (f < 0) return;
  }
  const char* what = nullptr;
  const int bits = wide_binary(op, r, a, ka, b, kb, &what);
  if (what != nullptr) fault(what);
  else store_bits(f, r, bits);
}

// Primitives that change which headers are valid: add_header, remove_header, push and pop.
void Executor::exec_validity_prim(const Prim& pr) {
  switch (pr.op) {
    case PrimOp::kAddHeader: {
      int h = eval_header(pr.a);
      if (h < 0 || st.valid[h]) return;
      // bmv2 zeroes a header that becomes valid this way, and grows the packet length.
      const HeaderInfo& hi = p_.headers[h];
      std::memset(&st.phv[static_cast<std::size_t>(hi.limb)], 0, static_cast<std::size_t>(hi.nlimbs) * 8);
      touch(h);
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
    default:
      return;
  }
}

void Executor::build_key(const TableInfo& t) {
  std::uint8_t* key = st.key.data();
  // In offset order, so that a field's 8-byte store (the key has 8 bytes of slack) is
  // overwritten by the fields after it.
  for (const KeyStep& s : t.key_plan) {
    std::uint8_t* at = key + s.offset;
    if (s.limb >= 0) {
      const std::uint64_t* limbs = &st.phv[static_cast<std::size_t>(s.limb)];
      if (s.nbytes <= 8) store_be64(at, limbs[0] << (64 - 8 * s.nbytes));
      else limbs_to_be(limbs, s.nlimbs, s.nbytes, at);
    } else {
      *at = st.valid[static_cast<std::size_t>(s.header)];
    }
    // p4c's `field & constant`: the packet's key goes under the mask, as every entry did.
    if (s.masked) {
      const std::vector<std::uint8_t>& mask = t.keys[static_cast<std::size_t>(s.key)].mask;
      for (int i = 0; i < s.nbytes; ++i) at[i] &= mask[static_cast<std::size_t>(i)];
    }
  }
  // The key's last word is whole: zero past its end (into the slack), as a record's is.
  std::memset(key + t.key_bytes, 0, 8);
}

const std::uint64_t* Executor::lookup(const TableInfo& t, TableRuntime& rt) {
  build_key(t);
  switch (t.match_type) {
    case TableMatchType::kExact: return rt.exact.find_padded(st.key.data());
    case TableMatchType::kLpm: return rt.lpm.lookup(st.key.data(), st.key_scratch.data());
    case TableMatchType::kTernary: {
      int slot = rt.ternary->lookup(st.key.data(), st.key_scratch.data());
      return slot >= 0 ? rt.store.meta(slot) : nullptr;
    }
    case TableMatchType::kRange: {
      // bmv2 scans a range table's entries: the lowest priority number wins, then the
      // lowest handle (here: the highest priority, then the lowest handle).
      int best = -1;
      const std::size_t kb = static_cast<std::size_t>(t.key_bytes);
      for (std::size_t slot = 0; slot < rt.store.slots(); ++slot) {
        int s = static_cast<int>(slot);
        if (!rt.store.live(s)) continue;
        if (best >= 0 && (rt.store.rank(s) < rt.store.rank(best) ||
                          (rt.store.rank(s) == rt.store.rank(best) && rt.store.seq[slot] > rt.store.seq[static_cast<std::size_t>(best)])))
          continue;
        const std::uint8_t* k = rt.store.key(s);
        const std::uint8_t* m = rt.store.mask(s);
        const std::uint8_t* high = &rt.range_high[slot * kb];
        bool match = true;
        for (const KeyField& kf : t.keys) {
          const std::size_t off = static_cast<std::size_t>(kf.offset), n = static_cast<std::size_t>(kf.nbytes);
          if (kf.kind == MatchKind::kRange) {
            match = std::memcmp(&st.key[off], k + off, n) >= 0 && std::memcmp(&st.key[off], high + off, n) <= 0;
          } else {
            for (std::size_t i = 0; i < n && match; ++i) match = (st.key[off + i] & m[off + i]) == k[off + i];
          }
          if (!match) break;
        }
        if (match) best = s;
      }
      return best >= 0 ? rt.store.meta(best) : nullptr;
    }
  }
  return nullptr;
}

int Executor::run_indirect(const TableInfo& t, std::uint32_t ref) {
  const ActionProfileState& prof = rt_.profiles[static_cast<std::size_t>(t.profile)];
  std::uint32_t member = ref & kIndirectIdMask;
  if (ref & kIndirectGroupFlag) {
    auto g = prof.groups.find(member);
    // bmv2 runs nothing for an empty group (and logs it).
    if (g == prof.groups.end() || g->second.empty()) return -1;
    // The selector's hash, as bmv2's 32-bit hash_t, picks the n-th member in id order.
    const ActionProfileInfo& info = p_.action_profiles[static_cast<std::size_t>(t.profile)];
    auto h = static_cast<std::uint32_t>(calculation(info.selector));
    member = g->second[h % g->second.size()];
  }
  auto m = prof.members.find(member);
  if (m == prof.members.end()) return -1;
  run_action(m->second.action, m->second.data.data());
  return m->second.action;
}

int Executor::apply_table(int index) {
  const TableInfo& t = p_.tables[index];
  TableRuntime& rt = tables_[static_cast<std::size_t>(index)];
  // The entry's meta word (action, rank) followed by its runtime data, then its handle.
  const std::uint64_t* meta = rt.count > 0 ? lookup(t, rt) : nullptr;
  if (meta != nullptr) {
    if (t.with_counters || t.direct_meter >= 0) {
      auto handle = static_cast<std::size_t>(meta[1 + t.data_limbs]);
      if (t.with_counters) {
        rt.entry_counters[handle].bytes += st.ingress_length;
        rt.entry_counters[handle].packets += 1;
      }
      if (t.direct_meter >= 0) {
        // bmv2 executes a direct meter on a hit, before the action, into its result field.
        MeterArrayState& m = rt.entry_meters;
        std::uint32_t color = m.execute(handle, m.packets ? 1 : st.ingress_length, st.now_us);
        store_field(p_.meters[static_cast<std::size_t>(t.direct_meter)].result_field, Value::of(color));
      }
    }
    int action;
    if (t.impl == TableImpl::kSimple) {
      action = meta_action(*meta);
      run_action(action, meta + 1);
    } else {
      action = run_indirect(t, static_cast<std::uint32_t>(meta_action(*meta)));
      if (action < 0) return t.hit_miss ? t.next_hit : t.base_default_next;
    }
    return t.hit_miss ? t.next_hit : t.next_by_action[static_cast<std::size_t>(action)];
  }
  const DefaultEntry& d = rt.default_entry;
  if (d.present) {
    int action = d.action;
    if (t.impl == TableImpl::kSimple) {
      // Not copied (a copy would allocate): nothing changes a default while a frame runs.
      run_action(action, d.data.data());
    } else {
      std::uint32_t ref = d.group >= 0 ? static_cast<std::uint32_t>(d.group) | kIndirectGroupFlag : static_cast<std::uint32_t>(d.member);
      action = run_indirect(t, ref);
      if (action < 0) return t.hit_miss ? t.next_miss : t.base_default_next;
    }
    return t.hit_miss ? t.next_miss : t.next_by_action[static_cast<std::size_t>(action)];
  }
  // No default entry (legacy p4c-bm JSON, or an indirect table the control plane left
  // alone): no action runs on a miss.
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
