// simple_switch's stateful and packet-redirecting primitives (targets/simple_switch/
// primitives.cpp): counters, meters and registers, whose out-of-range index does nothing
// (bmv2 built with its checks logs and skips the update); clone, resubmit, recirculate and
// generate_digest, which only note the request in the packet's registers for the end of
// the pipeline (simple_switch.cpp acts on them); the hash-based offset, random and
// log_msg; and calls to registered extern functions.
#include "exec.h"

namespace dpusim::p4 {

bool Executor::index_of(int node, std::uint32_t size, std::uint64_t* index) {
  Value v;
  eval(node, v);
  return v.fits_u64(index) && *index < size;
}

namespace {

std::uint64_t low_u64(const Value& v) { return v.w[0]; }

// bmv2 keeps a request's id in 16 bits of a packet register.
std::uint32_t low16(const Value& v) { return static_cast<std::uint32_t>(v.w[0] & 0xffffu); }

// A uniformly drawn value in [lo, hi] from a fully specified generator (mt19937_64), by
// rejection, so that a seed gives the same numbers on every platform.
std::uint64_t uniform(std::mt19937_64& rng, std::uint64_t lo, std::uint64_t hi) {
  std::uint64_t span = hi - lo;
  if (span == ~0ull) return rng();
  std::uint64_t range = span + 1;
  std::uint64_t limit = ~0ull - (~0ull % range);
  std::uint64_t x;
  do x = rng();
  while (x >= limit);
  return lo + x % range;
}

}  // namespace

void Executor::log_message(const Prim& pr) {
  if (st.logs == nullptr) return;
  const std::string& fmt = p_.log_formats[static_cast<std::size_t>(pr.a)];
  std::string out;
  std::size_t arg = 0;
  for (std::size_t i = 0; i < fmt.size(); ++i) {
    char c = fmt[i];
    if (c == '\\' && i + 1 < fmt.size() && (fmt[i + 1] == '{' || fmt[i + 1] == '}')) {
      out.push_back(fmt[++i]);
      continue;
    }
    if (c == '{') {
      std::size_t close = fmt.find('}', i);
      if (close != std::string::npos && arg < pr.args.size()) {
        Value v;
        eval(pr.args[arg++], v);
        out += v.to_decimal();  // bmv2 prints values in decimal
        i = close;
        continue;
      }
    }
    out.push_back(c);
  }
  st.logs->push_back(std::move(out));
}

void Executor::exec_extern_prim(const Prim& pr) {
  switch (pr.op) {
    case PrimOp::kCount: {
      std::vector<CounterCell>& cells = rt_.counters[static_cast<std::size_t>(pr.a)];
      std::uint64_t i;
      if (!index_of(pr.b, static_cast<std::uint32_t>(cells.size()), &i)) return;
      cells[i].bytes += st.ingress_length;
      cells[i].packets += 1;
      return;
    }
    case PrimOp::kExecuteMeter: {
      MeterArrayState& m = rt_.meters[static_cast<std::size_t>(pr.a)];
      std::uint64_t i;
      if (!index_of(pr.b, static_cast<std::uint32_t>(m.configured.size()), &i)) return;
      std::uint32_t color = m.execute(i, m.packets ? 1 : st.ingress_length, st.now_us);
      int f = lvalue_field(pr.c);
      if (f >= 0) store_field(f, Value::of(color));
      return;
    }
    case PrimOp::kRegisterRead: {
      const RegisterInfo& r = p_.registers[static_cast<std::size_t>(pr.b)];
      std::uint64_t i;
      if (!index_of(pr.c, r.size, &i)) return;
      const std::uint64_t* cell = &rt_.registers[static_cast<std::size_t>(pr.b)][i * static_cast<std::uint64_t>(r.nlimbs)];
      Value v = Value::zero();
      for (int l = 0; l < r.nlimbs; ++l) v.w[l] = cell[l];
      int f = lvalue_field(pr.a);
      if (f >= 0) store_field(f, v);
      return;
    }
    case PrimOp::kRegisterWrite: {
      const RegisterInfo& r = p_.registers[static_cast<std::size_t>(pr.a)];
      std::uint64_t i;
      if (!index_of(pr.b, r.size, &i)) return;
      Value v;
      eval(pr.c, v);
      v.truncate(r.width);
      std::uint64_t* cell = &rt_.registers[static_cast<std::size_t>(pr.a)][i * static_cast<std::uint64_t>(r.nlimbs)];
      for (int l = 0; l < r.nlimbs; ++l) cell[l] = v.w[l];
      return;
    }
    case PrimOp::kCloneI2E:
    case PrimOp::kCloneE2E: {
      Value session, list;
      eval(pr.a, session);
      eval(pr.b, list);
      // Bit 15 marks the request, so that session 0 can be cloned to (register_access.h).
      st.clone_session = low16(session) | 0x8000u;
      st.clone_field_list = low16(list);
      return;
    }
    case PrimOp::kResubmit:
    case PrimOp::kRecirculate: {
      Value list;
      eval(pr.a, list);
      (pr.op == PrimOp::kResubmit ? st.resubmit_list : st.recirculate_list) = low16(list);
      return;
    }
    case PrimOp::kGenerateDigest: {
      Value list;
      eval(pr.b, list);
      st.learn_list = low16(list);
      return;
    }
    case PrimOp::kHashOffset: {
      Value base, size;
      eval(pr.b, base);
      eval(pr.args[0], size);
      std::uint64_t sz = low_u64(size);
      if (sz == 0) sz = 1;  // bmv2 treats a zero size as one
      std::uint64_t h = calculation(pr.c);
      int f = lvalue_field(pr.a);
      if (f >= 0) store_field(f, Value::of(h % sz + low_u64(base)));
      return;
    }
    case PrimOp::kRandom: {
      Value lo, hi;
      eval(pr.b, lo);
      eval(pr.c, hi);
      // bmv2 leaves the destination alone when lo > hi.
      if (low_u64(lo) > low_u64(hi)) return;
      int f = lvalue_field(pr.a);
      if (f >= 0) store_field(f, Value::of(uniform(rt_.rng, low_u64(lo), low_u64(hi))));
      return;
    }
    case PrimOp::kLogMsg:
      log_message(pr);
      return;
    case PrimOp::kExternFunction: {
      const ExternFunction& fn = *p_.extern_functions[static_cast<std::size_t>(pr.a)];
      for (std::size_t k = 0; k < pr.args.size(); ++k) eval(pr.args[k], st.extern_args[k]);
      ExternCall call;
      call.args = st.extern_args.data();
      call.nargs = static_cast<int>(pr.args.size());
      call.context = st.extern_context;
      ExternResult r = fn.invoke(call);
      if (r == ExternResult::kFault) {
        fault("an extern function failed");
        return;
      }
      for (int k : fn.out_args) {
        int f = lvalue_field(pr.args[static_cast<std::size_t>(k)]);
        if (f >= 0) store_field(f, st.extern_args[static_cast<std::size_t>(k)]);
      }
      if (r == ExternResult::kStopPipeline) st.stop = true;
      return;
    }
    default:
      fault("internal: a primitive of the wrong kind");
      return;
  }
}

}  // namespace dpusim::p4
