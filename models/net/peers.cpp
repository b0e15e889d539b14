#include "net/peers.h"

namespace dpusim::net {

void LoopbackPeer::frame_arrived(Frame frame) {
  ctx_.checker.frame_received();
  wire->send(*this, std::move(frame.bytes));
}

void PythonPeer::frame_arrived(Frame frame) {
  ctx_.checker.frame_received();
  pcie::Notification n(kFrameNotification);
  n.token = wire->index();
  n.data = std::move(frame.bytes);
  n.address = frame.id;
  ctx_.post(std::move(n));
}

}  // namespace dpusim::net
