// Configuration space engine (PCIe r5.0 §7.4 register attributes), one for every function.
//
// Each byte has a value, a write mask (RW bits) and a write-1-to-clear mask (RW1C bits); bits in
// neither are read-only to the host (RO, and HwInit once firmware has set them). Register
// semantics therefore live in masks, not in code: a function declares its registers with
// define() and the engine applies every host write with its byte enables. Side effects (slot
// control, FLR, MSI-X enable...) attach as write hooks on the registers that have them.
//
// Capabilities are laid out by add_capability()/add_ext_capability(), which link the standard
// list (from PCI_CAPABILITY_LIST, setting Status.Capabilities List) and the extended list (from
// 0x100) and refuse overlaps.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace dpusim::pcie {

class ConfigSpace {
 public:
  // `size` is 256 (PCI-compatible) or 4096 (PCIe extended).
  explicit ConfigSpace(uint16_t size = 4096);

  uint16_t size() const { return uint16_t(value_.size()); }

  // Declares a register of 1, 2 or 4 bytes: its reset value, RW bits and RW1C bits.
  void define(uint16_t off, unsigned width, uint32_t reset, uint32_t rw_mask = 0,
              uint32_t w1c_mask = 0);
  // Marks bits sticky (RWS/RW1CS): reset() keeps them.
  void set_sticky(uint16_t off, unsigned width, uint32_t mask);

  // Device-side access: no masks apply (hardware updating its own status, HwInit values).
  uint32_t get(uint16_t off, unsigned width) const {
    // The common case inline (a model reads Device Control or the Command register per DMA);
    // anything else through the checked path, which throws ConfigLayoutError.
    if ((width == 1 || width == 2 || width == 4) && size_t(off) + width <= value_.size()) {
      uint32_t v = 0;
      for (unsigned i = 0; i < width; ++i) v |= uint32_t(value_[off + i]) << (8 * i);
      return v;
    }
    return get_checked(off, width);
  }
  void set(uint16_t off, unsigned width, uint32_t value);
  void set_bits(uint16_t off, unsigned width, uint32_t bits) { set(off, width, get(off, width) | bits); }
  void clear_bits(uint16_t off, unsigned width, uint32_t bits) { set(off, width, get(off, width) & ~bits); }
  uint32_t rw_mask(uint16_t off, unsigned width) const;

  // Host access through a config request: DW-aligned offset and byte enables (bit i = byte i).
  // Offsets past size() read 0 and ignore writes, as an unimplemented register does.
  uint32_t read_dword(uint16_t off) const;
  // Applies the write and runs the hooks of every register it touched. Returns the bits whose
  // value changed.
  uint32_t write_dword(uint16_t off, uint32_t data, uint8_t byte_enable);

  // Called after a host write touching [start, start+len) with the DW offset, the DW value
  // before and after, and the byte enables.
  using WriteHook = std::function<void(uint16_t dw_off, uint32_t before, uint32_t after, uint8_t be)>;
  void on_write(uint16_t start, uint16_t len, WriteHook hook);

  // A DW whose write semantics are not masks alone (a modelled application's own register
  // rules, e.g. "the whole DW is written if any byte is enabled"): the filter sees the host's
  // data and byte enables before the masks apply and may rewrite both. One filter per DW.
  using WriteFilter = std::function<void(uint16_t dw_off, uint32_t& data, uint8_t& byte_enable)>;
  void filter_write(uint16_t dw_off, WriteFilter filter);

  // Lays out a standard capability of `size` bytes at `at` (0 = the next free DW from 0x40) and
  // links it at the end of the list. Returns its offset.
  uint16_t add_capability(uint8_t id, uint16_t size, uint16_t at = 0);
  // Same for an extended capability (header: ID [15:0], version [19:16], next [31:20]).
  uint16_t add_ext_capability(uint16_t id, uint8_t version, uint16_t size, uint16_t at = 0);
  // Offset of the first capability with `id`, or 0.
  uint16_t find_capability(uint8_t id) const;
  uint16_t find_ext_capability(uint16_t id) const;

  // Takes the current values as the reset image (after firmware set HwInit fields).
  void seal();
  // Conventional reset / FLR of the function: every non-sticky bit back to its reset value.
  void reset();

 private:
  void check_range(uint16_t off, unsigned width, const char* what) const;
  uint32_t get_checked(uint16_t off, unsigned width) const;
  std::vector<uint8_t> value_, reset_, wmask_, w1c_, sticky_;
  struct Hook {
    uint16_t start, len;
    WriteHook fn;
  };
  std::vector<Hook> hooks_;
  std::vector<std::pair<uint16_t, WriteFilter>> filters_;  // by DW offset, few per function
  struct Range {
    uint16_t start, len;
  };
  std::vector<Range> caps_;
  uint16_t last_cap_ = 0, last_ext_cap_ = 0;
};

// A configuration-space layout mistake made by a model (overlapping capabilities, an offset
// past the end): a bug in the simulator's own device description, reported at elaboration.
class ConfigLayoutError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

}  // namespace dpusim::pcie
