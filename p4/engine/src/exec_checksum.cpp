// Calculations and checksums as bmv2 computes them (calculations.cpp's BufBuilder,
// checksums.cpp): a calculation's input is its fields bit-packed one after another, fields
// of invalid headers left out, constants at their declared width, whole valid headers and
// the payload at byte boundaries; the hash runs over those bytes. The parser verifies each
// checksum whose header is valid and whose condition holds, and a mismatch sets the packet's
// checksum error; the deparser, before it emits, writes each updated checksum whose
// condition holds.
#include <cstring>

#include "bits.h"
#include "exec.h"
#include "hash_algos.h"

namespace dpusim::p4 {

std::uint64_t Executor::calculation(int index) {
  const CalculationInfo& c = p_.calculations[static_cast<std::size_t>(index)];
  WireWriter w{st.calc_buf.data()};
  int emitted = -1;  // the header last emitted into st.wire_window (free outside extraction)
  for (std::size_t i = 0; i < c.inputs.size(); ++i) {
    const CalcInput& in = c.inputs[i];
    if (c.run_at[i] >= 0 && w.pending == 0) {
      // Consecutive fields of a valid fixed header: its bytes, as the parser extracted them
      // while nothing changed, else as the deparser would emit it (once per calculation).
      const CalcRun& r = c.runs[static_cast<std::size_t>(c.run_at[i])];
      if (st.valid[static_cast<std::size_t>(r.header)]) {
        const std::uint8_t* src = st.wire_src[static_cast<std::size_t>(r.header)];
        if (src == nullptr) {
          if (emitted != r.header) emit_header(r.header, st.wire_window.data());
          emitted = r.header;
          src = st.wire_window.data();
        }
        std::memcpy(w.out, src + r.byte_offset, static_cast<std::size_t>(r.bytes));
        w.out += r.bytes;
        i += static_cast<std::size_t>(r.inputs) - 1;
        continue;
      }
    }
    switch (in.kind) {
      case CalcInput::Kind::kField: {
        if (!st.valid[static_cast<std::size_t>(in.header)]) break;  // bmv2 skips it
        const int width = in.varbit ? st.vl_bits[static_cast<std::size_t>(in.header)] : in.width;
        if (width >= 1 && width <= 64) w.push(st.phv[static_cast<std::size_t>(in.limb)], width);
        else if (width > 64) w.push_limbs(&st.phv[static_cast<std::size_t>(in.limb)], width);
        break;
      }
      case CalcInput::Kind::kConst:
        w.push_limbs(p_.consts[static_cast<std::size_t>(in.a)].w, in.bits);
        break;
      case CalcInput::Kind::kHeader:
        if (!st.valid[static_cast<std::size_t>(in.a)]) break;
        w.finish();  // a header starts on a byte
        emit_header(in.a, w.out);
        w.out += header_bytes(in.a);
        break;
      case CalcInput::Kind::kPayload: {
        w.finish();
        std::size_t n = st.pkt_len - st.cursor;
        if (n != 0) std::memcpy(w.out, st.pkt + st.cursor, n);
        w.out += n;
        break;
      }
    }
  }
  const std::uint8_t* buf = st.calc_buf.data();
  const std::size_t n = static_cast<std::size_t>(w.finish() - buf);
  switch (c.algo) {
    case HashAlgo::kCsum16:
    case HashAlgo::kCksum16: return csum16(buf, n);
    case HashAlgo::kIdentity: return identity_hash(buf, n);
    case HashAlgo::kXor16: return xor_fold(buf, n, 2);
    case HashAlgo::kXor32: return xor_fold(buf, n, 4);
    case HashAlgo::kRoundRobin: return rt_.round_robin[static_cast<std::size_t>(index)]++;
    default: return rt_.crcs[static_cast<std::size_t>(index)].compute(buf, n);
  }
}

namespace {

// bmv2's built-in "ipv4" checksum: csum16 of the header's bytes with the checksum bytes
// (10 and 11) zeroed.
std::uint64_t ipv4_checksum(std::uint8_t* bytes, std::size_t n) {
  bytes[10] = bytes[11] = 0;
  return csum16(bytes, n);
}

}  // namespace

void Executor::verify_checksums() {
  for (const ChecksumInfo& c : p_.checksums) {
    if (!c.verify) continue;
    const FieldInfo& target = p_.fields[static_cast<std::size_t>(c.target)];
    if (!st.valid[static_cast<std::size_t>(target.header)]) continue;
    if (c.cond >= 0 && !eval_bool(c.cond)) continue;
    std::uint64_t computed;
    if (c.ipv4) {
      emit_header(target.header, st.calc_buf.data());
      computed = ipv4_checksum(st.calc_buf.data(), header_bytes(target.header));
    } else {
      computed = calculation(c.calc);
    }
    if (computed != field_u64(c.target)) st.checksum_error = true;
  }
}

void Executor::update_checksums() {
  for (const ChecksumInfo& c : p_.checksums) {
    if (!c.update) continue;
    if (c.cond >= 0 && !eval_bool(c.cond)) continue;
    const FieldInfo& target = p_.fields[static_cast<std::size_t>(c.target)];
    std::uint64_t computed;
    if (c.ipv4) {
      if (!st.valid[static_cast<std::size_t>(target.header)]) continue;
      emit_header(target.header, st.calc_buf.data());
      computed = ipv4_checksum(st.calc_buf.data(), header_bytes(target.header));
    } else {
      computed = calculation(c.calc);
    }
    store_u64(c.target, computed);
  }
}

}  // namespace dpusim::p4
