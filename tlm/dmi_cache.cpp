// The direct memory pointers a requester holds in lt mode (tlm/dmi_cache.h).
#include "tlm/dmi_cache.h"

namespace dpusim::pcie {

namespace {

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
size_t hint_index(uint64_t addr, size_t slots) { return size_t(addr >> 8) % slots; }

}  // namespace

void DmiCache::clear() {
  grants_.clear();
  recent_.fill(nullptr);
}

void DmiCache::invalidate(uint64_t start, uint64_t end) {
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

unsigned DmiCache::route_index(const DmiRoute& r) {
  for (unsigned i = 0; i < routes_.size(); ++i)
    if (same_route(*routes_[i], r)) return i;
  routes_.push_back(std::make_shared<const DmiRoute>(r));
  return unsigned(routes_.size() - 1);
}

const DmiCache::Grant* DmiCache::grant_at(uint64_t addr) {
  const Grant*& hint = recent_[hint_index(addr, kHints)];
  if (hint && addr >= hint->start && addr <= hint->end) return hint->ptr ? hint : nullptr;
  auto it = grants_.upper_bound(addr);
  if (it != grants_.begin()) {
    const Grant& g = std::prev(it)->second;
    if (addr >= g.start && addr <= g.end) {
      hint = &g;
      return g.ptr ? &g : nullptr;
    }
  }
  if (!get_dmi_) return nullptr;
  tlm::tlm_generic_payload gp;
  DmiRoute route;
  gp.set_address(addr);
  gp.set_command(tlm::TLM_READ_COMMAND);
  gp.set_extension(&route);
  tlm::tlm_dmi dmi;
  const bool granted = get_dmi_(gp, dmi);
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
  invalidate(g.start, g.end);
  grant_span_ = std::max(grant_span_, g.end - g.start);
  const Grant& kept = grants_.emplace(g.start, g).first->second;
  recent_[hint_index(addr, kHints)] = &kept;
  return kept.ptr ? &kept : nullptr;
}

bool DmiCache::span(uint64_t addr, size_t len, unsigned* route) {
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

uint64_t DmiCache::memo_key(unsigned route, uint64_t addr, size_t len, unsigned limit, bool write) {
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
const std::pair<uint64_t, uint64_t>& DmiCache::memo_value(uint64_t key, Compute compute) {
  // A direct-mapped slot by the key's hash in front of the map: most accesses hit it.
  MemoSlot& slot = memo_front_[(key * 0x9E3779B97F4A7C15ull) >> 56 & (kMemoFront - 1)];
  if (slot.key == key) return slot.value;
  auto [it, fresh] = memo_.try_emplace(key);
  if (fresh) it->second = compute();
  slot = MemoSlot{key, it->second};
  return slot.value;
}

uint64_t DmiCache::read_time(unsigned route, uint64_t addr, size_t len, unsigned mrrs) {
  const uint64_t key = memo_key(route, addr, len, mrrs, false);
  if (!key) return routes_[route]->read_ps(ctx_, addr, len, mrrs);
  return memo_value(key, [&] { return std::pair<uint64_t, uint64_t>(routes_[route]->read_ps(ctx_, addr, len, mrrs), 0); })
      .first;
}

DmiRoute::WriteTimes DmiCache::write_time(unsigned route, uint64_t addr, size_t len, unsigned mps) {
  const uint64_t key = memo_key(route, addr, len, mps, true);
  if (!key) return routes_[route]->write_ps(ctx_, addr, len, mps);
  const auto& v = memo_value(key, [&] {
    const DmiRoute::WriteTimes w = routes_[route]->write_ps(ctx_, addr, len, mps);
    return std::pair<uint64_t, uint64_t>(w.sent, w.landed);
  });
  return DmiRoute::WriteTimes{v.first, v.second};
}

}  // namespace dpusim::pcie
