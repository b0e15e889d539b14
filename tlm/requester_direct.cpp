// The requester's lt path (tlm/dma.h): memory reads and writes through direct memory pointers
// the fabric grants, timed from the grant's route, completed by the quantum keeper.
#include <cstring>

#include "tlm/requester.h"

namespace dpusim::pcie {

using namespace sc_core;

namespace {
const EventKind kDmaEvent("dma", category::dma);
}  // namespace

void Requester::set_fidelity(Fidelity f) {
  if (f == fidelity_) return;
  fidelity_ = f;
  dmi_.clear();
  ctx_.event(name(), "fidelity").str("mode", fidelity_name(f));
}

void Requester::take_direct(uint64_t addr, size_t len, uint8_t* out, uint64_t issued, uint64_t due) {
  size_t off = 0;
  for (const auto& [p, n] : dmi_.segments()) {
    std::memcpy(out + off, p, n);
    off += n;
  }
  ++direct_reads_;
  if (!ctx_.log.wants(kDmaEvent)) return;  // (before name(), whose length is counted)
  if (Event e = ctx_.log.event(issued, name(), kDmaEvent))
    e.str("op", "read").hex("addr", addr).u64("len", len).u64("done_ps", due);
}

bool Requester::direct_due(uint64_t addr, size_t len, uint64_t* due_ps) {
  unsigned route = 0;
  if (fidelity_ != Fidelity::Lt || !dmi_.span(addr, len, &route)) return false;
  *due_ps = egress_start(keeper_.local_ps()) + dmi_.read_time(route, addr, len, max_read_request_size());
  return true;
}

bool Requester::read_now(uint64_t addr, size_t len, uint8_t* out, uint64_t* due_ps) {
  unsigned route = 0;
  if (fidelity_ != Fidelity::Lt || !dmi_.span(addr, len, &route)) return false;
  const uint64_t issued = keeper_.local_ps();
  *due_ps = egress_start(issued) + dmi_.read_time(route, addr, len, max_read_request_size());
  if (!keeper_.runs_now(*due_ps)) return false;
  take_direct(addr, len, out, issued, *due_ps);
  return true;
}

bool Requester::read_direct(uint64_t addr, size_t len, Done& done) {
  unsigned route = 0;
  if (!dmi_.span(addr, len, &route)) return false;
  const uint64_t issued = keeper_.local_ps();
  const uint64_t due = egress_start(issued) + dmi_.read_time(route, addr, len, max_read_request_size());
  Result r;
  r.data.resize(len);
  take_direct(addr, len, r.data.data(), issued, due);
  if (keeper_.runs_now(due)) {
    keeper_.run_now(due, [&] { done(std::move(r)); });
  } else {
    keeper_.post(due, [done = std::move(done), r = std::move(r)]() mutable { done(std::move(r)); });
  }
  return true;
}

bool Requester::write_direct(uint64_t addr, const uint8_t* bytes, size_t len, sc_time* sent) {
  unsigned route = 0;
  if (!dmi_.span(addr, len, &route)) return false;
  size_t off = 0;
  for (const auto& [p, n] : dmi_.segments()) {
    std::memcpy(p, bytes + off, n);
    off += n;
  }
  const uint64_t issued = keeper_.local_ps();
  const uint64_t start = egress_start(issued);
  const DmiRoute::WriteTimes w = dmi_.write_time(route, addr, len, max_payload_size());
  if (issued >= egress_write_issued_ps_) {
    egress_write_issued_ps_ = issued;
    egress_free_ps_ = std::max(egress_free_ps_, start + w.sent);
  }
  ++direct_writes_;
  if (ctx_.log.wants(kDmaEvent))
    if (Event e = ctx_.event(name(), kDmaEvent))
      e.str("op", "write").hex("addr", addr).u64("len", len).u64("done_ps", start + w.landed);
  *sent = sc_time::from_value(start + w.sent - ctx_.now_ps());
  return true;
}

}  // namespace dpusim::pcie
