// Harness: the ionic NIC's send/receive work-request parser and the memory-region resolution
// behind every SGE (models/ionic/rdma_decode.h, rdma_mem.h), and the mesh's wire header
// (rdma_wire.h), on bytes a guest or a peer writes. Input: one byte choosing the stride
// (2^5..2^8), the WQE, then the rest describing two regions (one direct, one by a page table).
// Rules: the gather list holds min(num_sge, (stride - 32) / 16, 32) entries exactly as written,
// none for inline data, REG_MR and LOCAL_INV; a range resolves only inside its region, into
// runs whose lengths sum to the range's and which lie in the region's pages; lkey 0 resolves
// only where allowed; a wire message decodes only with the magic and a bounded length, and
// re-encodes to the same header; nothing crashes.
// link: dpusim_ionic
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "dpusim/p4/rdma/verbs.h"
#include "ionic/le_bytes.h"
#include "ionic/rdma_decode.h"
#include "ionic/rdma_mem.h"
#include "ionic/rdma_wire.h"

extern "C" int sc_main(int, char**) { return 0; }

namespace {

using namespace dpusim::ionic;

uint64_t take64(const uint8_t*& p, const uint8_t* end) {
  uint8_t b[8] = {};
  const size_t n = std::min<size_t>(8, size_t(end - p));
  std::memcpy(b, p, n);
  p += n;
  return get_le64(b);
}

void check_resolve(const MrTable& t, const MemRegion& r, uint32_t key, uint64_t va, uint64_t len, bool allow0) {
  std::vector<BusRun> runs;
  const bool ok = t.resolve(key, va, len, allow0, &runs);
  if (key == IONIC_DMA_LKEY) {
    if (ok != allow0) std::abort();
    return;
  }
  if (key != r.key) {
    if (ok && !t.find(key)) std::abort();  // only a registered key resolves
    return;
  }
  if (ok && !region_contains(r, va, len)) std::abort();
  if (!ok) return;
  uint64_t sum = 0;
  for (const BusRun& b : runs) {
    sum += b.len;
    if (!r.buf.pages.empty()) {
      // Every run starts inside one of the table's pages.
      const uint64_t psz = uint64_t(1) << r.buf.page_shift;
      bool inside = false;
      for (uint64_t p : r.buf.pages) inside |= b.addr >= p && b.addr - p < psz;
      if (!inside) std::abort();
    }
  }
  if (sum != len) std::abort();
}

void check_wire(const uint8_t* data, size_t size) {
  WireHdr h;
  std::string why;
  const bool ok = decode_wire(data, size, &h, &why);
  const bool expect = size >= IONIC_WIRE_HDR_BYTES && size <= IONIC_WIRE_HDR_BYTES + IONIC_WIRE_MAX_PAYLOAD &&
                      get_le32(data) == IONIC_WIRE_MAGIC;
  if (ok != expect || (!ok && why.empty())) std::abort();
  if (!ok) return;
  const std::vector<uint8_t> again = encode_wire(h, data + IONIC_WIRE_HDR_BYTES, size - IONIC_WIRE_HDR_BYTES);
  // Everything but the reserved bytes 6..7 comes back as it was.
  for (size_t i = 0; i < size; ++i)
    if (i != 6 && i != 7 && again[i] != data[i]) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  check_wire(data + 1, size - 1);
  const uint32_t stride = 32u << (data[0] & 3);
  std::vector<uint8_t> wqe(stride, 0);
  const size_t have = std::min<size_t>(stride, size - 1);
  std::memcpy(wqe.data(), data + 1, have);
  const Wqe q = decode_wqe(wqe.data(), stride);
  const bool no_sgl = q.inline_data() || q.op == dpusim::p4::rdma::IONIC_V1_OP_REG_MR ||
                      q.op == dpusim::p4::rdma::IONIC_V1_OP_LOCAL_INV;
  const size_t fit = (stride - WQE_PAYLOAD) / IONIC_V1_SGE_BYTES;
  const size_t expect = no_sgl ? 0 : std::min<size_t>({wqe[WQE_NUM_SGE_KEY], fit, IONIC_V1_MAX_SGE});
  if (q.sgl.size() != expect) std::abort();
  for (size_t i = 0; i < q.sgl.size(); ++i) {
    const uint8_t* s = wqe.data() + WQE_PAYLOAD + i * IONIC_V1_SGE_BYTES;
    if (q.sgl[i].va != get_be64(s) || q.sgl[i].len != get_be32(s + 8) || q.sgl[i].lkey != get_be32(s + 12))
      std::abort();
  }
  if (q.op != wqe[WQE_OP] || q.signaled() != bool(get_be16(wqe.data() + WQE_FLAGS) & IONIC_V1_FLAG_SIG)) std::abort();

  // Two regions from the rest of the input: a direct one, and one by a page table.
  const uint8_t* p = data + 1 + have;
  const uint8_t* end = data + size;
  MemRegion direct{uint32_t(take64(p, end)) | 1, take64(p, end), take64(p, end) & 0xffffffff, 0x0f, {}};
  direct.buf.base = take64(p, end);
  MemRegion paged{direct.key + 1, take64(p, end), take64(p, end) & 0xffffff, 0x0f, {}};
  const unsigned shift = 12 + unsigned(take64(p, end) % 4);
  paged.buf.page_shift = shift;
  paged.buf.first_off = paged.va & ((uint64_t(1) << shift) - 1);
  for (int i = 0; i < 8 && p < end; ++i) paged.buf.pages.push_back(take64(p, end) & ~((uint64_t(1) << shift) - 1));
  MrTable t;
  t.put(direct);
  t.put(paged);
  for (const Sge& s : q.sgl) {
    for (const MemRegion* r : {&direct, &paged}) {
      check_resolve(t, *r, s.lkey, s.va, s.len, true);
      check_resolve(t, *r, r->key, s.va, s.len, false);
      check_resolve(t, *r, r->key, r->va + (s.va % (r->length + 1)), s.len % (r->length + 1), false);
    }
  }
  return 0;
}
