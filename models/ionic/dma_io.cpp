#include "ionic/dma_io.h"

#include <memory>

#include "ionic/le_bytes.h"
#include "ionic/rdma_fw.h"
#include "tlm/hex.h"

namespace dpusim::ionic {

namespace {

struct Gather {
  pcie::Requester* dma;
  std::vector<BusRun> runs;
  std::vector<uint8_t> bytes;
  GatherDone done;
};

// Reads beyond this are split: one Requester read of at most this many bytes.
constexpr uint64_t kMaxRead = 1u << 20;

void gather_step(std::shared_ptr<Gather> g, size_t i, uint64_t off) {
  while (i < g->runs.size() && off == g->runs[i].len) {
    ++i;
    off = 0;
  }
  if (i == g->runs.size()) return g->done(std::move(g->bytes), true);
  const uint64_t n = std::min(kMaxRead, g->runs[i].len - off);
  g->dma->read(g->runs[i].addr + off, size_t(n), [g, i, off, n](pcie::Result&& r) {
    if (r.outcome != pcie::Outcome::SC) return g->done({}, false);
    g->bytes.insert(g->bytes.end(), r.data.begin(), r.data.end());
    gather_step(g, i, off + n);
  });
}

}  // namespace

void dma_gather(pcie::Requester& dma, std::vector<BusRun> runs, GatherDone done) {
  auto g = std::make_shared<Gather>(Gather{&dma, std::move(runs), {}, std::move(done)});
  g->bytes.reserve(size_t(std::min<uint64_t>(runs_total(g->runs), 1u << 24)));
  gather_step(std::move(g), 0, 0);
}

void DeviceIo::scatter(const std::vector<BusRun>& runs, const uint8_t* bytes) {
  uint64_t off = 0;
  for (const BusRun& r : runs) {
    if (r.len) write(r.addr, bytes + off, size_t(r.len));
    off += r.len;
  }
}

void load_buf(DeviceIo& io, const BufDesc& d, uint64_t va, std::function<void(bool, GuestBuf, std::string)> done) {
  GuestBuf buf;
  if (d.page_size_log2 > IONIC_RDMA_MAX_PAGE_SIZE_LOG2)
    return done(false, buf, "page size 2^" + std::to_string(d.page_size_log2) + " above 2^30");
  buf.page_shift = d.page_size_log2 ? d.page_size_log2 : 12;
  if (d.map_count <= 1) {
    buf.base = d.dma_addr;
    return done(true, buf, "");
  }
  if (d.map_count > IONIC_RDMA_MAX_MAP_COUNT)
    return done(false, buf, "page table of " + std::to_string(d.map_count) + " entries, more than 65536");
  io.gather({{d.dma_addr, uint64_t(d.map_count) * 8}},
             [buf, va, done = std::move(done), d](std::vector<uint8_t> table, bool ok) mutable {
               if (!ok) return done(false, buf, "page table read at " + pcie::hex(d.dma_addr) + " failed");
               for (uint32_t i = 0; i < d.map_count; ++i) buf.pages.push_back(get_le64(&table[8 * i]));
               buf.first_off = va & ((uint64_t(1) << buf.page_shift) - 1);
               done(true, buf, "");
             });
}

uint64_t runs_total(const std::vector<BusRun>& runs) {
  uint64_t t = 0;
  for (const BusRun& r : runs) t += r.len;
  return t;
}

}  // namespace dpusim::ionic
