// The offload engine's delays, on its host endpoint's time (EndpointBase::after,
// at_local_time): an engine is no SystemC module. A VF's engine shares a liveness token with
// its DMA; what falls due after the engine is destroyed is dropped, not run on freed state.
#pragma once

#include <systemc>

#include <memory>
#include <utility>

#include "tlm/endpoint_base.h"

namespace dpusim::vnet {

class EngineTimer {
 public:
  // `alive`: the liveness token (null for an engine that lives as long as its host).
  EngineTimer(pcie::EndpointBase& host, std::shared_ptr<bool> alive) : host_(host), alive_(std::move(alive)) {}

  template <typename Fn>
  void after(const sc_core::sc_time& delay, Fn fn) {
    if (!alive_) return host_.after(delay, std::move(fn));
    host_.after(delay, guarded(std::move(fn)));
  }
  template <typename Fn>
  void at_local_time(Fn fn) {
    if (!alive_) return host_.at_local_time(std::move(fn));
    host_.at_local_time(guarded(std::move(fn)));
  }
  // The host's local time is ahead of the kernel's (lt mode, tlm/dma.h).
  bool ahead() const { return host_.ahead(); }

 private:
  template <typename Fn>
  auto guarded(Fn fn) {
    return [alive = alive_, fn = std::move(fn)]() mutable {
      if (*alive) fn();
    };
  }

  pcie::EndpointBase& host_;
  std::shared_ptr<bool> alive_;
};

}  // namespace dpusim::vnet
