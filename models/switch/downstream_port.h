// A switch downstream port (PCIe r5.0 §7.5.3 with Slot Implemented): the bridge function plus
// its hot-plug slot and the link below it, with the spec's semantics:
//  - Presence Detect State follows the card; a change sets Presence Detect Changed;
//  - Power Controller Control: power on trains the link (slot.link_train_ps later DLLLA = 1,
//    with the negotiated width and Current Link Speed in Link Status), power off takes it down
//    at once; each change of DLLLA sets Data Link Layer State Changed;
//  - every Slot Control write sets Command Completed (No Command Completed Support is 0);
//  - the hot-plug interrupt is an MSI sent on the rising edge of
//    HPIE && (enabled event bits set in Slot Status) (PCIe §6.7.3.4).
// How the slot is used (plug/unplug commands, the app's quirks) belongs to the device platform.
#pragma once

#include <cstdint>
#include <functional>

#include "switch/bridge.h"
#include "tlm/link.h"
#include "tlm/timed_queue.h"

namespace dpusim::sw {

class DownstreamPort : public Bridge {
 public:
  using SendMsi = std::function<void(uint64_t address, uint32_t data)>;

  DownstreamPort(std::string path, pcie::SimContext& ctx, unsigned index, pcie::Link& link, pcie::TimedQueue& later,
                 SendMsi send_msi);

  // Cold-plug state at elaboration: an occupied slot is powered with its link up; an empty one
  // is powered off (pciehp skips configuring a slot it finds already powered).
  void init_slot(bool occupied);

  unsigned index() const { return index_; }
  bool link_up() const { return link_.up(); }
  uint16_t slot_control() const;
  uint16_t slot_status() const;

  // VCD signals.
  uint16_t trace_slot_ctl = 0, trace_slot_sta = 0;
  bool trace_dllla = false;

 private:
  void on_slot_control(uint32_t before, uint32_t after);
  void set_link(bool up);
  uint16_t link_status(bool up) const;
  void set_event(uint16_t bits);
  void update_interrupt();
  void send_msi();
  void refresh_traces();

  unsigned index_;
  pcie::Link& link_;
  pcie::TimedQueue& later_;
  SendMsi send_msi_;
  pcie::SimContext& ctx_;
  uint16_t msi_cap_ = 0;
  bool present_ = false;
  bool irq_level_ = false;
  uint64_t power_generation_ = 0;
};

}  // namespace dpusim::sw
