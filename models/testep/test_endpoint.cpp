#include "testep/test_endpoint.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "testep/testep_timing.h"
#include "tlm/bytes.h"
#include "tlm/capabilities.h"
#include "tlm/pci_regs.h"

namespace dpusim::testep {

using namespace sc_core;
using namespace dpusim::pci;

TestEndpointFunction::TestEndpointFunction(const std::string& path, pcie::SimContext& ctx) : fn(path, ctx) {
  pcie::ConfigSpace& cfg = fn.cfg;
  pcie::init_type0_header(cfg, {kVendorId, kDeviceId, 0xff0000 /* unclassified device */, 1, kVendorId, 0x0001, 0});
  pcie::define_memory_bar(cfg, 0, kBar0Size, false, false);
  pcie::define_memory_bar(cfg, 2, kBar2Size, true, true);
  pcie::PcieCapSpec cap;
  cap.port_type = PCI_EXP_TYPE_ENDPOINT;
  cap.devcap = 2 | PCI_EXP_DEVCAP_EXT_TAG;  // Max_Payload_Size Supported 512 B
  const unsigned gen = unsigned(ctx.timing.get(pcie::timing::link_dsp_gen));
  const unsigned width = unsigned(ctx.timing.get(pcie::timing::link_dsp_width));
  cap.linkcap = gen | width << 4;
  cap.linksta = uint16_t(gen | width << PCI_EXP_LNKSTA_NLW_SHIFT);
  fn.set_pcie_cap(pcie::add_pcie_cap(cfg, cap));
  msix_cap = pcie::add_msix_cap(cfg, kMsixVectors, 0, kMsixTable, 0, kMsixPba);
  pcie::add_pm_cap(cfg, 0x0003);
  cfg.seal();
}

TestEndpoint::TestEndpoint(sc_module_name name, pcie::SimContext& ctx)
    : TestEndpointFunction(name.operator const char*(), ctx),
      EndpointBase(name, ctx, fn, timing::service_ps),
      memory_(kBar2Size),
      bench_(ctx, this->name(), dma(),
             [this](const sc_time& d, std::function<void()> fn) { after(d, std::move(fn)); },
             [this] { return fn.bus_master(); }) {
  unsupported_by = "the test endpoint";
  regs_[TEP_ID / 4] = kTestEndpointId;
  add_region({"regs", 0, 0, TEP_REGS_END, [this](uint64_t off, uint8_t* out, size_t n) { read_regs(off, out, n); },
              [this](uint64_t off, const uint8_t* in, size_t n) { write_regs(off, in, n); }});
  add_msix(msix_cap, kMsixVectors, 0, kMsixTable, kMsixPba);
  add_region({"bench", 0, TEP_BENCH_BASE, TEP_BENCH_END - TEP_BENCH_BASE,
              [this](uint64_t off, uint8_t* out, size_t n) { bench_.read(off, out, n); },
              [this](uint64_t off, const uint8_t* in, size_t n) { bench_.write(off, in, n); }});
  add_region({"memory", 2, 0, kBar2Size,
              [this](uint64_t off, uint8_t* out, size_t n) { std::memcpy(out, memory_.data() + off, n); },
              [this](uint64_t off, const uint8_t* in, size_t n) { std::memcpy(memory_.data() + off, in, n); }});
}

void TestEndpoint::read_regs(uint64_t off, uint8_t* out, size_t n) {
  for (size_t i = 0; i < n && off + i < TEP_REGS_END; ++i) {
    const uint32_t a = uint32_t(off + i);
    out[i] = uint8_t(regs_[a / 4] >> (8 * (a & 3)));
  }
}

void TestEndpoint::write_regs(uint64_t off, const uint8_t* in, size_t n) {
  // Registers are DWs: merge the written bytes into each DW they touch, then act on it.
  for (uint32_t dw = uint32_t(off) & ~3u; dw < off + n && dw < TEP_REGS_END; dw += 4) {
    write_reg(dw, bytes::merge_written(regs_[dw / 4], dw, off, in, n));
  }
}

void TestEndpoint::write_reg(uint32_t off, uint32_t value) {
  switch (off) {
    case TEP_ID:
    case TEP_DMA_COUNT:
      return;  // read-only
    case TEP_DMA_STATUS:
      regs_[off / 4] &= ~(value & (TEP_DMA_STATUS_DONE | TEP_DMA_STATUS_ERROR));
      return;
    case TEP_DMA_CTRL:
      regs_[off / 4] = value;
      if (value & TEP_DMA_CTRL_START) start_dma(value);
      return;
    case TEP_IRQ_RAISE:
      raise(value);
      return;
    default:
      regs_[off / 4] = value;
  }
}

void TestEndpoint::start_dma(uint32_t ctrl) {
  uint32_t& status = regs_[TEP_DMA_STATUS / 4];
  if (status & TEP_DMA_STATUS_BUSY) {
    ctx_.event(name(), "dma_ignored").str("reason", "engine busy");
    return;
  }
  const uint64_t host = uint64_t(regs_[TEP_DMA_HOST_HI / 4]) << 32 | regs_[TEP_DMA_HOST_LO / 4];
  const uint32_t local = regs_[TEP_DMA_LOCAL / 4], len = regs_[TEP_DMA_LEN / 4];
  const bool to_host = ctrl & TEP_DMA_CTRL_TO_HOST;
  ctx_.event(name(), "dma_start").str("dir", to_host ? "to_host" : "from_host").hex("host", host).hex("local", local).u64("len", len);
  const char* refusal = nullptr;
  if (len == 0 || uint64_t(local) + len > kBar2Size) refusal = "length or local offset outside device memory";
  else if (!fn.bus_master()) refusal = "bus master disabled";
  if (refusal) {
    ctx_.event(name(), "dma_error").str("reason", refusal);
    finish_dma(false, ctrl);
    return;
  }
  status = TEP_DMA_STATUS_BUSY;
  later_.at(ctx_.ps(testep::timing::dma_setup_ps), [this, host, local, len, to_host, ctrl] {
    if (to_host) {
      const sc_time sent = dma().write(host, memory_.data() + local, len);
      later_.at(sent, [this, ctrl] { finish_dma(true, ctrl); });
    } else {
      dma().read(host, len, [this, local, ctrl](pcie::Result&& r) {
        const bool ok = r.outcome == pcie::Outcome::SC;
        if (ok) std::copy(r.data.begin(), r.data.end(), memory_.begin() + local);
        else ctx_.event(name(), "dma_error").str("reason", std::string("read completed with ") + pcie::outcome_name(r.outcome));
        finish_dma(ok, ctrl);
      });
    }
  });
}

void TestEndpoint::finish_dma(bool ok, uint32_t ctrl) {
  uint32_t& status = regs_[TEP_DMA_STATUS / 4];
  status = (status & ~TEP_DMA_STATUS_BUSY) | (ok ? TEP_DMA_STATUS_DONE : TEP_DMA_STATUS_ERROR);
  if (ok) ++regs_[TEP_DMA_COUNT / 4];
  ctx_.event(name(), "dma_done").boolean("ok", ok);
  if (ctrl & TEP_DMA_CTRL_IRQ) raise((ctrl >> 8) & 0xff);
}

void TestEndpoint::raise(unsigned vector) {
  const char* outcome = raise_msix(vector);
  ctx_.event(name(), "msix_raise").u64("vector", vector).str("outcome", outcome);
}

}  // namespace dpusim::testep
