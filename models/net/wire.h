// A full-duplex Ethernet wire between two ends. Each direction serialises frames in order: a
// frame occupies it for (max(len, 60) + FCS 4 + preamble/gap 20) × 8 bits / line rate, from
// max(now, end of the previous frame), and arrives after the propagation delay
// (net.wire.propagation_ps). The line rate is the sending end's, or the other end's when the
// sender is a peer with no rate of its own (default 100 Gb/s when neither has one).
//
// Every frame entering the wire is logged ("frame"), written to the wire's pcap if it has one,
// and counted sent in the platform's frame ledger; until it arrives it is in flight. When the
// log does not write the frame category (`--log summary`), the wire logs instead how many
// frames and bytes went each way in each simulated second ("frame_counters"), at the first frame
// of a later second and at the end of the run.
#pragma once

#include <systemc>

#include <memory>
#include <string>

#include "net/net_end.h"
#include "dpusim/p4/pcap.h"
#include "tlm/sim_context.h"
#include "tlm/timed_queue.h"

namespace dpusim::net {

class Wire : public sc_core::sc_module {
 public:
  // `pcap_path` empty = no capture.
  Wire(sc_core::sc_module_name name, pcie::SimContext& ctx, unsigned index, NetEnd& a, NetEnd& b,
       const std::string& pcap_path);

  unsigned index() const { return index_; }
  NetEnd& a() { return a_; }
  NetEnd& b() { return b_; }
  NetEnd& other(const NetEnd& end) { return &end == &a_ ? b_ : a_; }

  // `from` puts `bytes` on the wire toward the other end, no earlier than now + `delay` (the
  // local time offset of a temporally decoupled sender, tlm/dma.h). Returns the frame's id.
  uint64_t send(NetEnd& from, std::vector<uint8_t> bytes, const sc_core::sc_time& delay = sc_core::SC_ZERO_TIME);
  uint64_t in_flight() const { return in_flight_; }
  // The end of the run: the last second's counters logged, the capture flushed and closed.
  void finish();
  uint64_t line_rate_mbps(const NetEnd& from) const;

  uint32_t trace_frames = 0;  // frames that entered the wire (VCD)

 private:
  pcie::SimContext& ctx_;
  unsigned index_;
  NetEnd& a_;
  NetEnd& b_;
  pcie::TimedQueue later_;
  std::unique_ptr<p4::PcapWriter> pcap_;  // classic pcap, nanosecond timestamps
  sc_core::sc_time busy_until_[2];
  uint64_t in_flight_ = 0;
  struct Counters {
    uint64_t second = 0;
    uint64_t frames[2] = {0, 0}, bytes[2] = {0, 0};  // a to b, b to a
  } counters_;
  void count(unsigned dir, size_t len);
  void log_counters();
};

// The serialisation time of a frame of `len` bytes at `mbps`, in ps (rounded up).
uint64_t frame_wire_ps(size_t len, uint64_t mbps);

}  // namespace dpusim::net
