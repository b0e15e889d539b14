// RtlDmaEndpoint: the DMA endpoint of docs/cosim.md as a slot's endpoint: a PCIe function whose
// application logic is the SystemVerilog block hdl/rtl_dma.sv (verilated), behind the hard IP
// core of rtl/stream/stream_endpoint.h. This file has the function's config space and BAR0 (the
// block's register window, the MSI-X table and PBA the core keeps) and the binding of the core's
// streams to the verilated block's ports.
//
// Config space: Type 0 header (vendor 0x1234, device 0x0d3a, class DMA controller), BAR0 32-bit
// non-prefetchable 8 KiB, PCI Express capability (Max_Payload_Size Supported 512 bytes, no
// Extended Tag: the block uses 8 tags), MSI-X with one vector, Power Management.
#pragma once

#include <systemc>

#include <cstdint>
#include <memory>
#include <string>

#include "rtl/stream/stream_endpoint.h"
#include "tlm/function.h"
#include "tlm/sim_context.h"

namespace dpusim::rtl::dma {

// The function the endpoint is (its config space), built before the core that serves it.
struct RtlDmaFunction {
  RtlDmaFunction(const std::string& path, pcie::SimContext& ctx);
  pcie::Function fn;
  uint16_t msix_cap = 0;
};

class RtlDmaEndpoint : private RtlDmaFunction, public TlpStreamEndpoint {
 public:
  RtlDmaEndpoint(sc_core::sc_module_name name, pcie::SimContext& ctx);
  ~RtlDmaEndpoint() override;

  // The block's ports in the platform's VCD, as "<name>.rtl.<port>".
  void trace(sc_core::sc_trace_file* vcd);
  // Verilator's own trace of every signal in the block, written to `path` (a VCD) from the
  // start of simulation (call during elaboration) until close_rtl_trace().
  void open_rtl_trace(const std::string& path);
  void close_rtl_trace();

 protected:
  void set_clock(bool high) override;
  void drive(const Inputs& in) override;
  Outputs sample() const override;

 private:
  void start_of_simulation() override;

  struct Block;  // the verilated model and its signals (Vrtl_dma.h pulls in systemc.h's globals)
  std::unique_ptr<Block> block_;
  std::string rtl_trace_path_;
};

}  // namespace dpusim::rtl::dma
