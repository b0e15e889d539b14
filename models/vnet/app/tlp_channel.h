// The DOCA TLP channel as the device side runs it (the DOCA guide §7.9; vnet_pci_dev_lu.c's
// channel LU): every host TLP the switch does not hand to firmware is delivered to the PE1 of
// the process whose channel is primary and started. A live update moves that role: the
// standby creates a secondary channel, the active yields primary (set_primary(false)) and stops
// its own, the standby becomes primary. While no channel is primary, TLPs wait in the
// channel's queue and reach the next primary in arrival order, marked as having waited out a
// handover (pe1.h); nothing is dropped and the host sees no reset, only the added latency.
#pragma once

#include <cstdint>
#include <deque>

#include "tlm/tlp_payload.h"

namespace dpusim::vnet {

class Pe1;

class TlpChannel {
 public:
  // Host TLPs for the application (the switch's PE1 traffic).
  void deliver(pcie::Tlp& t, uint64_t now_ps);
  // `pe1` becomes the primary channel's consumer (nullptr: no channel is primary); TLPs that
  // waited meanwhile are handed to it first.
  void set_primary(Pe1* pe1);
  Pe1* primary() const { return primary_; }
  size_t waiting() const { return held_.size(); }

 private:
  struct Held {
    pcie::Tlp* tlp;
    uint64_t arrival_ps;
  };
  Pe1* primary_ = nullptr;
  std::deque<Held> held_;
};

}  // namespace dpusim::vnet
