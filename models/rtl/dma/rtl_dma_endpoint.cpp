// RtlDmaEndpoint (rtl_dma_endpoint.h): the function's config space and the binding of the hard
// IP core to the verilated block.
#include "rtl/dma/rtl_dma_endpoint.h"

#include "Vrtl_dma.h"
#include "rtl/dma/rtl_dma_regs.h"
#include "rtl/dma/rtl_dma_timing.h"
#include "tlm/capabilities.h"
#include "tlm/pci_regs.h"
#include "verilated_vcd_sc.h"

namespace dpusim::rtl::dma {

using namespace dpusim::pci;

RtlDmaFunction::RtlDmaFunction(const std::string& path, pcie::SimContext& ctx) : fn(path, ctx) {
  pcie::ConfigSpace& cfg = fn.cfg;
  pcie::init_type0_header(cfg, {kVendorId, kDeviceId, kClassDma, 1, kVendorId, kDeviceId, 0});
  pcie::define_memory_bar(cfg, 0, kBar0Size, false, false);
  pcie::PcieCapSpec cap;
  cap.port_type = PCI_EXP_TYPE_ENDPOINT;
  cap.devcap = 2;  // Max_Payload_Size Supported 512 B; no Extended Tag Field
  const unsigned gen = unsigned(ctx.timing.get(pcie::timing::link_dsp_gen));
  const unsigned width = unsigned(ctx.timing.get(pcie::timing::link_dsp_width));
  cap.linkcap = gen | width << 4;
  cap.linksta = uint16_t(gen | width << PCI_EXP_LNKSTA_NLW_SHIFT);
  fn.set_pcie_cap(pcie::add_pcie_cap(cfg, cap));
  msix_cap = pcie::add_msix_cap(cfg, kMsixVectors, 0, kMsixTable, 0, kMsixPba);
  pcie::add_pm_cap(cfg, 0x0003);
  cfg.seal();
}

// The verilated block and the signals bound to its ports, named as the RTL names them.
struct RtlDmaEndpoint::Block {
  Vrtl_dma model;
  sc_core::sc_signal<bool> clk{"clk"}, rst{"rst"};
  sc_core::sc_signal<bool> rx_valid{"rx_valid"}, rx_ready{"rx_ready"}, rx_last{"rx_last"};
  sc_core::sc_signal<uint32_t> rx_data{"rx_data"};
  sc_core::sc_signal<bool> tx_valid{"tx_valid"}, tx_ready{"tx_ready"}, tx_last{"tx_last"};
  sc_core::sc_signal<uint32_t> tx_data{"tx_data"};
  sc_core::sc_signal<bool> irq_valid{"irq_valid"}, irq_ready{"irq_ready"};
  sc_core::sc_signal<uint32_t> irq_vector{"irq_vector"};
  sc_core::sc_signal<uint32_t> cfg_id{"cfg_id"}, cfg_max_payload{"cfg_max_payload"}, cfg_max_read_req{"cfg_max_read_req"};
  sc_core::sc_signal<bool> cfg_bus_master{"cfg_bus_master"};
  sc_core::sc_signal<bool> cactive{"cactive"};
  // Verilator's trace, once opened: the kernel holds it on its list of trace files to the end
  // of the process, so it is never deleted (see close_rtl_trace).
  VerilatedVcdSc* vcd = nullptr;

