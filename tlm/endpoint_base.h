// The endpoint base: what every PCIe endpoint function of the platform is built on, in the
// spirit of libsystemctlm-soc's pci_device_base, so that no device model decodes TLPs itself.
//
// An EndpointBase is one function behind one port (PCIe r5.0 §2.2, §7.5.1). It owns
//  - the port, and the receive path: completions go to the DMA requester at once; every
//    request is served after the device's own service time (a TimingParam of the device), in
//    arrival order;
//  - config requests (Type 0 CfgRd/CfgWr for its function number) served from its Function's
//    config space, which captures the routing ID; other function numbers get UR;
//  - memory requests decoded against its BARs (Command.MSE, BAR sizes) and dispatched to the
//    BAR regions the device registered, with offsets relative to each region: a region's read
//    callback fills the bytes (none: they read 0), its write callback takes them (none: the
//    write is logged `write_ignored`); a request outside every enabled BAR, or running past
//    the end of its BAR, or straddling the boundary of a region the device marked as taking
//    whole accesses only, gets UR (a write is dropped and logged). A region may instead take
//    its requests whole (`forward`: an RTL block behind a hard IP core, which completes reads
//    itself);
//  - the MSI-X table and PBA as BAR regions (tlm/msix.h), with delivery as a posted write
//    through the DMA requester;
//  - the DMA requester (tags, MPS/MRRS splitting, completion timeout), following the
//    function's Device Control, and the fidelity of its DMA (tlm/dma.h): in lt mode it asks
//    the fabric through the port for direct memory pointers and completes its accesses through
//    its quantum keeper, so a device that does its DMA through dma() and its own delays through
//    after() runs loosely timed without knowing it.
// A device adds its registers and memories as regions and its behaviour in their callbacks.
//
// The function may be the endpoint's own or one owned elsewhere: an emulated function whose
// config space a firmware application serves (models/vnet) hands its Function in, and only
// memory requests for the regions firmware serves reach the endpoint.
#pragma once

#include <systemc>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tlm/function.h"
#include "tlm/msix.h"
#include "tlm/port.h"
#include "tlm/requester.h"
#include "tlm/sim_context.h"
#include "tlm/timed_queue.h"
#include "tlm/timing.h"

namespace dpusim::pcie {

// A range of one BAR and what accesses to it do. Offsets passed to the callbacks are relative
// to the region's start; an access is dispatched to the region holding its first byte and may
// run past the region's end (the callback decides what that means).
struct BarRegion {
  std::string name;  // for the log: "regs", "msix_table", "doorbells"...
  unsigned bar = 0;
  uint64_t offset = 0, size = 0;
  std::function<void(uint64_t off, uint8_t* out, size_t n)> read;         // null: reads 0
  std::function<void(uint64_t off, const uint8_t* in, size_t n)> write;   // null: ignored, logged
  // Set instead of read/write by a region whose owner serves TLPs itself: each request that
  // lands in the region (and lies wholly inside it, or it gets UR), as it arrived, at its
  // service time. The owner sends the completion of a read through the port.
  std::function<void(const tlp::Header& h, std::vector<uint8_t> payload)> forward;
  // Set (require_whole_accesses) where the device fails an access that straddles the region's
  // boundary: a request overlapping the region without lying wholly inside it, from whichever
  // side, is an Unsupported Request (UR for a read; a posted write dropped), logged.
  bool whole_accesses = false;
};

class EndpointBase : public sc_core::sc_module {
 public:
  // `fn`: the function's config space (see the header comment); `service`: the time from a
  // request's arrival to its service.
  EndpointBase(sc_core::sc_module_name name, SimContext& ctx, Function& fn, const TimingParam& service);

