#include "tlm/timing.h"
#include "testep/testep_timing.h"
#include "testep/test_endpoint.h"

#include <algorithm>
#include <cstring>

#include "tlm/capabilities.h"
#include "tlm/completer.h"
#include "tlm/pci_regs.h"

namespace dpusim::testep {

using namespace sc_core;
using namespace dpusim::pci;
using pcie::Tlp;

TestEndpoint::TestEndpoint(sc_module_name name, pcie::SimContext& ctx)
    : sc_module(name),
      port("port"),
      ctx_(ctx),
      fn_(this->name(), ctx),
      requester_("requester", ctx, [this](Tlp& t) { return port.send(t); }, [this] { return fn_.id(); }),
      later_("later"),
      memory_(kBar2Size) {
  pcie::ConfigSpace& cfg = fn_.cfg;
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
  fn_.set_pcie_cap(pcie::add_pcie_cap(cfg, cap));
  const uint16_t msix_cap = pcie::add_msix_cap(cfg, kMsixVectors, 0, kMsixTable, 0, kMsixPba);
  pcie::add_pm_cap(cfg, 0x0003);
  cfg.seal();
  msix_ = std::make_unique<pcie::Msix>(cfg, msix_cap, kMsixVectors, [this](uint64_t addr, uint32_t data, unsigned) {
    const uint8_t bytes[4] = {uint8_t(data), uint8_t(data >> 8), uint8_t(data >> 16), uint8_t(data >> 24)};
    requester_.write(addr, bytes, 4);
  });
  msix_->bus_master_enabled = [this] { return fn_.bus_master(); };
  pcie::follow_device_control(requester_, fn_);
  regs_[TEP_ID / 4] = kTestEndpointId;
  port.set_receiver([this](Tlp& t) { receive(t); });
}

void TestEndpoint::receive(Tlp& t) {
  if (tlp::is_completion(pcie::hdr(t).type)) {
    requester_.on_completion(t);
    return;
  }
  later_.at(ctx_.ps(testep::timing::service_ps),
            [this, r = pcie::take_request(t)]() mutable { serve(r.hdr, std::move(r.payload)); });
}

void TestEndpoint::serve(const tlp::Header& h, std::vector<uint8_t> payload) {
  auto ur = [&](const char* reason) {
    ctx_.event(name(), "unsupported_request").str("type", tlp::type_name(h.type)).str("reason", reason);
    if (tlp::is_non_posted(h.type)) {
      port.send(*pcie::make_error_completion(ctx_.pool, h, tlp::is_config(h.type) ? h.target_id : fn_.id(),
                                             tlp::CplStatus::UR));
    }
  };
  // A single-function device: a Type 0 request for another function number finds nothing.
  if ((h.type == tlp::Type::CfgRd0 || h.type == tlp::Type::CfgWr0) && (h.target_id & 7) != 0)
    return ur("no such function");
  switch (h.type) {
    case tlp::Type::CfgRd0:
      port.send(*pcie::make_config_completion(ctx_.pool, h, h.target_id, tlp::CplStatus::SC,
                                              fn_.config_read(h.register_offset)));
      return;
    case tlp::Type::CfgWr0: {
      uint32_t v = 0;
      for (unsigned b = 0; b < 4; ++b) v |= uint32_t(payload[b]) << (8 * b);
      fn_.config_write(h.register_offset, v, h.first_be, h.target_id);
      port.send(*pcie::make_config_completion(ctx_.pool, h, h.target_id, tlp::CplStatus::SC, 0));
      return;
    }
    case tlp::Type::MRd: {
      const uint64_t first = pcie::request_first_byte(h);
      const uint32_t count = pcie::request_byte_count(h);
      const auto hit = fn_.decode(first);
      if (!hit || hit->offset + count > fn_.bar_size(hit->bar)) return ur("address in no enabled BAR");
      std::vector<uint8_t> bytes(count);
      read_bar(hit->bar, hit->offset, bytes.data(), count);
      pcie::complete_memory_read(ctx_.pool, h, fn_.id(), bytes.data(), fn_.max_payload_size(),
                                 fn_.read_completion_boundary(), [this](Tlp* c) { port.send(*c); });
      return;
    }
    case tlp::Type::MWr: {
      const uint64_t first = pcie::request_first_byte(h);
      const uint32_t count = pcie::request_byte_count(h);
      const auto hit = fn_.decode(first);
      if (!hit || hit->offset + count > fn_.bar_size(hit->bar)) return ur("address in no enabled BAR");
      write_bar(hit->bar, hit->offset, payload.data() + (first & 3), count);
      return;
    }
    default:
      return ur("request type not supported by the test endpoint");
  }
}

void TestEndpoint::read_bar(unsigned bar, uint64_t off, uint8_t* out, size_t n) {
  if (bar == 2) {
    std::memcpy(out, memory_.data() + off, n);
    return;
  }
  std::memset(out, 0, n);
  if (off >= kMsixTable && off < kMsixTable + msix_->table_bytes()) {
    if (!msix_->table_read(uint32_t(off - kMsixTable), unsigned(n), out))
      ctx_.event(name(), "msix_bad_access").hex("offset", off).u64("len", n);
  } else if (off >= kMsixPba && off < kMsixPba + msix_->pba_bytes()) {
    if (!msix_->pba_read(uint32_t(off - kMsixPba), unsigned(n), out))
      ctx_.event(name(), "msix_bad_access").hex("offset", off).u64("len", n);
  } else if (off < TEP_REGS_END) {
    for (size_t i = 0; i < n && off + i < TEP_REGS_END; ++i) {
      const uint32_t a = uint32_t(off + i);
      out[i] = uint8_t(read_reg(a & ~3u) >> (8 * (a & 3)));
    }
  }
}

void TestEndpoint::write_bar(unsigned bar, uint64_t off, const uint8_t* in, size_t n) {
  if (bar == 2) {
    std::memcpy(memory_.data() + off, in, n);
    return;
  }
  if (off >= kMsixTable && off < kMsixTable + msix_->table_bytes()) {
    if (!msix_->table_write(uint32_t(off - kMsixTable), unsigned(n), in))
      ctx_.event(name(), "msix_bad_access").hex("offset", off).u64("len", n);
    return;
  }
  if (off >= TEP_REGS_END) {
    ctx_.event(name(), "write_ignored").hex("offset", off).u64("len", n);
    return;
  }
  // Registers are DWs: merge the written bytes into each DW they touch, then act on it.
  for (uint32_t dw = uint32_t(off) & ~3u; dw < off + n && dw < TEP_REGS_END; dw += 4) {
    uint32_t v = read_reg(dw);
    for (unsigned b = 0; b < 4; ++b) {
      const uint64_t a = dw + b;
      if (a >= off && a < off + n) v = (v & ~(0xffu << (8 * b))) | uint32_t(in[a - off]) << (8 * b);
    }
    write_reg(dw, v);
  }
}

uint32_t TestEndpoint::read_reg(uint32_t off) { return regs_[off / 4]; }

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
  else if (!fn_.bus_master()) refusal = "bus master disabled";
  if (refusal) {
    ctx_.event(name(), "dma_error").str("reason", refusal);
    finish_dma(false, ctrl);
    return;
  }
  status = TEP_DMA_STATUS_BUSY;
  later_.at(ctx_.ps(testep::timing::dma_setup_ps), [this, host, local, len, to_host, ctrl] {
    if (to_host) {
      const sc_time sent = requester_.write(host, memory_.data() + local, len);
      later_.at(sent, [this, ctrl] { finish_dma(true, ctrl); });
    } else {
      requester_.read(host, len, [this, local, ctrl](pcie::Result&& r) {
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
  const char* outcome = msix_->raise(vector);
  ctx_.event(name(), "msix_raise").u64("vector", vector).str("outcome", outcome);
}

}  // namespace dpusim::testep
