// The P4 engine in the NIC's datapath (P4 engine guide, "The port model"): attached through
// the two frame filter slots the NIC already has, so no frame path is duplicated.
//
//  - It takes the transmit slot and chains to whoever held it: the previous holder (the
//    in-band control endpoint) sees each guest frame first, and a frame it claims never
//    reaches the pipeline. Everything else ingresses on P4_PORT_HOST (0).
//  - It takes the receive slot the same way: a frame from the uplink ingresses on
//    P4_PORT_UPLINK (1).
//  - The verdict: egress 0 goes into the guest's receive ring (to_guest), egress 1 onto the
//    uplink wire (to_net), or, with no peer on the uplink, counts in egress_errors; an
//    unassigned egress_spec forwards to the other port, any other port is a counted drop
//    (the engine's kDevice policy).
//  - detach() hands both slots back to their previous holders.
// With no program loaded (the slot's `p4: true` alone) every frame is forwarded to the other
// port, as a program that never assigns egress_spec would, and counted the same way; a guest
// granted `load` may push one.
// Each frame costs the pipeline's simulated time before its verdict (`defer`). The counters
// are the engine's (dpusim/p4/stats.h) and the device's own (to_guest, to_net, to_upstream,
// egress_errors); they survive a program replacement, which discards the old program's
// table entries with it (the new program starts from its own const entries).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "dpusim/p4/engine.h"
#include "ionic/frame_filter.h"

namespace dpusim::ionic {

struct P4Verdict {
  uint32_t in_port = 0;
  bool dropped = false;
  const char* reason = "";   // drop_reason_name, or "egress_error"
  uint32_t port = 0;         // egress port when forwarded
};

class P4Attachment {
 public:
  struct Hooks {
    std::function<void(std::function<void()>)> defer;    // run after the pipeline's cost
    std::function<void(NicFrame)> to_guest;
    std::function<bool(NicFrame&)> to_uplink;            // false: no peer on the uplink
    std::function<void(NicFrame&, const char* reason)> dropped;
    std::function<void(size_t len, const P4Verdict&)> observe;  // may be empty
  };

  P4Attachment(FilterSlot& tx, FilterSlot& rx, std::unique_ptr<p4::Engine> engine, Hooks hooks);
  ~P4Attachment();
  P4Attachment(const P4Attachment&) = delete;
  P4Attachment& operator=(const P4Attachment&) = delete;

  bool attached() const { return attached_; }
  void detach();

  // The running program, or null when none is loaded.
  p4::Engine* engine() { return engine_.get(); }
  const p4::Engine* engine() const { return engine_.get(); }
  // Replaces the running program: the counters carry over, the old entries go with it.
  void replace(std::unique_ptr<p4::Engine> engine);
  const p4::Stats& stats() const { return engine_ ? engine_->stats() : stats_; }

  // "rocm-ernic: P4 stats: host_in=3 host_out=0 ... egress_errors=3" (the guide's line).
  std::string stats_line() const;
  uint64_t frames_in_pipeline() const { return in_pipeline_; }
  uint64_t wire_frames_in_pipeline() const { return wire_in_pipeline_; }

 private:
  bool on_tx(NicFrame& frame);
  bool on_rx(NicFrame& frame);
  void run(uint32_t in_port, NicFrame frame);
  void verdict(uint32_t in_port, NicFrame& frame);
  p4::Stats& mutable_stats() { return engine_ ? engine_->mutable_stats() : stats_; }

  FilterSlot& tx_;
  FilterSlot& rx_;
  FrameFilter prev_tx_, prev_rx_;
  std::unique_ptr<p4::Engine> engine_;
  p4::Stats stats_;  // the counters while no program is loaded
  Hooks hooks_;
  bool attached_ = false;
  uint64_t in_pipeline_ = 0, wire_in_pipeline_ = 0;
};

// The guide's stats line for a set of counters.
std::string p4_stats_line(const p4::Stats& s);

}  // namespace dpusim::ionic
