// The requester's lt path (tlm/dma.h): memory reads and writes through direct memory pointers
// the fabric grants, timed from the grant's route, completed by the quantum keeper.
#include <cstring>

#include "tlm/requester.h"

namespace dpusim::pcie {

using namespace sc_core;

namespace {
const EventKind kDmaEvent("dma", category::dma);

bool same_route(const DmiRoute& a, const DmiRoute& b) {
  if (a.hops.size() != b.hops.size() || a.read_latency != b.read_latency || a.max_payload_size != b.max_payload_size ||
      a.read_completion_boundary != b.read_completion_boundary)
    return false;
  for (size_t i = 0; i < a.hops.size(); ++i)
    if (a.hops[i].link != b.hops[i].link || a.hops[i].traversal != b.hops[i].traversal) return false;
  return true;
}

// The hint slot of an address: by 256-byte block, since one page may hold several grants (a
// ring's driver and device areas are separate allocations, often in one page).
size_t hint_index(uint64_t addr) { return size_t(addr >> 8) % 512; }  // 512: Requester::recent_.size()

}  // namespace

void Requester::set_fidelity(Fidelity f) {
  if (f == fidelity_) return;
  fidelity_ = f;
  grants_.clear();
  recent_.fill(nullptr);
  ctx_.event(name(), "fidelity").str("mode", fidelity_name(f));
}

void Requester::invalidate_dmi(uint64_t start, uint64_t end) {
  recent_.fill(nullptr);
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

unsigned Requester::route_index(const DmiRoute& r) {
  for (unsigned i = 0; i < routes_.size(); ++i)
    if (same_route(*routes_[i], r)) return i;
  routes_.push_back(std::make_shared<const DmiRoute>(r));
  return unsigned(routes_.size() - 1);
}

const Requester::Grant* Requester::grant_at(uint64_t addr) {
  const Grant*& hint = recent_[hint_index(addr)];
  if (hint && addr >= hint->start && addr <= hint->end) return hint->ptr ? hint : nullptr;
  auto it = grants_.upper_bound(addr);
  if (it != grants_.begin()) {
    const Grant& g = std::prev(it)->second;
    if (addr >= g.start && addr <= g.end) {
      hint = &g;
      return g.ptr ? &g : nullptr;
    }
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
  if (granted && dmi.is_read_write_allowed()) {
    g.ptr = dmi.get_dmi_ptr();
    g.route = route_index(route);
  }
  // A range overlapping cached ones replaces them (the target's view changed).
  invalidate_dmi(g.start, g.end);
  grant_span_ = std::max(grant_span_, g.end - g.start);
  const Grant& kept = grants_.emplace(g.start, g).first->second;
  recent_[hint_index(addr)] = &kept;
  return kept.ptr ? &kept : nullptr;
}

bool Requester::direct_span(uint64_t addr, size_t len, unsigned* route) {
  std::vector<std::pair<uint8_t*, size_t>>& out = segments_;
  out.clear();
  if (len == 0 || addr + len < addr) return false;
  uint64_t cur = addr;
  const uint64_t last = addr + len - 1;
  bool first = true;
  while (true) {
    const Grant* g = grant_at(cur);
    if (!g) return false;
    if (first) *route = g->route;
    first = false;
    const uint64_t seg_end = std::min(last, g->end);
    out.emplace_back(g->ptr + (cur - g->start), size_t(seg_end - cur + 1));
    if (seg_end == last) return true;
    cur = seg_end + 1;
  }
}

uint64_t Requester::memo_key(unsigned route, uint64_t addr, size_t len, unsigned limit, bool write) {
  if (memo_generation_ != ctx_.timing.generation()) {  // the profile changed: recompute
    memo_.clear();
    memo_front_.fill(MemoSlot{});
    memo_generation_ = ctx_.timing.generation();
  }
  // The split and the header size depend on the offset in the page, the length, whether the
  // address is above 4 GiB, and the limit; 0 for shapes too large to key (not memoised).
  if (len >= (uint64_t(1) << 30) || route >= 64) return 0;
  return uint64_t(len) << 34 | uint64_t(route) << 28 | uint64_t(__builtin_ctz(limit)) << 24 |
         uint64_t((addr >> 32) != 0) << 23 | uint64_t(write) << 22 | (addr & 0xfff);
}

template <typename Compute>
const std::pair<uint64_t, uint64_t>& Requester::memo_value(uint64_t key, Compute compute) {
  // A direct-mapped slot by the key's hash in front of the map: most accesses hit it.
  MemoSlot& slot = memo_front_[(key * 0x9E3779B97F4A7C15ull) >> 56 & (kMemoFront - 1)];
  if (slot.key == key) return slot.value;
  auto [it, fresh] = memo_.try_emplace(key);
  if (fresh) it->second = compute();
  slot = MemoSlot{key, it->second};
  return slot.value;
}

uint64_t Requester::read_time(unsigned route, uint64_t addr, size_t len, unsigned mrrs) {
  const uint64_t key = memo_key(route, addr, len, mrrs, false);
  if (!key) return routes_[route]->read_ps(ctx_, addr, len, mrrs);
  return memo_value(key, [&] { return std::pair<uint64_t, uint64_t>(routes_[route]->read_ps(ctx_, addr, len, mrrs), 0); })
      .first;
}

DmiRoute::WriteTimes Requester::write_time(unsigned route, uint64_t addr, size_t len, unsigned mps) {
  const uint64_t key = memo_key(route, addr, len, mps, true);
  if (!key) return routes_[route]->write_ps(ctx_, addr, len, mps);
  const auto& v = memo_value(key, [&] {
    const DmiRoute::WriteTimes w = routes_[route]->write_ps(ctx_, addr, len, mps);
    return std::pair<uint64_t, uint64_t>(w.sent, w.landed);
  });
  return DmiRoute::WriteTimes{v.first, v.second};
}

void Requester::take_direct(uint64_t addr, size_t len, uint8_t* out, uint64_t issued, uint64_t due) {
  size_t off = 0;
  for (const auto& [p, n] : segments_) {
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
  if (fidelity_ != Fidelity::Lt || !direct_span(addr, len, &route)) return false;
  *due_ps = egress_start(keeper_.local_ps()) + read_time(route, addr, len, max_read_request_size());
  return true;
}

bool Requester::read_now(uint64_t addr, size_t len, uint8_t* out, uint64_t* due_ps) {
  unsigned route = 0;
  if (fidelity_ != Fidelity::Lt || !direct_span(addr, len, &route)) return false;
  const uint64_t issued = keeper_.local_ps();
  *due_ps = egress_start(issued) + read_time(route, addr, len, max_read_request_size());
  if (!keeper_.runs_now(*due_ps)) return false;
  take_direct(addr, len, out, issued, *due_ps);
  return true;
}

bool Requester::read_direct(uint64_t addr, size_t len, Done& done) {
  unsigned route = 0;
  if (!direct_span(addr, len, &route)) return false;
  const uint64_t issued = keeper_.local_ps();
  const uint64_t due = egress_start(issued) + read_time(route, addr, len, max_read_request_size());
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
  if (!direct_span(addr, len, &route)) return false;
  size_t off = 0;
  for (const auto& [p, n] : segments_) {
    std::memcpy(p, bytes + off, n);
    off += n;
  }
  const uint64_t issued = keeper_.local_ps();
  const uint64_t start = egress_start(issued);
  const DmiRoute::WriteTimes w = write_time(route, addr, len, max_payload_size());
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
