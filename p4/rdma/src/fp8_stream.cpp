#include "fp8_stream.h"

#include <algorithm>
#include <cstring>

#include "formats/formats.h"

namespace dpusim::p4::rdma {

namespace {

// A run with the offset of its first byte in the operand it belongs to.
struct Placed {
  std::uint64_t addr = 0, len = 0, off = 0;
};

std::vector<Placed> place(const std::vector<MemoryRun>& runs) {
  std::vector<Placed> out;
  std::uint64_t off = 0;
  for (const MemoryRun& r : runs) {
    out.push_back({r.addr, r.len, off});
    off += r.len;
  }
  return out;
}

// Copies into `chunk` (the source's bytes [s0, s1)) every byte of result[0, written) that
// lands on one of them.
void overlay(std::uint8_t* chunk, std::uint64_t s0, std::uint64_t s1, const std::vector<Placed>& src,
             const std::uint8_t* result, std::uint64_t written, const std::vector<Placed>& dst) {
  for (const Placed& s : src) {
    const std::uint64_t lo = std::max(s0, s.off), hi = std::min(s1, s.off + s.len);
    if (lo >= hi) continue;
    const std::uint64_t a0 = s.addr + (lo - s.off), a1 = s.addr + (hi - s.off);  // where [lo, hi) is
    for (const Placed& d : dst) {
      if (d.off >= written) break;
      const std::uint64_t d_len = std::min(d.len, written - d.off);
      const std::uint64_t b0 = std::max(a0, d.addr), b1 = std::min(a1, d.addr + d_len);
      if (b0 >= b1) continue;
      std::memcpy(chunk + (lo - s0) + (b0 - a0), result + d.off + (b0 - d.addr), b1 - b0);
    }
  }
}

}  // namespace

bool runs_overlap(const std::vector<MemoryRun>& a, const std::vector<MemoryRun>& b) {
  for (const MemoryRun& x : a)
    for (const MemoryRun& y : b)
      if (x.len != 0 && y.len != 0 && x.addr < y.addr + y.len && y.addr < x.addr + x.len) return true;
  return false;
}

Fp8Outcome convert_streamed(Fp8Backend& backend, const Fp8Job& whole, std::size_t chunk_bytes,
                            const std::vector<MemoryRun>& src_runs, const std::vector<MemoryRun>& dst_runs) {
  const std::vector<Placed> src = place(src_runs), dst = place(dst_runs);
  Fp8Outcome total;
  std::vector<std::uint8_t> chunk;
  std::size_t written = 0;
  for (std::size_t s0 = 0; s0 < whole.src_bytes; s0 += chunk_bytes) {
    const std::size_t s1 = std::min(whole.src_bytes, s0 + chunk_bytes);
    chunk.assign(whole.a + s0, whole.a + s1);
    overlay(chunk.data(), s0, s1, src, whole.result, written, dst);
    std::size_t out_bytes = 0;
    formats::converted_length(whole.src, whole.dst, s1 - s0, &out_bytes);  // whole elements: checked by the caller
    Fp8Job job = whole;
    job.a = chunk.data();
    job.src_bytes = s1 - s0;
    job.result = whole.result + written;
    job.result_bytes = out_bytes;
    const Fp8Outcome o = backend.compute(job);
    total.cycles += o.cycles;
    total.busy_ps += o.busy_ps;
    if (o.status != formats::Status::ok) {
      total.status = o.status;
      return total;
    }
    written += out_bytes;
  }
  return total;
}

}  // namespace dpusim::p4::rdma
