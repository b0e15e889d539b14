// The control virtqueue's binding to the application's IO context (virtio 1.2 §5.1.6.5; the
// DOCA guide: the CVQ's requests go to the application's ctrl_req handler): which queue is the
// CVQ, where its requests go, and the requests handed over and not yet completed, by head.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "vnet/virtio/split_ring.h"

namespace dpusim::vnet {

// A control request as the IO context hands it to the application's ctrl_req handler.
struct CtrlReq {
  unsigned ep = 0;
  uint16_t head = 0;  // identifies the request for ctrl_req_complete
  uint8_t cls = 0, cmd = 0;
  std::vector<uint8_t> data;
};

class CtrlQueue {
 public:
  // Queue `q` is the CVQ; its requests go to `deliver`.
  void bind(unsigned q, std::function<void(CtrlReq)> deliver) {
    bound_ = true;
    index_ = q;
    deliver_ = std::move(deliver);
  }
  // Unbound (the CVQ flushed): requests handed over and not completed are forgotten.
  void unbind() {
    bound_ = false;
    deliver_ = nullptr;
    pending_.clear();
  }
  bool is_cvq(unsigned q) const { return bound_ && q == index_; }
  unsigned index() const { return index_; }
  // `req`, read from `chain`, goes to the application; the chain waits for its completion.
  void hand_over(const Chain& chain, CtrlReq req) {
    pending_.push_back(chain);
    if (deliver_) deliver_(std::move(req));
  }
  // The pending request with head `head`, taken off the list (none: not pending).
  std::optional<Chain> take_completed(uint16_t head) {
    for (auto it = pending_.begin(); it != pending_.end(); ++it) {
      if (it->head != head) continue;
      Chain c = *it;
      pending_.erase(it);
      return c;
    }
    return std::nullopt;
  }

 private:
  bool bound_ = false;
  unsigned index_ = 0;
  std::function<void(CtrlReq)> deliver_;
  std::vector<Chain> pending_;  // requests handed to the application
};

}  // namespace dpusim::vnet
