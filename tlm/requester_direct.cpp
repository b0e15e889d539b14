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
  grants_.clear();
  ctx_.event(name(), "fidelity").str("mode", fidelity_name(f));
}

void Requester::invalidate_dmi(uint64_t start, uint64_t end) {
  // Grants are kept by start address and none spans more than grant_span_ bytes.
  auto it = grants_.lower_bound(start > grant_span_ ? start - grant_span_ : 0);
  while (it != grants_.end() && it->first <= end) {
    if (start <= it->second.end) {
      it = grants_.erase(it);
    } else {
      ++it;
    }
  }
}

const Requester::Grant* Requester::grant_at(uint64_t addr) {
  auto it = grants_.upper_bound(addr);
  if (it != grants_.begin()) {
    const Grant& g = std::prev(it)->second;
    if (addr >= g.start && addr <= g.end) return g.ptr ? &g : nullptr;
  }
  if (!get_dmi) return nullptr;
  tlm::tlm_generic_payload gp;
  DmiRoute route;
  gp.set_address(addr);
  gp.set_command(tlm::TLM_READ_COMMAND);
  gp.set_extension(&route);
  tlm::tlm_dmi dmi;
  const bool granted = get_dmi(gp, dmi);
  gp.clear_extension(&route);
  Grant g;
  g.start = dmi.get_start_address();
  g.end = dmi.get_end_address();
  // A refusal for the whole address space (a link down, no handler) says nothing lasting.
  if (addr < g.start || addr > g.end || (!granted && g.start == 0 && g.end == ~uint64_t(0))) return nullptr;
  if (granted && dmi.is_read_write_allowed() && route.usable()) {
    g.ptr = dmi.get_dmi_ptr();
    g.route = std::make_shared<const DmiRoute>(route);
  }
  // A range overlapping cached ones replaces them (the target's view changed).
  invalidate_dmi(g.start, g.end);
  grant_span_ = std::max(grant_span_, g.end - g.start);
  const Grant& kept = grants_.emplace(g.start, std::move(g)).first->second;
  return kept.ptr ? &kept : nullptr;
}

bool Requester::direct_span(uint64_t addr, size_t len, std::vector<std::pair<uint8_t*, size_t>>& out,
                            const DmiRoute** route) {
  if (len == 0 || addr + len < addr) return false;
  uint64_t cur = addr;
  const uint64_t last = addr + len - 1;
  *route = nullptr;
  while (true) {
    const Grant* g = grant_at(cur);
    if (!g || !g->route->usable()) return false;
    if (!*route) *route = g->route.get();
    const uint64_t seg_end = std::min(last, g->end);
    out.emplace_back(g->ptr + (cur - g->start), size_t(seg_end - cur + 1));
    if (seg_end == last) return true;
    cur = seg_end + 1;
  }
}

bool Requester::read_direct(uint64_t addr, size_t len, Done& done) {
  std::vector<std::pair<uint8_t*, size_t>> segs;
  const DmiRoute* route = nullptr;
  if (!direct_span(addr, len, segs, &route)) return false;
  Result r;
  r.data.resize(len);
  size_t off = 0;
  for (const auto& [p, n] : segs) {
    std::memcpy(r.data.data() + off, p, n);
    off += n;
  }
  const uint64_t issued = keeper_.local_ps();
  const uint64_t due = issued + route->read_ps(ctx_, addr, len, max_read_request_size());
  ++direct_reads_;
  if (Event e = ctx_.event(name(), kDmaEvent))
    e.str("op", "read").hex("addr", addr).u64("len", len).u64("done_ps", due);
  keeper_.post(due, [done = std::move(done), r = std::move(r)]() mutable { done(std::move(r)); });
  return true;
}

bool Requester::write_direct(uint64_t addr, const uint8_t* bytes, size_t len, sc_time* sent) {
  std::vector<std::pair<uint8_t*, size_t>> segs;
  const DmiRoute* route = nullptr;
  if (!direct_span(addr, len, segs, &route)) return false;
  size_t off = 0;
  for (const auto& [p, n] : segs) {
    std::memcpy(p, bytes + off, n);
    off += n;
  }
  const uint64_t issued = keeper_.local_ps();
  const DmiRoute::WriteTimes w = route->write_ps(ctx_, addr, len, max_payload_size());
  ++direct_writes_;
  if (Event e = ctx_.event(name(), kDmaEvent))
    e.str("op", "write").hex("addr", addr).u64("len", len).u64("done_ps", issued + w.landed);
  *sent = sc_time::from_value(issued - ctx_.now_ps() + w.sent);
  return true;
}

}  // namespace dpusim::pcie
