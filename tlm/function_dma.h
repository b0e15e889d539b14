// The DMA of one function as a device's datapath sees it: its accesses go through a requester
// (tags, MPS/MRRS, lt direct memory: tlm/requester.h) with the function's Requester ID.
//
// A function with a port of its own uses its requester as it is (rid 0: the requester's own
// ID). A function without one, an SR-IOV VF (PCIe r5.0 §9.1: a VF's requests go out through its
// PF's link with the VF's Routing ID), uses its PF's requester with its own Requester ID, so
// its completions come back to that requester, which matches them by tag and Requester ID.
//
// Such a function can go away while its requests are outstanding (an FLR, VF Enable cleared):
// given a liveness token, a completion that arrives after the token went false is consumed
// (its tag freed) and its continuation dropped, as PCIe r5.0 §6.6.2 has a function discard
// what completes after its FLR.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <utility>

#include "tlm/requester.h"

namespace dpusim::pcie {

class FunctionDma {
 public:
  // `rid`: the function's Requester ID, read at each request (null: the requester's own).
  // `alive`: the liveness token (null: the function lives as long as the requester).
  explicit FunctionDma(Requester& r, std::function<uint16_t()> rid = nullptr,
                       std::shared_ptr<const bool> alive = nullptr)
      : r_(r), rid_(std::move(rid)), alive_(std::move(alive)) {}

  Requester& requester() { return r_; }
  uint16_t rid() const { return rid_ ? rid_() : 0; }

  void read(uint64_t addr, size_t len, Requester::Done done) {
    if (!alive_) return r_.read(addr, len, std::move(done), rid());
    r_.read(addr, len,
            [alive = alive_, done = std::move(done)](Result&& res) mutable {
              if (*alive) done(std::move(res));
            },
            rid());
  }
  sc_core::sc_time write(uint64_t addr, const uint8_t* bytes, size_t len) { return r_.write(addr, bytes, len, rid()); }
  bool read_now(uint64_t addr, size_t len, uint8_t* out, uint64_t* due_ps) { return r_.read_now(addr, len, out, due_ps); }
  bool direct_due(uint64_t addr, size_t len, uint64_t* due_ps) { return r_.direct_due(addr, len, due_ps); }
  bool runs_now(uint64_t due_ps) const { return r_.runs_now(due_ps); }
  template <typename Fn>
  void run_now(uint64_t due_ps, Fn&& fn) {
    r_.run_now(due_ps, std::forward<Fn>(fn));
  }
  sc_core::sc_time local_offset() const { return r_.local_offset(); }

 private:
  Requester& r_;
  std::function<uint16_t()> rid_;
  std::shared_ptr<const bool> alive_;
};

}  // namespace dpusim::pcie
