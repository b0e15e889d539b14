#include "net/wire.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "net/net_timing.h"
#include "tlm/fnv1a.h"

namespace dpusim::net {

using namespace sc_core;

namespace {
const pcie::EventCategory kFrameCategory("frame", false, "every frame entering a wire (event frame)");
const pcie::EventCategory kCountersCategory(
    "frame_counters", true,
    "frames and bytes per wire direction per simulated second (event frame_counters), logged when the frame "
    "category is not written");
const pcie::EventKind kFrameEvent("frame", kFrameCategory);
const pcie::EventKind kCountersEvent("frame_counters", kCountersCategory);
constexpr uint64_t kPsPerSecond = 1000000000000ull;
}  // namespace

std::string frame_digest(const std::vector<uint8_t>& bytes) {
  const uint64_t h = fnv1a(bytes.data(), bytes.size());
  char buf[20];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

uint64_t frame_wire_ps(size_t len, uint64_t mbps) {
  const uint64_t bytes = std::max(len, kEthMinFrameBytes) + kEthFcsBytes + kEthPreambleAndGapBytes;
  // bits / (mbps × 10^6 /s) = bits × 10^6 / mbps ps.
  return (bytes * 8 * 1000000 + mbps - 1) / mbps;
}

Wire::Wire(sc_module_name name, pcie::SimContext& ctx, unsigned index, NetEnd& a, NetEnd& b,
           const std::string& pcap_path)
    : sc_module(name), ctx_(ctx), index_(index), a_(a), b_(b), later_("later") {
  if (!pcap_path.empty()) {
    pcap_ = std::make_unique<p4::PcapWriter>();
    std::string error;
    if (!pcap_->open(pcap_path, true, &error)) throw std::runtime_error("wire capture: " + error);
  }
  a_.wire = this;
  b_.wire = this;
  busy_until_[0] = busy_until_[1] = SC_ZERO_TIME;
  // In the trace, a frame is a slice on its wire and direction from its first bit sent to its
  // last bit received.
  ctx.trace_rules.add(pcie::TraceRule::span("frame", "tx_ps", "rx_ps", "wires", "{path} {from}->{to}", "frame {frame}"));
}

uint64_t Wire::line_rate_mbps(const NetEnd& from) const {
  const NetEnd& to = &from == &a_ ? b_ : a_;
  if (from.line_rate_mbps()) return from.line_rate_mbps();
  if (to.line_rate_mbps()) return to.line_rate_mbps();
  return 100000;
}

uint64_t Wire::send(NetEnd& from, std::vector<uint8_t> bytes, const sc_time& delay) {
  const unsigned dir = &from == &a_ ? 0 : 1;
  NetEnd& to = other(from);
  const sc_time now = sc_time_stamp();
  const sc_time start = std::max(now + delay, busy_until_[dir]);
  const sc_time end = start + sc_time::from_value(frame_wire_ps(bytes.size(), line_rate_mbps(from)));
  busy_until_[dir] = end;
  const sc_time arrive = end + ctx_.ps(net::timing::wire_propagation_ps);
  Frame f{std::move(bytes), ctx_.pool.next_serial()};
  if (pcie::Event e = ctx_.event(name(), kFrameEvent)) {
    e.str("from", from.end_name())
        .str("to", to.end_name())
        .u64("frame", f.id)
        .u64("len", f.bytes.size())
        .str("digest", frame_digest(f.bytes))
        .u64("tx_ps", start.value())
        .u64("rx_ps", arrive.value());
  }
  if (!ctx_.log.writes(kFrameCategory)) count(dir, f.bytes.size());
  std::string error;
  if (pcap_ && !pcap_->write(start.value() / 1000, f.bytes.data(), f.bytes.size(), &error))
    throw std::runtime_error("wire capture: " + error);
  ctx_.checker.frame_sent();
  ++in_flight_;
  ++trace_frames;
  const uint64_t id = f.id;
  later_.at(arrive - now, [this, &to, f = std::move(f)]() mutable {
    --in_flight_;
    to.frame_arrived(std::move(f));
  });
  return id;
}

void Wire::count(unsigned dir, size_t len) {
  const uint64_t second = ctx_.now_ps() / kPsPerSecond;
  if (counters_.frames[0] + counters_.frames[1] && second != counters_.second) log_counters();
  counters_.second = second;
  ++counters_.frames[dir];
  counters_.bytes[dir] += len;
}

void Wire::log_counters() {
  if (counters_.frames[0] + counters_.frames[1] == 0) return;
  ctx_.event(name(), kCountersEvent)
      .u64("second", counters_.second)
      .str("a", a_.end_name())
      .str("b", b_.end_name())
      .u64("ab_frames", counters_.frames[0])
      .u64("ab_bytes", counters_.bytes[0])
      .u64("ba_frames", counters_.frames[1])
      .u64("ba_bytes", counters_.bytes[1]);
  counters_ = Counters{};
}

void Wire::finish() {
  log_counters();
  pcap_.reset();
}

}  // namespace dpusim::net
