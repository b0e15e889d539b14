// MSI-X delivery (PCIe r5.0 §6.1.4, §7.7.2): the vector table and Pending Bit Array that live in
// a function's BAR, and the rules that turn an interrupt request into a message.
//
// A vector is masked when its Vector Control mask bit or the Function Mask is set. An interrupt
// on a masked vector sets its pending bit and sends nothing; when the vector becomes unmasked
// with the bit set, the message goes out with the address and data current at that moment and
// the bit clears. With MSI-X disabled or Bus Master Enable clear, nothing can be sent: the
// request is dropped and counted.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tlm/config_space.h"

namespace dpusim::pcie {

class Msix {
 public:
  // `send(address, data, vector)` emits the message (a posted MWr from the function).
  using Send = std::function<void(uint64_t address, uint32_t data, unsigned vector)>;

  // `cap` is the MSI-X capability offset in `cfg`; hooks on its Message Control are installed.
  Msix(ConfigSpace& cfg, uint16_t cap, unsigned vectors, Send send);

  unsigned vectors() const { return unsigned(table_.size()); }
  bool enabled() const;
  bool function_masked() const;
  bool vector_masked(unsigned v) const;
  bool pending(unsigned v) const { return pending_[v]; }

  // BAR-side access to the table and the PBA, offsets relative to each region's start.
  // Only naturally aligned DW and QW accesses are defined (PCIe §6.1.4.2); others read 0 and
  // are ignored, and return false so the device can log them.
  bool table_read(uint32_t off, unsigned len, uint8_t* out) const;
  bool table_write(uint32_t off, unsigned len, const uint8_t* in);
  bool pba_read(uint32_t off, unsigned len, uint8_t* out) const;
  uint32_t table_bytes() const { return uint32_t(table_.size()) * 16; }
  uint32_t pba_bytes() const { return uint32_t((table_.size() + 63) / 64) * 8; }

  // The function wants to interrupt on `vector`. Returns what happened: "sent", "pending",
  // "disabled" or "no_bus_master".
  const char* raise(unsigned vector);

  // The capability now lives in `cfg` (same offset): a function's config space handed to a
  // new copy. Table and pending bits stay.
  void rebind(ConfigSpace& cfg);

  // Function Level Reset: every entry masked, addresses and data 0, nothing pending.
  void reset();

  std::function<bool()> bus_master_enabled = [] { return true; };
  uint64_t dropped = 0;

 private:
  struct Entry {
    uint32_t addr_lo = 0, addr_hi = 0, data = 0, ctrl = 1;  // masked at reset
  };
  void deliver_unmasked();
  void send(unsigned v);

  ConfigSpace* cfg_;
  uint16_t cap_;
  std::vector<Entry> table_;
  std::vector<bool> pending_;
  Send send_;
};

}  // namespace dpusim::pcie