  Port port;
  Function& function() { return *fn_; }
  const Function& function() const { return *fn_; }
  // The function's config space is served elsewhere and moved to another copy (a firmware
  // application handing its emulated functions to a new process): the endpoint follows it
  // (Device Control for its requester, MSI-X control for its table).
  void rebind_function(Function& fn);
  Requester& dma() { return dma_; }
  // Throws std::invalid_argument naming the device when `f` is lt and it has no lt mode.
  void check_fidelity(Fidelity f) const;
  void set_fidelity(Fidelity f) {
    check_fidelity(f);
    dma_.set_fidelity(f);
  }
  Fidelity fidelity() const { return dma_.fidelity(); }
  // Why the device has no loosely timed mode (its work after a DMA completion is not written to
  // run at the device's local time, as after() does), or null when it has one.
  virtual const char* lt_refusal() const { return nullptr; }
  // Runs `fn` after `delay` of the device's own time: on its quantum keeper at its local time in
  // lt mode (at once, nested, when due within the quantum and the device allows nesting), on
  // `later_` in tlp mode. A device's delays inside DMA completions go through here.
  template <typename Fn>
  void after(const sc_core::sc_time& delay, Fn fn) {
    if (dma_.fidelity() != Fidelity::Lt) {
      later_.at(delay, std::move(fn));
      return;
    }
    const uint64_t due = dma_.local_ps() + delay.value();
    if (dma_.runs_now(due)) return dma_.run_now(due, fn);
    dma_.post_local(delay, std::move(fn));
  }
  // Whether the device's local time is ahead of the kernel's: in lt mode, inside its decoupled
  // work (never in tlp mode).
  bool ahead() const { return dma_.local_offset() != sc_core::SC_ZERO_TIME; }
  // Runs `fn` when the kernel's time reaches the device's local time (at once when the device
  // is not ahead). Two uses in lt mode:
  //  - a change the device's work makes to a register the host reads by MMIO (a done bit a
  //    driver polls): the host sees it at the device's time, not up to a quantum early as it
  //    may see a direct memory write;
  //  - a decision on state the host changes by MMIO at the kernel's time (a service pass that
  //    finds no doorbelled work and would go idle): taken at the device's time, it sees the
  //    doorbells the host rang before then, as in tlp mode.
  template <typename Fn>
  void at_local_time(Fn fn) {
    const sc_core::sc_time ahead = dma_.local_offset();
    if (ahead == sc_core::SC_ZERO_TIME) return fn();
    later_.at(ahead, std::move(fn));
  }

  // Adds a region (regions of one BAR must not overlap; throws std::logic_error if they do).
  void add_region(BarRegion r);
  // Makes the region `name` of `bar` take only accesses lying wholly inside it (BarRegion::
  // whole_accesses); throws std::logic_error when there is no such region.
  void require_whole_accesses(unsigned bar, const std::string& name);
  // Creates the MSI-X vectors of the capability at `cap` with the table and PBA in `bar` at
  // those offsets, as two regions: by default exactly the table's and the PBA's bytes; a device
  // that reserves a larger window for either gives its size (accesses in the window past the
  // structure are refused by Msix and logged `msix_bad_access`).
  Msix& add_msix(uint16_t cap, unsigned vectors, unsigned bar, uint64_t table_offset, uint64_t pba_offset,
                 uint64_t table_window = 0, uint64_t pba_window = 0);
  Msix& msix() { return *msix_; }
  bool has_msix() const { return msix_ != nullptr; }
  // Raises an MSI-X vector: "sent", "pending", "disabled", "no_bus_master" (tlm/msix.h).
  const char* raise_msix(unsigned vector) { return msix_->raise(vector); }

 protected:
  // Every completion the port receives: the DMA requester's by default. A device whose requests
  // do not go through the requester (an RTL block's own tags) takes its completions here.
  virtual void receive_completion(Tlp& t) { dma_.on_completion(t); }
  // Where a memory request lands: the function's enabled BARs by default.
  virtual std::optional<BarHit> decode(uint64_t address) const { return fn_->decode(address); }
  // The size of a BAR, which no access may run past: the function's BAR sizing by default.
  virtual uint64_t bar_size(unsigned bar) const { return fn_->bar_size(bar); }
  // The Completer ID of a read's completions at `hit`: the function's by default; an endpoint
  // that also serves other functions' regions (an SR-IOV PF's firmware for its VFs) gives theirs.
  virtual uint16_t completer_id(const BarHit& /*hit*/) const { return fn_->id(); }
  // The words a request the endpoint cannot serve is logged with ("the test endpoint").
  std::string unsupported_by = "the endpoint";

  SimContext& ctx_;
  TimedQueue later_;

 private:
  void receive(Tlp& t);
  void serve(const tlp::Header& h, std::vector<uint8_t> payload);
  void serve_config(const tlp::Header& h, const std::vector<uint8_t>& payload);
  void serve_memory(const tlp::Header& h, std::vector<uint8_t> payload);
  void unsupported(const tlp::Header& h, const char* reason);
  const BarRegion* region_at(unsigned bar, uint64_t offset) const;

  Function* fn_;
  const TimingParam& service_;
  Requester dma_;
  std::vector<BarRegion> regions_;
  std::unique_ptr<Msix> msix_;
};

}  // namespace dpusim::pcie
