// One end of a wire: an endpoint's network port or a peer. A wire hands each frame to the
// other end at its arrival time; the end that sends gives the line rate.
#pragma once

#include <cstdint>
#include <string>

#include "net/frame.h"

namespace dpusim::net {

class Wire;

class NetEnd {
 public:
  virtual ~NetEnd() = default;
  // Called at the frame's arrival time (its last bit received). The end now owns the frame:
  // it counts it received or dropped in the platform's frame ledger.
  virtual void frame_arrived(Frame frame) = 0;
  // Line rate in Mb/s this end transmits at; 0 = whatever the other end runs at (a peer).
  virtual uint64_t line_rate_mbps() const = 0;
  // The name the log and the pcap file use ("ep0", "loopback", "python").
  virtual std::string end_name() const = 0;

  Wire* wire = nullptr;  // set when a wire is attached
};

}  // namespace dpusim::net
