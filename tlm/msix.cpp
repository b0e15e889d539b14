#include "tlm/msix.h"

#include <cstring>

#include "tlm/bytes.h"
#include "tlm/pci_regs.h"

namespace dpusim::pcie {

using namespace dpusim::pci;

Msix::Msix(ConfigSpace& cfg, uint16_t cap, unsigned vectors, Send send)
    : cfg_(nullptr), cap_(cap), table_(vectors), pending_(vectors, false), send_(std::move(send)) {
  rebind(cfg);
}

void Msix::rebind(ConfigSpace& cfg) {
  cfg_ = &cfg;
  // Clearing the Function Mask (or enabling MSI-X) may release pending vectors.
  cfg_->on_write(uint16_t(cap_ + PCI_MSIX_FLAGS), 2, [this, &cfg](uint16_t, uint32_t, uint32_t, uint8_t) {
    if (cfg_ == &cfg) deliver_unmasked();
  });
}

bool Msix::enabled() const { return cfg_->get(cap_ + PCI_MSIX_FLAGS, 2) & PCI_MSIX_FLAGS_ENABLE; }
bool Msix::function_masked() const { return cfg_->get(cap_ + PCI_MSIX_FLAGS, 2) & PCI_MSIX_FLAGS_MASKALL; }
bool Msix::vector_masked(unsigned v) const {
  return function_masked() || (table_[v].ctrl & PCI_MSIX_ENTRY_CTRL_MASKBIT);
}

bool Msix::table_read(uint32_t off, unsigned len, uint8_t* out) const {
  std::memset(out, 0, len);
  if (!((len == 4 && off % 4 == 0) || (len == 8 && off % 8 == 0)) || off + len > table_bytes()) return false;
  for (unsigned i = 0; i < len; i += 4) {
    const Entry& e = table_[(off + i) / 16];
    uint32_t v = 0;
    switch ((off + i) % 16) {
      case PCI_MSIX_ENTRY_LOWER_ADDR: v = e.addr_lo; break;
      case PCI_MSIX_ENTRY_UPPER_ADDR: v = e.addr_hi; break;
      case PCI_MSIX_ENTRY_DATA: v = e.data; break;
      case PCI_MSIX_ENTRY_VECTOR_CTRL: v = e.ctrl; break;
    }
    bytes::put_le32(out + i, v);
  }
  return true;
}

bool Msix::table_write(uint32_t off, unsigned len, const uint8_t* in) {
  if (!((len == 4 && off % 4 == 0) || (len == 8 && off % 8 == 0)) || off + len > table_bytes()) return false;
  for (unsigned i = 0; i < len; i += 4) {
    const unsigned v = (off + i) / 16;
    Entry& e = table_[v];
    const uint32_t w = bytes::get_le32(in + i);
    switch ((off + i) % 16) {
      case PCI_MSIX_ENTRY_LOWER_ADDR: e.addr_lo = w & ~3u; break;
      case PCI_MSIX_ENTRY_UPPER_ADDR: e.addr_hi = w; break;
      case PCI_MSIX_ENTRY_DATA: e.data = w; break;
      case PCI_MSIX_ENTRY_VECTOR_CTRL:
        e.ctrl = w & PCI_MSIX_ENTRY_CTRL_MASKBIT;  // other bits reserved (or TPH, not modelled)
        if (!vector_masked(v) && pending_[v] && enabled()) send(v);
        break;
    }
  }
  return true;
}

bool Msix::pba_read(uint32_t off, unsigned len, uint8_t* out) const {
  std::memset(out, 0, len);
  if (!((len == 4 && off % 4 == 0) || (len == 8 && off % 8 == 0)) || off + len > pba_bytes()) return false;
  for (unsigned i = 0; i < len * 8; ++i) {
    const size_t v = size_t(off) * 8 + i;
    if (v < pending_.size() && pending_[v]) out[i / 8] |= uint8_t(1u << (i % 8));
  }
  return true;
}

void Msix::send(unsigned v) {
  pending_[v] = false;
  const Entry& e = table_[v];
  send_(uint64_t(e.addr_hi) << 32 | e.addr_lo, e.data, v);
}

const char* Msix::raise(unsigned vector) {
  if (vector >= table_.size() || !enabled()) {
    ++dropped;
    return "disabled";
  }
  if (!bus_master_enabled()) {
    ++dropped;
    return "no_bus_master";
  }
  if (vector_masked(vector)) {
    pending_[vector] = true;
    return "pending";
  }
  send(vector);
  return "sent";
}

void Msix::deliver_unmasked() {
  if (!enabled() || function_masked()) return;
  for (unsigned v = 0; v < table_.size(); ++v)
    if (pending_[v] && !(table_[v].ctrl & PCI_MSIX_ENTRY_CTRL_MASKBIT)) send(v);
}

void Msix::reset() {
  for (Entry& e : table_) e = Entry{};
  pending_.assign(pending_.size(), false);
}

}  // namespace dpusim::pcie
