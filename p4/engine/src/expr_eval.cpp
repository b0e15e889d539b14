// Expression evaluation with bmv2's semantics: values unbounded as far as 576 bits carry
// them (expr_wide.h), truncated only when written to a field. A fault (division by zero, a
// stack index out of range, a comparison of a value past the carried bits) marks the frame,
// which the policy layer drops and counts: bmv2 would crash or throw on most of these, and
// a device must not.
#include <algorithm>
#include <cstring>

#include "bits.h"
#include "exec.h"
#include "expr_wide.h"

namespace dpusim::p4 {

void Executor::fault(const char* what) {
  if (st.fault == nullptr) {
    st.fault = what;
    st.fault_where = current_prim_ != nullptr ? current_prim_->where.c_str() : "";
  }
}

void Executor::load_field(int field, Value& out) const {
  const FieldInfo& f = p_.fields[field];
  const std::uint64_t* src = &st.phv[static_cast<std::size_t>(f.limb)];
  int i = 0;
  for (; i < f.nlimbs; ++i) out.w[i] = src[i];
  for (; i < kValueLimbs; ++i) out.w[i] = 0;
  // A signed field holds its two's complement bits; it reads as the signed number.
  if (f.is_signed && out.bit(f.width - 1)) {
    Value high = Value::ones(kValueBits);
    value_shl(high, high, static_cast<unsigned>(f.width));
    value_or(out, out, high);
  }
}

void Executor::store_field(int field, const Value& v) {
  const FieldInfo& f = p_.fields[field];
  std::uint64_t* dst = &st.phv[static_cast<std::size_t>(f.limb)];
  const Value* src = &v;
  Value clamped;
  if (f.saturating) {
    // bmv2's saturating fields clamp to their range rather than wrap.
    if (f.is_signed) value_sat_cast(clamped, v, f.width);
    else value_usat_cast(clamped, v, f.width);
    src = &clamped;
  }
  for (int i = 0; i < f.nlimbs; ++i) dst[i] = src->w[i];
  int rem = f.width % 64;
  if (rem != 0) dst[f.nlimbs - 1] &= (1ull << rem) - 1;
  st.wire_src[static_cast<std::size_t>(f.header)] = nullptr;
  // The device policy needs to know whether the program chose a port at all.
  if (field == p_.f_egress_spec) st.egress_spec_written = true;
}

void Executor::store_bits(int field, const Value& v, int bits) {
  const FieldInfo& f = p_.fields[static_cast<std::size_t>(field)];
  // A saturating field clamps, which needs the whole value; any other keeps its width's bits.
  if (bits != kWhole && (bits < f.width || f.saturating)) {
    fault(kNotWhole);
    return;
  }
  store_field(field, v);
}

std::uint64_t Executor::eval_u64(int node) {
  // Only nodes whose small_bits the loader bounded: never negative, below 2^63, so 64-bit
  // arithmetic gives what the wide values would.
  const ExprNode& n = p_.exprs[static_cast<std::size_t>(node)];
  switch (n.op) {
    case ExprOp::kField: return field_u64(n.a);
    case ExprOp::kConst: return p_.consts[static_cast<std::size_t>(n.a)].w[0];
    case ExprOp::kLocal: return st.action_data[n.b];
    case ExprOp::kValidField: return st.valid[static_cast<std::size_t>(n.a)];
    case ExprOp::kB2D: return eval_bool(n.a) ? 1 : 0;
    case ExprOp::kAdd: return eval_u64(n.a) + eval_u64(n.b);
    case ExprOp::kMul: return eval_u64(n.a) * eval_u64(n.b);
    case ExprOp::kBitAnd: return eval_u64(n.a) & eval_u64(n.b);
    case ExprOp::kBitOr: return eval_u64(n.a) | eval_u64(n.b);
    case ExprOp::kBitXor: return eval_u64(n.a) ^ eval_u64(n.b);
    case ExprOp::kShr: {
      std::uint64_t v = eval_u64(n.a), k = eval_u64(n.b);
      return k >= 64 ? 0 : v >> k;  // v is never negative: any longer shift gives 0
    }
    case ExprOp::kTernary: return eval_bool(n.c) ? eval_u64(n.a) : eval_u64(n.b);
    default: {
      Value v;
      eval(node, v);
      return v.w[0];
    }
  }
}

void Executor::eval(int node, Value& out) {
  if (eval_bits(node, out) != kWhole) fault(kNotWhole);
}

int Executor::eval_bits(int node, Value& out) {
  const ExprNode& n = p_.exprs[node];
  switch (n.op) {
    case ExprOp::kField: load_field(n.a, out); return kWhole;
    case ExprOp::kValidField: out = Value::of(st.valid[n.a]); return kWhole;
    case ExprOp::kConst: out = p_.consts[n.a]; return kWhole;
    case ExprOp::kLocal: {
      out.clear();
      for (int i = 0; i < n.c; ++i) out.w[i] = st.action_data[n.b + i];
      return kWhole;
    }
    case ExprOp::kTernary: return eval_bool(n.c) ? eval_bits(n.a, out) : eval_bits(n.b, out);
    case ExprOp::kBitNeg: {
      Value a;
      int bits = eval_bits(n.a, a);
      value_not(out, a);  // -a-1: whole when a is
      return bits;
    }
    case ExprOp::kTwoCompMod: {
      // The low `width` bits read as a signed number: nothing above them matters.
      Value a;
      if (eval_bits(n.a, a) < n.b) {
        out.clear();
        fault(kNotWhole);
        return kWhole;
      }
      value_two_comp_mod(out, a, n.b);
      return kWhole;
    }
    case ExprOp::kStackLastField: {
      std::uint32_t next = st.stack_next[n.a];
      out.clear();
      if (next == 0) {
        fault("read of the last element of an empty header stack");
        return kWhole;
      }
      int h = p_.stacks[n.a].headers[next - 1];
      load_field(p_.headers[h].first_field + n.b, out);
      return kWhole;
    }
    case ExprOp::kUnionStackLastField: {
      std::uint32_t next = st.union_stack_next[n.a];
      out.clear();
      if (next == 0) {
        fault("read of the last element of an empty header union stack");
        return kWhole;
      }
      int h = p_.unions[p_.union_stacks[n.a].unions[next - 1]].headers[n.b];
      load_field(p_.headers[h].first_field + n.c, out);
      return kWhole;
    }
    case ExprOp::kLookahead: {
      std::size_t start = st.cursor * 8 + static_cast<std::size_t>(n.a);
      out.clear();
      if (start + static_cast<std::size_t>(n.b) > st.pkt_len * 8) {
        st.parse_error_pending = true;  // PacketTooShort, as bmv2's lookahead raises
        return kWhole;
      }
      wire_to_limbs(st.pkt, start, n.b, out.w);
      return kWhole;
    }
    case ExprOp::kAccessField: {
      int h = eval_header(n.a);
      if (h < 0) out.clear();
      else load_field(p_.headers[h].first_field + n.b, out);
      return kWhole;
    }
    case ExprOp::kB2D: out = Value::of(eval_bool(n.a) ? 1 : 0); return kWhole;
    case ExprOp::kSizeStack: out = Value::of(st.stack_next[p_.exprs[n.a].a]); return kWhole;
    case ExprOp::kLastStackIndex:
      // bmv2 computes count - 1, which is -1 for an empty stack.
      value_sub(out, Value::of(st.stack_next[p_.exprs[n.a].a]), Value::of(1));
      return kWhole;
    case ExprOp::kUsatCast:
    case ExprOp::kSatCast: {
      // A clamp compares the whole value with the range.
      Value a;
      eval(n.a, a);
      if (n.op == ExprOp::kUsatCast) value_usat_cast(out, a, n.b);
      else value_sat_cast(out, a, n.b);
      return kWhole;
    }
    default: break;
  }
  // Binary data operators.
  Value a, b;
  const int ka = eval_bits(n.a, a);
  const int kb = eval_bits(n.b, b);
  const char* what = nullptr;
  const int bits = wide_binary(n.op, out, a, ka, b, kb, &what);
  if (what != nullptr) {
    out.clear();
    fault(what);
    return kWhole;
  }
  return bits;
}

bool Executor::headers_equal(int a, int b) const {
  // bmv2's Header::cmp: both valid, and every field equal.
  if (!st.valid[a] || !st.valid[b]) return false;
  if (st.vl_bits[static_cast<std::size_t>(a)] != st.vl_bits[static_cast<std::size_t>(b)]) return false;
  const HeaderInfo& ha = p_.headers[a];
  const HeaderInfo& hb = p_.headers[b];
  return std::memcmp(&st.phv[static_cast<std::size_t>(ha.limb)], &st.phv[static_cast<std::size_t>(hb.limb)],
                     static_cast<std::size_t>(ha.nlimbs) * 8) == 0;
}

namespace {

// Whether the low `bits` bits (at most kValueBits) of a and b differ.
bool differs_below(const Value& a, const Value& b, int bits) {
  for (int i = 0; i < kValueLimbs && bits > 0; ++i, bits -= 64) {
    const std::uint64_t x = a.w[i] ^ b.w[i];
    if ((bits >= 64 ? x : x & ((1ull << bits) - 1)) != 0) return true;
  }
  return false;
}

}  // namespace

bool Executor::eval_bool(int node) {
  const ExprNode& n = p_.exprs[node];
  switch (n.op) {
    case ExprOp::kBoolConst: return n.a != 0;
    case ExprOp::kAnd: return eval_bool(n.a) && eval_bool(n.b);
    case ExprOp::kOr: return eval_bool(n.a) || eval_bool(n.b);
    case ExprOp::kNot: return !eval_bool(n.a);
    case ExprOp::kEqBool: return eval_bool(n.a) == eval_bool(n.b);
    case ExprOp::kNeBool: return eval_bool(n.a) != eval_bool(n.b);
    case ExprOp::kValid: {
      int h = eval_header(n.a);
      return h >= 0 && st.valid[h] != 0;
    }
    case ExprOp::kValidUnion: {
      int u = eval_union(n.a);
      if (u < 0) return false;
      for (int h : p_.unions[u].headers)
        if (st.valid[h]) return true;
      return false;
    }
    case ExprOp::kEqHeader:
    case ExprOp::kNeHeader: {
      int a = eval_header(n.a), b = eval_header(n.b);
      if (a < 0 || b < 0) return false;
      bool eq = headers_equal(a, b);
      return n.op == ExprOp::kEqHeader ? eq : !eq;
    }
    case ExprOp::kEqUnion:
    case ExprOp::kNeUnion: {
      int a = eval_union(n.a), b = eval_union(n.b);
      if (a < 0 || b < 0) return false;
      // Equal when the same member is valid in both and that member is equal.
      bool eq = false;
      const auto& ha = p_.unions[a].headers;
      const auto& hb = p_.unions[b].headers;
      for (std::size_t i = 0; i < ha.size(); ++i)
        if (st.valid[ha[i]]) eq = headers_equal(ha[i], hb[i]);
      return n.op == ExprOp::kEqUnion ? eq : !eq;
    }
    case ExprOp::kD2B: {
      // Non-zero known bits settle it without the rest.
      Value v;
      const int bits = eval_bits(n.a, v);
      if (bits != kWhole && !differs_below(v, Value::zero(), bits)) fault(kNotWhole);
      return !v.is_zero();
    }
    case ExprOp::kTernary: return eval_bool(n.c) ? eval_bool(n.a) : eval_bool(n.b);
    default: break;
  }
  if (p_.exprs[static_cast<std::size_t>(n.a)].small_bits >= 0 && p_.exprs[static_cast<std::size_t>(n.b)].small_bits >= 0) {
    const std::uint64_t x = eval_u64(n.a), y = eval_u64(n.b);
    switch (n.op) {
      case ExprOp::kEq: return x == y;
      case ExprOp::kNe: return x != y;
      case ExprOp::kLt: return x < y;
      case ExprOp::kLe: return x <= y;
      case ExprOp::kGt: return x > y;
      case ExprOp::kGe: return x >= y;
      default: break;
    }
  }
  Value a, b;
  if (n.op == ExprOp::kEq || n.op == ExprOp::kNe) {
    // Known low bits that differ settle an equality without the rest.
    const int ka = eval_bits(n.a, a);
    const int bits = std::min(ka, eval_bits(n.b, b));
    const bool eq = bits == kWhole ? a == b : !differs_below(a, b, bits);
    if (bits != kWhole && eq) fault(kNotWhole);
    return n.op == ExprOp::kEq ? eq : !eq;
  }
  eval(n.a, a);
  eval(n.b, b);
  switch (n.op) {
    case ExprOp::kLt: return compare(a, b) < 0;
    case ExprOp::kLe: return compare(a, b) <= 0;
    case ExprOp::kGt: return compare(a, b) > 0;
    case ExprOp::kGe: return compare(a, b) >= 0;
    default:
      fault("internal: a boolean node of the wrong kind");
      return false;
  }
}

int Executor::eval_header(int node) {
  const ExprNode& n = p_.exprs[node];
  switch (n.op) {
    case ExprOp::kHeader: return n.a;
    case ExprOp::kDerefStack: {
      const StackInfo& s = p_.stacks[p_.exprs[n.a].a];
      Value i;
      eval(n.b, i);
      std::uint64_t idx;
      if (!i.fits_u64(&idx) || idx >= s.headers.size()) {
        fault("a header stack index out of range");
        return -1;
      }
      return s.headers[idx];
    }
    case ExprOp::kAccessUnionHeader: {
      int u = eval_union(n.a);
      return u < 0 ? -1 : p_.unions[u].headers[n.b];
    }
    case ExprOp::kTernary: return eval_bool(n.c) ? eval_header(n.a) : eval_header(n.b);
    default:
      fault("internal: a header node of the wrong kind");
      return -1;
  }
}

int Executor::eval_union(int node) {
  const ExprNode& n = p_.exprs[node];
  if (n.op == ExprOp::kUnion) return n.a;
  if (n.op == ExprOp::kDerefUnionStack) {
    const UnionStackInfo& s = p_.union_stacks[p_.exprs[n.a].a];
    Value i;
    eval(n.b, i);
    std::uint64_t idx;
    if (!i.fits_u64(&idx) || idx >= s.unions.size()) {
      fault("a header union stack index out of range");
      return -1;
    }
    return s.unions[idx];
  }
  fault("internal: a union node of the wrong kind");
  return -1;
}

int Executor::lvalue_field(int node) {
  const ExprNode& n = p_.exprs[node];
  switch (n.op) {
    case ExprOp::kField: return n.a;
    case ExprOp::kAccessField: {
      int h = eval_header(n.a);
      return h < 0 ? -1 : p_.headers[h].first_field + n.b;
    }
    case ExprOp::kStackLastField: {
      std::uint32_t next = st.stack_next[n.a];
      if (next == 0) {
        fault("write to the last element of an empty header stack");
        return -1;
      }
      return p_.headers[p_.stacks[n.a].headers[next - 1]].first_field + n.b;
    }
    default:
      fault("internal: an lvalue node of the wrong kind");
      return -1;
  }
}

}  // namespace dpusim::p4