  explicit Block(const char* name) : model(name) {
    model.clk(clk);
    model.rst(rst);
    model.rx_valid(rx_valid);
    model.rx_ready(rx_ready);
    model.rx_data(rx_data);
    model.rx_last(rx_last);
    model.tx_valid(tx_valid);
    model.tx_ready(tx_ready);
    model.tx_data(tx_data);
    model.tx_last(tx_last);
    model.irq_valid(irq_valid);
    model.irq_ready(irq_ready);
    model.irq_vector(irq_vector);
    model.cfg_id(cfg_id);
    model.cfg_bus_master(cfg_bus_master);
    model.cfg_max_payload(cfg_max_payload);
    model.cfg_max_read_req(cfg_max_read_req);
    model.cactive(cactive);
  }
};

// Verilator's tracing must be allowed before the model is built; it costs nothing until a trace
// is opened.
static const char* allow_tracing(const char* name) {
  Verilated::traceEverOn(true);
  return name;
}

RtlDmaEndpoint::RtlDmaEndpoint(sc_core::sc_module_name name, pcie::SimContext& ctx)
    : RtlDmaFunction(name.operator const char*(), ctx),
      TlpStreamEndpoint(name, ctx, fn, timing::hard_ip_ps, timing::clock_ps),
      block_(std::make_unique<Block>(allow_tracing("block"))) {
  unsupported_by = "the DMA endpoint's hard IP core";
  add_block_region("regs", 0, 0, kRegsWindow);
  add_msix(msix_cap, kMsixVectors, 0, kMsixTable, kMsixPba);
}

RtlDmaEndpoint::~RtlDmaEndpoint() { close_rtl_trace(); }

void RtlDmaEndpoint::set_clock(bool high) { block_->clk.write(high); }

void RtlDmaEndpoint::drive(const Inputs& in) {
  Block& b = *block_;
  b.rst.write(in.rst);
  b.rx_valid.write(in.rx_valid);
  b.rx_data.write(in.rx_data);
  b.rx_last.write(in.rx_last);
  b.tx_ready.write(in.tx_ready);
  b.irq_ready.write(in.irq_ready);
  b.cfg_id.write(in.cfg_id);
  b.cfg_bus_master.write(in.cfg_bus_master);
  b.cfg_max_payload.write(in.cfg_max_payload);
  b.cfg_max_read_req.write(in.cfg_max_read_req);
}

TlpStreamEndpoint::Outputs RtlDmaEndpoint::sample() const {
  const Block& b = *block_;
  Outputs o;
  o.rx_ready = b.rx_ready.read();
  o.tx_valid = b.tx_valid.read();
  o.tx_data = b.tx_data.read();
  o.tx_last = b.tx_last.read();
  o.irq_valid = b.irq_valid.read();
  o.irq_vector = b.irq_vector.read();
  o.cactive = b.cactive.read();
  return o;
}

void RtlDmaEndpoint::trace(sc_core::sc_trace_file* vcd) {
  Block& b = *block_;
  const std::string p = std::string(name()) + ".rtl.";
  sc_core::sc_trace(vcd, b.clk, p + "clk");
  sc_core::sc_trace(vcd, b.rst, p + "rst");
  sc_core::sc_trace(vcd, b.rx_valid, p + "rx_valid");
  sc_core::sc_trace(vcd, b.rx_ready, p + "rx_ready");
  sc_core::sc_trace(vcd, b.rx_data, p + "rx_data", 32);
  sc_core::sc_trace(vcd, b.rx_last, p + "rx_last");
  sc_core::sc_trace(vcd, b.tx_valid, p + "tx_valid");
  sc_core::sc_trace(vcd, b.tx_ready, p + "tx_ready");
  sc_core::sc_trace(vcd, b.tx_data, p + "tx_data", 32);
  sc_core::sc_trace(vcd, b.tx_last, p + "tx_last");
  sc_core::sc_trace(vcd, b.irq_valid, p + "irq_valid");
  sc_core::sc_trace(vcd, b.irq_ready, p + "irq_ready");
  sc_core::sc_trace(vcd, b.cfg_bus_master, p + "cfg_bus_master");
  sc_core::sc_trace(vcd, b.cfg_max_payload, p + "cfg_max_payload", 3);
  sc_core::sc_trace(vcd, b.cfg_max_read_req, p + "cfg_max_read_req", 3);
  sc_core::sc_trace(vcd, b.cactive, p + "cactive");
}

void RtlDmaEndpoint::open_rtl_trace(const std::string& path) { rtl_trace_path_ = path; }

// Verilator's trace opens once elaboration is done.
void RtlDmaEndpoint::start_of_simulation() {
  if (rtl_trace_path_.empty()) return;
  block_->vcd = new VerilatedVcdSc();
  block_->model.trace(block_->vcd, 99);
  block_->vcd->open(rtl_trace_path_.c_str());
}

// Closed, not deleted: the kernel keeps calling the trace files it holds at every time step
// (a closed VerilatedVcdSc ignores them), and VerilatedVcdSc never takes itself off its list.
void RtlDmaEndpoint::close_rtl_trace() {
  if (block_ && block_->vcd) block_->vcd->close();
}

}  // namespace dpusim::rtl::dma
