#include "tlm/config_space.h"

#include <algorithm>
#include <cstdio>

#include "tlm/pci_regs.h"
#include "tlm/hex.h"

namespace dpusim::pcie {

using namespace dpusim::pci;


ConfigSpace::ConfigSpace(uint16_t size)
    : value_(size), reset_(size), wmask_(size), w1c_(size), sticky_(size) {
  if (size != PCI_CFG_SPACE_SIZE && size != PCI_CFG_SPACE_EXP_SIZE)
    throw ConfigLayoutError("config space size must be 256 or 4096, not " + std::to_string(size));
}

void ConfigSpace::check_range(uint16_t off, unsigned width, const char* what) const {
  if (width != 1 && width != 2 && width != 4)
    throw ConfigLayoutError(std::string(what) + ": width " + std::to_string(width) + " at " + hex(off));
  if (size_t(off) + width > value_.size())
    throw ConfigLayoutError(std::string(what) + ": register " + hex(off) + "+" +
                            std::to_string(width) + " past config space size " + hex(size()));
}

void ConfigSpace::define(uint16_t off, unsigned width, uint32_t reset, uint32_t rw_mask,
                         uint32_t w1c_mask) {
  check_range(off, width, "define");
  for (unsigned i = 0; i < width; ++i) {
    value_[off + i] = uint8_t(reset >> (8 * i));
    reset_[off + i] = value_[off + i];
    wmask_[off + i] = uint8_t(rw_mask >> (8 * i));
    w1c_[off + i] = uint8_t(w1c_mask >> (8 * i));
  }
}

void ConfigSpace::set_sticky(uint16_t off, unsigned width, uint32_t mask) {
  check_range(off, width, "set_sticky");
  for (unsigned i = 0; i < width; ++i) sticky_[off + i] = uint8_t(mask >> (8 * i));
}

uint32_t ConfigSpace::get_checked(uint16_t off, unsigned width) const {
  check_range(off, width, "get");
  uint32_t v = 0;
  for (unsigned i = 0; i < width; ++i) v |= uint32_t(value_[off + i]) << (8 * i);
  return v;
}

void ConfigSpace::set(uint16_t off, unsigned width, uint32_t value) {
  check_range(off, width, "set");
  for (unsigned i = 0; i < width; ++i) value_[off + i] = uint8_t(value >> (8 * i));
}

uint32_t ConfigSpace::rw_mask(uint16_t off, unsigned width) const {
  check_range(off, width, "rw_mask");
  uint32_t v = 0;
  for (unsigned i = 0; i < width; ++i) v |= uint32_t(wmask_[off + i]) << (8 * i);
  return v;
}

uint32_t ConfigSpace::read_dword(uint16_t off) const {
  off &= ~3u;
  if (size_t(off) + 4 > value_.size()) return 0;
  return get(off, 4);
}

uint32_t ConfigSpace::write_dword(uint16_t off, uint32_t data, uint8_t byte_enable) {
  off &= ~3u;
  if (size_t(off) + 4 > value_.size() || (byte_enable & 0xf) == 0) return 0;
  for (const auto& [dw, filter] : filters_)
    if (dw == off) filter(off, data, byte_enable);
  if ((byte_enable & 0xf) == 0) return 0;
  const uint32_t before = get(off, 4);
  for (unsigned i = 0; i < 4; ++i) {
    if (!(byte_enable & (1u << i))) continue;
    const uint8_t d = uint8_t(data >> (8 * i));
    uint8_t& v = value_[off + i];
    // RW bits take the written value; RW1C bits written 1 clear; everything else keeps.
    v = uint8_t((v & ~wmask_[off + i]) | (d & wmask_[off + i]));
    v = uint8_t(v & ~(d & w1c_[off + i]));
  }
  const uint32_t after = get(off, 4);
  for (const Hook& h : hooks_) {
    for (unsigned i = 0; i < 4; ++i) {
      const uint16_t b = uint16_t(off + i);
      if ((byte_enable & (1u << i)) && b >= h.start && b < h.start + h.len) {
        h.fn(off, before, after, byte_enable);
        break;
      }
    }
  }
  return before ^ after;
}

void ConfigSpace::on_write(uint16_t start, uint16_t len, WriteHook hook) {
  if (size_t(start) + len > value_.size())
    throw ConfigLayoutError("write hook " + hex(start) + "+" + std::to_string(len) + " past config space");
  hooks_.push_back(Hook{start, len, std::move(hook)});
}

void ConfigSpace::filter_write(uint16_t dw_off, WriteFilter filter) {
  if ((dw_off & 3) || size_t(dw_off) + 4 > value_.size())
    throw ConfigLayoutError("write filter at " + hex(dw_off) + " is not a DW inside config space");
  filters_.emplace_back(dw_off, std::move(filter));
}

uint16_t ConfigSpace::add_capability(uint8_t id, uint16_t size, uint16_t at) {
  if (at == 0) {
    at = 0x40;
    for (const Range& r : caps_)
      if (r.start < 0x100) at = std::max<uint16_t>(at, uint16_t((r.start + r.len + 3) & ~3u));
  }
  if (at < 0x40 || (at & 3) || size_t(at) + size > PCI_CFG_SPACE_SIZE || size < 2)
    throw ConfigLayoutError("capability " + hex(id) + " at " + hex(at) + " size " +
                            std::to_string(size) + " outside 0x40..0xff or not DW aligned");
  for (const Range& r : caps_)
    if (at < r.start + r.len && r.start < at + size)
      throw ConfigLayoutError("capability " + hex(id) + " at " + hex(at) + " overlaps the one at " +
                              hex(r.start));
  caps_.push_back(Range{at, size});
  define(at + PCI_CAP_LIST_ID, 1, id);
  define(at + PCI_CAP_LIST_NEXT, 1, 0);
  if (last_cap_ == 0) {
    define(PCI_CAPABILITY_LIST, 1, at);
    set_bits(PCI_STATUS, 2, PCI_STATUS_CAP_LIST);
  } else {
    set(last_cap_ + PCI_CAP_LIST_NEXT, 1, at);
  }
  last_cap_ = at;
  return at;
}

uint16_t ConfigSpace::add_ext_capability(uint16_t id, uint8_t version, uint16_t size, uint16_t at) {
  if (value_.size() < PCI_CFG_SPACE_EXP_SIZE)
    throw ConfigLayoutError("extended capability " + hex(id) + " in a 256-byte config space");
  if (at == 0) {
    at = 0x100;
    for (const Range& r : caps_)
      if (r.start >= 0x100) at = std::max<uint16_t>(at, uint16_t((r.start + r.len + 3) & ~3u));
  }
  if (at < 0x100 || (at & 3) || size_t(at) + size > PCI_CFG_SPACE_EXP_SIZE || size < 4)
    throw ConfigLayoutError("extended capability " + hex(id) + " at " + hex(at) +
                            " outside 0x100..0xfff or not DW aligned");
  for (const Range& r : caps_)
    if (at < r.start + r.len && r.start < at + size)
      throw ConfigLayoutError("extended capability " + hex(id) + " at " + hex(at) +
                              " overlaps the one at " + hex(r.start));
  caps_.push_back(Range{at, size});
  define(at, 4, uint32_t(id) | uint32_t(version & 0xf) << 16);
  if (last_ext_cap_ != 0) {
    const uint32_t prev = get(last_ext_cap_, 4);
    set(last_ext_cap_, 4, (prev & 0x000fffff) | uint32_t(at) << 20);
  }
  last_ext_cap_ = at;
  return at;
}

uint16_t ConfigSpace::find_capability(uint8_t id) const {
  if (!(get(PCI_STATUS, 2) & PCI_STATUS_CAP_LIST)) return 0;
  uint16_t pos = get(PCI_CAPABILITY_LIST, 1) & ~3u;
  for (int ttl = 48; pos >= 0x40 && ttl > 0; --ttl) {
    if (get(pos, 1) == id) return pos;
    pos = get(pos + 1, 1) & ~3u;
  }
  return 0;
}

uint16_t ConfigSpace::find_ext_capability(uint16_t id) const {
  if (value_.size() < PCI_CFG_SPACE_EXP_SIZE) return 0;
  uint16_t pos = 0x100;
  for (int ttl = 480; pos >= 0x100 && ttl > 0; --ttl) {
    const uint32_t h = get(pos, 4);
    if (h == 0 || h == 0xffffffff) return 0;
    if ((h & 0xffff) == id) return pos;
    pos = uint16_t(h >> 20);
  }
  return 0;
}

void ConfigSpace::seal() { reset_ = value_; }

void ConfigSpace::reset() {
  for (size_t i = 0; i < value_.size(); ++i)
    value_[i] = uint8_t((value_[i] & sticky_[i]) | (reset_[i] & ~sticky_[i]));
}

}  // namespace dpusim::pcie
