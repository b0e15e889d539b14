#include "ionic/dma_io.h"

#include <memory>

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

void dma_scatter(pcie::Requester& dma, const std::vector<BusRun>& runs, const uint8_t* bytes) {
  uint64_t off = 0;
  for (const BusRun& r : runs) {
    if (r.len) dma.write(r.addr, bytes + off, size_t(r.len));
    off += r.len;
  }
}

uint64_t runs_total(const std::vector<BusRun>& runs) {
  uint64_t t = 0;
  for (const BusRun& r : runs) t += r.len;
  return t;
}

}  // namespace dpusim::ionic
