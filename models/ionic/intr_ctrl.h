// The ionic interrupt controller: one 32-byte control block per interrupt at BAR0 + 0x2000
// (struct ionic_intr, Linux ionic_regs.h), the interrupt status bitmap at BAR0 + 0x1000, and
// interrupt n delivered as MSI-X vector n.
//
//  coal_init    coalescing time in device units (usecs × intr_coal_mult / intr_coal_div = 1 µs
//               each here). 0: an assertion is delivered at once; otherwise the first one starts
//               the timer, later ones before it expires merge into it, and the interrupt is
//               delivered when it expires. `coal` reads the units left.
//  mask         non-zero masks; 0 unmasks, and an assertion latched while masked is delivered
//               now (rocm-ernic's replay).
//  credits      the device adds one for each completion it posts against the interrupt; a write
//               returns [15:0] of them; reads back as a signed 16-bit count. Bit 16 (UNMASK)
//               unmasks with the replay above; bit 17 (RESET_COALESCE) stops a running timer,
//               delivering what it held.
//  mask_assert  non-zero: the mask is set again each time the interrupt is delivered (NAPI).
// Every interrupt starts masked. An assertion on a masked interrupt latches (a level: repeats
// collapse) and shows in the status bitmap.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ionic/ionic_if.h"
#include "tlm/endpoint_base.h"
#include "tlm/sim_context.h"

namespace dpusim::ionic {

class IntrCtrl {
 public:
  // `deliver(n)` sends MSI-X vector n and says what happened ("sent", "pending"...). The
  // coalescing timer runs on `device`'s own time (EndpointBase::after): at its local time in
  // lt mode, where the assertion that starts it is made.
  IntrCtrl(pcie::SimContext& ctx, std::string path, pcie::EndpointBase& device,
           std::function<const char*(unsigned)> deliver);

  // The control blocks' region (IONIC_MSIX_MAX_VECTORS × 32 bytes) and the status bitmap's.
  void read(uint64_t off, uint8_t* out, size_t n) const;
  void write(uint64_t off, const uint8_t* in, size_t n);
  void read_status(uint64_t off, uint8_t* out, size_t n) const;

  // The device asserts interrupt n (a queue's completions are posted).
  void assert_irq(unsigned n);
  // A completion was posted against interrupt n.
  void add_credit(unsigned n);

  bool masked(unsigned n) const { return n < blocks_.size() && blocks_[n].mask != 0; }
  uint64_t delivered() const { return delivered_; }
  uint32_t trace_pending = 0;  // the status bitmap (VCD)

 private:
  struct Block {
    uint32_t coal_init = 0, mask = 1, mask_assert = 0;
    int32_t credits = 0;
    bool pending = false;          // latched while masked
    bool timer = false;            // coalescing timer running
    uint64_t timer_end_ps = 0;
    uint64_t timer_gen = 0;
  };
  uint32_t reg(unsigned n, uint32_t off) const;
  void write_reg(unsigned n, uint32_t off, uint32_t v);
  void unmask(unsigned n);
  void deliver(unsigned n, const char* why);
  void expire(unsigned n, uint64_t gen);
  void update_trace();

  pcie::SimContext& ctx_;
  std::string path_;
  pcie::EndpointBase& device_;
  std::function<const char*(unsigned)> send_;
  std::vector<Block> blocks_;
  uint64_t delivered_ = 0;
};

}  // namespace dpusim::ionic
