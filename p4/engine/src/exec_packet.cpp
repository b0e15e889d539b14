// Headers on the wire and in the packet header vector: the frame's start, the parser
// (bmv2's parser.cpp semantics), header validity with unions and stacks, and the deparser.
#include <algorithm>
#include <cstring>

#include "bits.h"
#include "dpusim/p4/limits.h"
#include "exec.h"

namespace dpusim::p4 {

Executor::Executor(const Program& program, std::vector<TableRuntime>& tables, Runtime& runtime)
    : p_(program), tables_(tables), rt_(runtime) {
  st.phv.assign(static_cast<std::size_t>(p_.phv_limbs), 0);
  st.valid.assign(p_.headers.size(), 0);
  st.valid_init.assign(p_.headers.size(), 0);
  // Metadata is always valid in bmv2; headers start invalid on every frame.
  for (std::size_t h = 0; h < p_.headers.size(); ++h) st.valid_init[h] = p_.headers[h].metadata ? 1 : 0;
  st.stack_next.assign(p_.stacks.size(), 0);
  st.vl_bits.assign(p_.headers.size(), 0);
  st.wire_src.assign(p_.headers.size(), nullptr);
  st.union_stack_next.assign(p_.union_stacks.size(), 0);
  std::size_t key_bytes = 1;
  for (const TableInfo& t : p_.tables) key_bytes = std::max(key_bytes, static_cast<std::size_t>(t.key_bytes));
  st.key.assign(key_bytes + 8, 0);  // slack for build_key's 8-byte stores
  st.key_scratch.assign(key_bytes, 0);
  std::size_t select = 1;
  for (const ParseState& s : p_.parser.states) select = std::max(select, static_cast<std::size_t>(s.key_bytes));
  st.select_key.assign(select, 0);
  st.wire_window.assign(P4_MAX_PHV_BYTES + 16, 0);
  st.vset_key.reserve(select);
  std::size_t args = 0;
  for (const ActionInfo& a : p_.actions)
    for (const Prim& pr : a.prims) args = std::max(args, pr.args.size());
  for (const ParseState& s : p_.parser.states)
    for (const ParseOp& op : s.ops) args = std::max(args, op.prim.args.size());
  for (const Prim& pr : p_.deparser.prims) args = std::max(args, pr.args.size());
  st.extern_args.assign(std::max<std::size_t>(args, 1), Value::zero());
  // The largest input a calculation builds, or a header for the ipv4 checksum.
  std::size_t calc = P4_MAX_PHV_BYTES;
  for (const CalculationInfo& c : p_.calculations) calc = std::max(calc, static_cast<std::size_t>(c.max_bytes));
  st.calc_buf.assign(calc + 8, 0);
}

void Executor::begin_frame(const std::uint8_t* pkt, std::size_t len, std::uint32_t in_port) {
  // bmv2 zeroes metadata per packet; header fields are zeroed too, so that reading an
  // invalid header gives the same bytes on every run rather than a previous frame's.
  std::fill(st.phv.begin(), st.phv.end(), 0);
  if (!st.valid.empty()) std::memcpy(st.valid.data(), st.valid_init.data(), st.valid.size());  // none: no headers
  std::fill(st.stack_next.begin(), st.stack_next.end(), 0);
  std::fill(st.vl_bits.begin(), st.vl_bits.end(), 0);
  std::fill(st.wire_src.begin(), st.wire_src.end(), nullptr);
  std::fill(st.union_stack_next.begin(), st.union_stack_next.end(), 0);
  st.pkt = pkt;
  st.pkt_len = len;
  st.cursor = 0;
  st.in_port = in_port;
  st.exit = false;
  st.stop = false;
  st.egress_spec_written = false;
  st.fault = nullptr;
  st.fault_where = nullptr;
  st.parse_error_pending = false;
  st.truncate_len = -1;
  st.length_reg = static_cast<std::int64_t>(len);
  st.ingress_length = len;
  st.clone_session = st.clone_field_list = st.learn_list = st.resubmit_list = st.recirculate_list = 0;
  st.checksum_error = false;
  st.action_data = nullptr;
  current_prim_ = nullptr;
}

void Executor::reset_metadata() {
  for (const HeaderInfo& h : p_.headers)
    if (h.metadata)
      std::fill(st.phv.begin() + h.limb, st.phv.begin() + h.limb + h.nlimbs, 0);
}

void Executor::set_valid(int header) {
  st.valid[header] = 1;
  // A union holds at most one valid member (bmv2's HeaderUnion::make_header_valid).
  int u = p_.headers[header].union_index;
  if (u >= 0)
    for (int h : p_.unions[u].headers)
      if (h != header) st.valid[h] = 0;
}

void Executor::copy_header(int dst, int src) {
  // bmv2's assign_header: an invalid source makes the destination invalid.
  if (!st.valid[src]) {
    set_invalid(dst);
    return;
  }
  set_valid(dst);
  const HeaderInfo& d = p_.headers[dst];
  const HeaderInfo& s = p_.headers[src];
  std::memmove(&st.phv[static_cast<std::size_t>(d.limb)], &st.phv[static_cast<std::size_t>(s.limb)],
               static_cast<std::size_t>(s.nlimbs) * 8);
  st.wire_src[static_cast<std::size_t>(dst)] = d.type == s.type ? st.wire_src[static_cast<std::size_t>(src)] : nullptr;
  st.vl_bits[static_cast<std::size_t>(dst)] = st.vl_bits[static_cast<std::size_t>(src)];
  if (p_.f_egress_spec >= 0 && p_.fields[p_.f_egress_spec].header == dst) st.egress_spec_written = true;
}

namespace {

// Exchanges two headers' values and validity, as bmv2's Header::swap_values (used by the
// P4_16 stack shifts, which bypass union bookkeeping).
void swap_headers(FrameState& st, const HeaderInfo& a, const HeaderInfo& b, int ia, int ib) {
  std::swap_ranges(st.phv.begin() + a.limb, st.phv.begin() + a.limb + a.nlimbs, st.phv.begin() + b.limb);
  std::swap(st.valid[ia], st.valid[ib]);
  std::swap(st.wire_src[static_cast<std::size_t>(ia)], st.wire_src[static_cast<std::size_t>(ib)]);
  std::swap(st.vl_bits[static_cast<std::size_t>(ia)], st.vl_bits[static_cast<std::size_t>(ib)]);
}

// The next state of a parse state: the first transition its select key (in st.select_key)
// matches, or the default's. Internal, so that parse_states has it inlined.
int parse_transition(const ParseState& s, FrameState& st, const Runtime& rt) {
  for (const Transition& t : s.transitions) {
    bool match = true;
    if (t.vset >= 0) {
      // A value set's members, laid out and masked as the key (bmv2's ParseVSet).
      const auto& members = rt.vset_cases[static_cast<std::size_t>(t.vset_case)];
      if (members.empty()) continue;
      std::vector<std::uint8_t>& k = st.vset_key;
      k.assign(st.select_key.begin(), st.select_key.begin() + s.key_bytes);
      for (int i = 0; i < s.key_bytes; ++i) k[static_cast<std::size_t>(i)] &= t.mask[static_cast<std::size_t>(i)];
      match = members.count(k) != 0;
    } else {
      for (int i = 0; i < s.key_bytes && match; ++i) match = (st.select_key[i] & t.mask[i]) == t.value[i];
    }
    if (match) return t.next;
  }
  return s.default_next;
}

}  // namespace

// A header stack's elements are headers; a union stack's are unions, each a few headers.
struct Executor::StackView {
  const Program& p;
  bool is_union;
  int id;
  std::size_t size() const { return is_union ? p.union_stacks[id].unions.size() : p.stacks[id].headers.size(); }
  std::size_t members() const { return is_union ? p.unions[p.union_stacks[id].unions[0]].headers.size() : 1; }
  int header(std::size_t element, std::size_t member) const {
    return is_union ? p.unions[p.union_stacks[id].unions[element]].headers[member] : p.stacks[id].headers[element];
  }
};

void Executor::swap_elements(const StackView& s, std::size_t i, std::size_t j) {
  for (std::size_t m = 0; m < s.members(); ++m) {
    int a = s.header(i, m), b = s.header(j, m);
    swap_headers(st, p_.headers[a], p_.headers[b], a, b);
  }
}

void Executor::push_stack(int stack_node, std::uint64_t count) {
  // P4_16 push_front(n): elements move n places toward the end (the last n fall off), the
  // first n become invalid, and the count of pushed elements grows by n up to the size.
  const ExprNode& n = p_.exprs[stack_node];
  const StackView s{p_, n.kind == ExprKind::kUnionStack, n.a};
  std::uint32_t& next = s.is_union ? st.union_stack_next[n.a] : st.stack_next[n.a];
  if (count == 0) return;
  const std::size_t size = s.size();
  next = static_cast<std::uint32_t>(std::min<std::uint64_t>(size, next + count));
  for (std::size_t i = size; i-- > 0 && i >= count;) swap_elements(s, i, i - count);
  for (std::size_t i = 0; i < std::min<std::uint64_t>(size, count); ++i)
    for (std::size_t m = 0; m < s.members(); ++m) set_invalid(s.header(i, m));
}

void Executor::pop_stack(int stack_node, std::uint64_t count) {
  // P4_16 pop_front(n): elements move n places toward the front, the last n invalid.
  const ExprNode& n = p_.exprs[stack_node];
  const StackView s{p_, n.kind == ExprKind::kUnionStack, n.a};
  std::uint32_t& next = s.is_union ? st.union_stack_next[n.a] : st.stack_next[n.a];
  if (count == 0) return;
  const std::size_t size = s.size();
  next -= static_cast<std::uint32_t>(std::min<std::uint64_t>(next, count));
  std::size_t i = 0;
  if (count < size)
    for (; i < size - count; ++i) swap_elements(s, i, i + count);
  for (; i < size; ++i)
    for (std::size_t m = 0; m < s.members(); ++m) set_invalid(s.header(i, m));
}

// A field's place on the wire this frame: a varbit field takes its current width, and the
// fields after it move by that much.
void Executor::wire_span(const FieldInfo& f, int varbit_offset, int vl, std::size_t* offset, int* width) const {
  *offset = static_cast<std::size_t>(f.bit_offset + (varbit_offset >= 0 && f.offset > varbit_offset ? vl : 0));
  *width = f.varbit ? vl : f.width;
}

void Executor::extract_header(int header, const std::uint8_t* at) {
  const HeaderInfo& h = p_.headers[header];
  const int vl = st.vl_bits[static_cast<std::size_t>(header)];
  if (h.varbit_field < 0 && h.wire_bytes <= P4_MAX_PHV_BYTES) {
    // A fixed header: each field with one 8-byte load, from the frame when 8 bytes follow
    // the header in it, else from a copy with slack.
    const std::uint8_t* win = at;
    if (at + h.wire_bytes + 8 > st.pkt + st.pkt_len || at < st.pkt) {
      std::uint8_t* copy = st.wire_window.data();
      std::memcpy(copy, at, static_cast<std::size_t>(h.wire_bytes));
      std::memset(copy + h.wire_bytes, 0, 8);
      win = copy;
    }
    for (int k = 0; k < h.nfields; ++k) {
      const FieldInfo& f = p_.fields[h.first_field + k];
      std::uint64_t* limbs = &st.phv[static_cast<std::size_t>(f.limb)];
      if (f.width <= kFastFieldBits) *limbs = read_bits_fast(win, static_cast<std::size_t>(f.bit_offset), f.width);
      else wire_to_limbs(win, static_cast<std::size_t>(f.bit_offset), f.width, limbs);
    }
    set_valid(header);
    // A fixed header's fields are exactly its bytes: until one changes, the deparser can
    // copy these bytes back.
    st.wire_src[static_cast<std::size_t>(header)] = at;
    return;
  }
  const int varbit_offset = h.varbit_field >= 0 ? p_.fields[h.varbit_field].offset : -1;
  for (int k = 0; k < h.nfields; ++k) {
    const FieldInfo& f = p_.fields[h.first_field + k];
    std::uint64_t* limbs = &st.phv[static_cast<std::size_t>(f.limb)];
    std::size_t offset;
    int width;
    wire_span(f, varbit_offset, vl, &offset, &width);
    if (f.varbit) std::fill(limbs, limbs + f.nlimbs, 0);
    wire_to_limbs(at, offset, width, limbs);
  }
  set_valid(header);
  st.wire_src[static_cast<std::size_t>(header)] = nullptr;
}

void Executor::emit_header(int header, std::uint8_t* at) const {
  const HeaderInfo& h = p_.headers[header];
  const int vl = st.vl_bits[static_cast<std::size_t>(header)];
  if (h.varbit_field < 0) {
    if (const std::uint8_t* src = st.wire_src[static_cast<std::size_t>(header)]) {
      std::memcpy(at, src, static_cast<std::size_t>(h.wire_bytes));  // unchanged since extracted
      return;
    }
    // A fixed header's fields are in wire order, one after another.
    WireWriter w{at};
    if (h.narrow) {
      const std::uint64_t* limbs = &st.phv[static_cast<std::size_t>(h.limb)];
      for (int k = 0; k < h.nfields; ++k) w.push(limbs[k], h.widths[static_cast<std::size_t>(k)]);
      w.finish();
      return;
    }
    for (int k = 0; k < h.nfields; ++k) {
      const FieldInfo& f = p_.fields[h.first_field + k];
      w.push_limbs(&st.phv[static_cast<std::size_t>(f.limb)], f.width);
    }
    w.finish();
    return;
  }
  const int varbit_offset = h.varbit_field >= 0 ? p_.fields[h.varbit_field].offset : -1;
  std::memset(at, 0, header_bytes(header));
  for (int k = 0; k < h.nfields; ++k) {
    const FieldInfo& f = p_.fields[h.first_field + k];
    std::size_t offset;
    int width;
    wire_span(f, varbit_offset, vl, &offset, &width);
    limbs_to_wire(&st.phv[static_cast<std::size_t>(f.limb)], width, at, offset);
  }
}

std::uint64_t Executor::parse() {
  std::uint64_t error = parse_states();
  // bmv2 verifies the checksums once the parser stops, whether or not it failed.
  if (st.fault == nullptr && p_.verify_checksums) verify_checksums();
  return error;
}

std::uint64_t Executor::parse_states() {
  const CoreErrors& ce = p_.core_errors;
  int state = p_.parser.init_state;
  int steps = 0;
  while (state >= 0) {
    if (++steps > P4_MAX_PARSER_STEPS) {
      // bmv2 would loop forever on a parse graph that cycles without consuming.
      fault("the parser visited more states than the limit of 4096 for one frame");
      return ce.no_error;
    }
    const ParseState& s = p_.parser.states[state];
    for (const ParseOp& op : s.ops) {
      std::size_t left = st.pkt_len - st.cursor;
      switch (op.kind) {
        case ParseOpKind::kExtract: {
          const HeaderInfo& h = p_.headers[op.a];
          if (left < static_cast<std::size_t>(h.wire_bytes)) return ce.packet_too_short;
          extract_header(op.a, st.pkt + st.cursor);
          st.cursor += static_cast<std::size_t>(h.wire_bytes);
          break;
        }
        case ParseOpKind::kExtractStack:
        case ParseOpKind::kExtractUnionStack: {
          bool u = op.kind == ParseOpKind::kExtractUnionStack;
          std::uint32_t& next = u ? st.union_stack_next[op.a] : st.stack_next[op.a];
          std::size_t size = u ? p_.union_stacks[op.a].unions.size() : p_.stacks[op.a].headers.size();
          if (next >= size) return ce.stack_out_of_bounds;
          int hid = u ? p_.unions[p_.union_stacks[op.a].unions[next]].headers[op.b] : p_.stacks[op.a].headers[next];
          const HeaderInfo& h = p_.headers[hid];
          if (left < static_cast<std::size_t>(h.wire_bytes)) return ce.packet_too_short;
          extract_header(hid, st.pkt + st.cursor);
          st.cursor += static_cast<std::size_t>(h.wire_bytes);
          ++next;
          break;
        }
        case ParseOpKind::kSet: {
          Value v;
          eval(op.b, v);
          if (st.parse_error_pending) return ce.packet_too_short;
          int f = lvalue_field(op.a);
          if (f >= 0) store_field(f, v);
          break;
        }
        case ParseOpKind::kVerify:
          if (!eval_bool(op.a)) {
            Value e;
            eval(op.b, e);
            return e.w[0] & 0xffffffffu;
          }
          break;
        case ParseOpKind::kAdvance: {
          Value v;
          eval(op.a, v);
          std::uint64_t bits;
          if (!v.fits_u64(&bits) || bits % 8 != 0) return ce.parser_invalid_argument;
          if (left < bits / 8) return ce.packet_too_short;
          st.cursor += static_cast<std::size_t>(bits / 8);
          break;
        }
        case ParseOpKind::kExtractVL: {
          // bmv2's extract_VL: the length in bits, a multiple of 8, within max_length.
          int hid = op.a;
          std::uint32_t* next = nullptr;
          if (op.c == 1) {
            next = &st.stack_next[static_cast<std::size_t>(op.a)];
            if (*next >= p_.stacks[static_cast<std::size_t>(op.a)].headers.size()) return ce.stack_out_of_bounds;
            hid = p_.stacks[static_cast<std::size_t>(op.a)].headers[*next];
          }
          Value v;
          eval(op.b, v);
          std::uint64_t bits;
          if (!v.fits_u64(&bits) || bits % 8 != 0) return ce.parser_invalid_argument;
          const HeaderInfo& h = p_.headers[static_cast<std::size_t>(hid)];
          const HeaderTypeInfo& t = p_.header_types[static_cast<std::size_t>(h.type)];
          std::uint64_t bytes = static_cast<std::uint64_t>(h.wire_bytes) + bits / 8;
          if (left < bytes) return ce.packet_too_short;
          if (bytes > static_cast<std::uint64_t>(t.max_bytes)) return ce.header_too_short;
          st.vl_bits[static_cast<std::size_t>(hid)] = static_cast<std::uint16_t>(bits);
          extract_header(hid, st.pkt + st.cursor);
          st.cursor += static_cast<std::size_t>(bytes);
          if (next) ++*next;
          break;
        }
        case ParseOpKind::kPrimitive:
          exec_prim(op.prim);
          break;
      }
      if (st.fault != nullptr) return ce.no_error;
      if (st.parse_error_pending) return ce.packet_too_short;
    }
    if (s.key.empty()) {
      state = s.default_next;
      continue;
    }
    if (st.pkt_len - st.cursor < static_cast<std::size_t>(s.lookahead_bytes)) return ce.packet_too_short;
    int off = 0;
    for (const KeyPart& part : s.key) {
      Value v;
      eval(part.expr, v);
      v.get_bytes_be(&st.select_key[static_cast<std::size_t>(off)], static_cast<std::size_t>(part.nbytes));
      off += part.nbytes;
    }
    if (st.fault != nullptr) return ce.no_error;
    state = parse_transition(s, st, rt_);
  }
  return ce.no_error;
}

std::size_t Executor::deparse(std::uint8_t* out) {
  // bmv2's deparser updates the checksums first, then runs its primitives, then emits.
  if (p_.update_checksums) update_checksums();
  if (st.fault != nullptr) return 0;
  for (const Prim& prim : p_.deparser.prims) {
    exec_prim(prim);
    if (st.fault != nullptr) return 0;
  }
  std::size_t pos = 0;
  for (int h : p_.deparser.order) {
    if (!st.valid[h]) continue;
    // Every header in the order fits: the vector is at most P4_MAX_PHV_BYTES.
    emit_header(h, out + pos);
    pos += header_bytes(h);
  }
  std::size_t payload = st.pkt_len - st.cursor;
  if (payload != 0) std::memcpy(out + pos, st.pkt + st.cursor, payload);  // an empty frame has no bytes
  pos += payload;
  if (st.truncate_len >= 0 && pos > static_cast<std::size_t>(st.truncate_len)) pos = static_cast<std::size_t>(st.truncate_len);
  return pos;
}

}  // namespace dpusim::p4
