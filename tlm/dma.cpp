#include "tlm/dma.h"

#include <algorithm>
#include <array>
#include <stdexcept>

#include "tlm/completer.h"
#include "tlm/link.h"
#include "tlm/requester.h"
#include "tlm/sim_context.h"
#include "tlm/timing.h"

namespace dpusim::pcie {

const char* fidelity_name(Fidelity f) { return f == Fidelity::Lt ? "lt" : "tlp"; }

Fidelity parse_fidelity(const std::string& name) {
  if (name == "tlp") return Fidelity::Tlp;
  if (name == "lt") return Fidelity::Lt;
  throw std::invalid_argument("fidelity '" + name + "' is not tlp or lt");
}

namespace {

// Carries one TLP of `bytes` on the wire across the hops in the order given, from time `t`,
// each link's direction busy until its `busy` entry; returns its arrival time.
template <typename Hops>
uint64_t cross(const SimContext& ctx, const Hops& hops, std::array<uint64_t, DmiRoute::kMaxHops>& busy, uint64_t t,
               uint64_t bytes) {
  const uint64_t propagation = ctx.timing.get(timing::link_propagation_ps);
  size_t i = 0;
  for (const DmiHop& h : hops) {
    if (h.link) {
      const uint64_t start = std::max(t, busy[i]);
      busy[i] = start + h.link->wire_ps(bytes);
      t = busy[i] + propagation;
    } else {
      t += ctx.timing.get(*h.traversal);
    }
    ++i;
  }
  return t;
}

template <typename T>
struct Reversed {
  const std::vector<T>& v;
  auto begin() const { return v.rbegin(); }
  auto end() const { return v.rend(); }
};

uint64_t header_bytes(uint64_t addr) { return (addr >> 32) ? 16 : 12; }

}  // namespace

uint64_t DmiRoute::read_ps(const SimContext& ctx, uint64_t addr, size_t len, unsigned mrrs) const {
  std::array<uint64_t, kMaxHops> up{}, down{};
  const uint64_t latency = read_latency ? ctx.timing.get(*read_latency) : 0;
  uint64_t done = 0;
  // The requester hands every request to its port at once; they queue on the first link.
  for_each_request_chunk(addr, len, mrrs, [&](uint64_t a, size_t n, size_t) {
    const uint64_t served = cross(ctx, hops, up, 0, header_bytes(a) + kTlpFramingBytes) + latency;
    // The target sends the request's completions together, the hops in reverse order.
    std::array<uint64_t, kMaxHops> rdown{};
    for (size_t i = 0; i < hops.size(); ++i) rdown[i] = down[hops.size() - 1 - i];
    for_each_completion_chunk(a, a + n, max_payload_size, read_completion_boundary, [&](uint64_t cur, uint64_t end) {
      const uint64_t payload = ((cur & 3) + (end - cur) + 3) / 4 * 4;
      done = std::max(done, cross(ctx, Reversed<DmiHop>{hops}, rdown, served, 12 + payload + kTlpFramingBytes));
    });
    for (size_t i = 0; i < hops.size(); ++i) down[hops.size() - 1 - i] = rdown[i];
  });
  return done;
}

DmiRoute::WriteTimes DmiRoute::write_ps(const SimContext& ctx, uint64_t addr, size_t len, unsigned mps) const {
  std::array<uint64_t, kMaxHops> up{};
  WriteTimes w;
  for_each_request_chunk(addr, len, mps, [&](uint64_t a, size_t n, size_t) {
    const uint64_t payload = ((a & 3) + n + 3) / 4 * 4;
    w.landed = std::max(w.landed, cross(ctx, hops, up, 0, header_bytes(a) + payload + kTlpFramingBytes));
    w.sent = up[0];
  });
  return w;
}

}  // namespace dpusim::pcie
