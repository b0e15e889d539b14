#include "ionic/intr_ctrl.h"

#include <algorithm>

#include "ionic/le_bytes.h"
#include "tlm/bytes.h"

namespace dpusim::ionic {

namespace {
constexpr uint64_t kUnitPs = 1000000;  // a coalescing unit: 1 µs (intr_coal_mult = div = 1)
}  // namespace

IntrCtrl::IntrCtrl(pcie::SimContext& ctx, std::string path, pcie::EndpointBase& device,
                   std::function<const char*(unsigned)> deliver)
    : ctx_(ctx), path_(std::move(path)), device_(device), send_(std::move(deliver)), blocks_(IONIC_MSIX_MAX_VECTORS) {}

uint32_t IntrCtrl::reg(unsigned n, uint32_t off) const {
  const Block& b = blocks_[n];
  switch (off) {
    case INTR_CTRL_COAL_INIT: return b.coal_init;
    case INTR_CTRL_MASK: return b.mask;
    case INTR_CTRL_CREDITS: return uint32_t(b.credits) & IONIC_INTR_CRED_COUNT_SIGNED;
    case INTR_CTRL_MASK_ASSERT: return b.mask_assert;
    case INTR_CTRL_COAL: {
      if (!b.timer) return 0;
      const uint64_t now = ctx_.now_ps();
      const uint64_t left = b.timer_end_ps > now ? b.timer_end_ps - now : 0;
      return uint32_t((left + kUnitPs - 1) / kUnitPs);
    }
    default: return 0;
  }
}

void IntrCtrl::read(uint64_t off, uint8_t* out, size_t n) const {
  for (size_t i = 0; i < n; ++i) {
    const uint64_t a = off + i;
    const unsigned v = unsigned(a / IONIC_INTR_CTRL_BYTES);
    const uint32_t r = uint32_t(a % IONIC_INTR_CTRL_BYTES);
    out[i] = v < blocks_.size() ? uint8_t(reg(v, r & ~3u) >> (8 * (r & 3))) : 0;
  }
}

void IntrCtrl::read_status(uint64_t off, uint8_t* out, size_t n) const {
  uint8_t bitmap[8] = {};
  for (unsigned v = 0; v < blocks_.size(); ++v)
    if (blocks_[v].pending) bitmap[v / 8] |= uint8_t(1u << (v % 8));
  for (size_t i = 0; i < n; ++i) out[i] = off + i < sizeof bitmap ? bitmap[off + i] : 0;
}

void IntrCtrl::write(uint64_t off, const uint8_t* in, size_t n) {
  // Registers are DWs: merge the written bytes into each DW they touch, then act on it.
  for (uint64_t dw = off & ~3ull; dw < off + n; dw += 4) {
    const unsigned v = unsigned(dw / IONIC_INTR_CTRL_BYTES);
    const uint32_t r = uint32_t(dw % IONIC_INTR_CTRL_BYTES);
    if (v >= blocks_.size()) return;
    // Write-only fields (credits) merge into 0, not their readback.
    uint32_t value = r == INTR_CTRL_CREDITS ? 0 : reg(v, r);
    write_reg(v, r, bytes::merge_written(value, dw, off, in, n));
  }
}

void IntrCtrl::write_reg(unsigned n, uint32_t off, uint32_t v) {
  Block& b = blocks_[n];
  switch (off) {
    case INTR_CTRL_COAL_INIT:
      b.coal_init = v;
      break;
    case INTR_CTRL_MASK:
      if (v) b.mask = v;
      else unmask(n);
      break;
    case INTR_CTRL_MASK_ASSERT:
      b.mask_assert = v;
      break;
    case INTR_CTRL_CREDITS: {
      const int32_t returned = int32_t(v & IONIC_INTR_CRED_COUNT_SIGNED);
      b.credits = int16_t(uint16_t(b.credits - returned));
      if (v & IONIC_INTR_CRED_RESET_COALESCE && b.timer) {
        b.timer = false;
        ++b.timer_gen;
        if (b.mask) b.pending = true;
        else deliver(n, "coalesce_reset");
      }
      if (v & IONIC_INTR_CRED_UNMASK) unmask(n);
      break;
    }
    default:
      break;  // coal (read-only) and the reserved words
  }
  update_trace();
}

void IntrCtrl::unmask(unsigned n) {
  Block& b = blocks_[n];
  b.mask = 0;
  if (b.pending && !b.timer) deliver(n, "replay");
}

void IntrCtrl::add_credit(unsigned n) {
  if (n < blocks_.size()) blocks_[n].credits = int16_t(uint16_t(blocks_[n].credits + 1));
}

void IntrCtrl::assert_irq(unsigned n) {
  if (n >= blocks_.size()) {
    ctx_.event(path_, "intr").u64("intr", n).str("outcome", "no_such_interrupt");
    return;
  }
  Block& b = blocks_[n];
  if (b.timer) return;  // merged into the running coalescing timer
  if (b.mask) {
    if (!b.pending) ctx_.event(path_, "intr").u64("intr", n).str("outcome", "latched");
    b.pending = true;
    update_trace();
    return;
  }
  if (b.coal_init == 0) return deliver(n, "assert");
  b.timer = true;
  b.timer_end_ps = ctx_.local_ps() + uint64_t(b.coal_init) * kUnitPs;
  const uint64_t gen = ++b.timer_gen;
  device_.after(sc_core::sc_time::from_value(uint64_t(b.coal_init) * kUnitPs), [this, n, gen] { expire(n, gen); });
}

void IntrCtrl::expire(unsigned n, uint64_t gen) {
  Block& b = blocks_[n];
  if (!b.timer || b.timer_gen != gen) return;
  b.timer = false;
  if (b.mask) {
    b.pending = true;
    update_trace();
    return;
  }
  deliver(n, "coalesced");
}

void IntrCtrl::deliver(unsigned n, const char* why) {
  Block& b = blocks_[n];
  b.pending = false;
  if (b.mask_assert) b.mask = 1;
  ++delivered_;
  const char* outcome = send_(n);
  ctx_.event(path_, "intr").u64("intr", n).str("cause", why).str("outcome", outcome);
  update_trace();
}

void IntrCtrl::update_trace() {
  uint32_t bits = 0;
  for (unsigned v = 0; v < blocks_.size() && v < 32; ++v)
    if (blocks_[v].pending) bits |= 1u << v;
  trace_pending = bits;
}

}  // namespace dpusim::ionic
