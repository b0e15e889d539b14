// The peers a wire's far end can be, besides another endpoint's port:
//  - LoopbackPeer: a loopback plug; it takes each frame (counted received) and sends it
//    straight back on the wire (counted sent again), so an endpoint receives what it sends;
//  - PythonPeer: a traffic source and sink driven by the scenario: frames arriving are counted
//    received and handed to Python (a Frame notification); Python injects frames with send().
#pragma once

#include <string>

#include "net/net_end.h"
#include "tlm/sim_context.h"
#include "net/wire.h"

namespace dpusim::net {

class LoopbackPeer : public NetEnd {
 public:
  explicit LoopbackPeer(pcie::SimContext& ctx) : ctx_(ctx) {}
  void frame_arrived(Frame frame) override;
  uint64_t line_rate_mbps() const override { return 0; }
  std::string end_name() const override { return "loopback"; }

 private:
  pcie::SimContext& ctx_;
};

// The notification a Python-driven peer posts when a frame reaches it (token = wire index,
// data = the frame).
inline constexpr pcie::NotificationKind kFrameNotification = "frame";

class PythonPeer : public NetEnd {
 public:
  explicit PythonPeer(pcie::SimContext& ctx) : ctx_(ctx) {}
  void frame_arrived(Frame frame) override;
  uint64_t line_rate_mbps() const override { return 0; }
  std::string end_name() const override { return "python"; }
  // A frame from the scenario onto the wire; returns its id.
  uint64_t send(std::vector<uint8_t> bytes) { return wire->send(*this, std::move(bytes)); }

 private:
  pcie::SimContext& ctx_;
};

}  // namespace dpusim::net
