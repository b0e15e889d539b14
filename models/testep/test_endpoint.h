// The test endpoint: a small PCIe function that exercises the fabric before real devices exist.
//
//  BAR0 (32-bit, 16 KiB): registers at 0x0000, the MSI-X table (32 vectors) at 0x2000 and its
//        PBA at 0x3000 (a table away from offset 0, as real devices place it);
//  BAR2 (64-bit prefetchable, 1 MiB): device memory, the DMA engine's local side;
//  a DMA engine started by MMIO that moves bytes between host memory and BAR2 memory, and
//  raises an MSI-X vector when done;
//  a register that raises any MSI-X vector on demand (for masking tests);
//  pcie-bench's DMA experiments at BAR0 0x100 (bench_engine.h).
// Every request is served after test_endpoint.service_ps, in arrival order. Built on the
// endpoint base (tlm/endpoint_base.h): this file has only the device's registers and engine.
#pragma once

#include <systemc>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "testep/bench_engine.h"
#include "tlm/endpoint_base.h"
#include "tlm/function.h"
#include "tlm/sim_context.h"

namespace dpusim::testep {

// BAR0 register offsets.
inline constexpr uint32_t TEP_ID = 0x00;          // RO: kTestEndpointId
inline constexpr uint32_t TEP_SCRATCH = 0x04;     // RW
inline constexpr uint32_t TEP_DMA_HOST_LO = 0x08; // RW: host address
inline constexpr uint32_t TEP_DMA_HOST_HI = 0x0c;
inline constexpr uint32_t TEP_DMA_LOCAL = 0x10;   // RW: offset in BAR2 memory
inline constexpr uint32_t TEP_DMA_LEN = 0x14;     // RW: bytes, 1..1 MiB
inline constexpr uint32_t TEP_DMA_CTRL = 0x18;    // W: start
inline constexpr uint32_t TEP_DMA_STATUS = 0x1c;  // RO busy; RW1C done, error
inline constexpr uint32_t TEP_IRQ_RAISE = 0x20;   // W: raise this MSI-X vector
inline constexpr uint32_t TEP_DMA_COUNT = 0x24;   // RO: transfers completed
inline constexpr uint32_t TEP_REGS_END = 0x28;

inline constexpr uint32_t TEP_DMA_CTRL_START = 1u << 0;
inline constexpr uint32_t TEP_DMA_CTRL_TO_HOST = 1u << 1;  // 0: host -> device memory
inline constexpr uint32_t TEP_DMA_CTRL_IRQ = 1u << 2;      // raise the vector in [15:8] when done
inline constexpr uint32_t TEP_DMA_STATUS_BUSY = 1u << 0;
inline constexpr uint32_t TEP_DMA_STATUS_DONE = 1u << 1;
inline constexpr uint32_t TEP_DMA_STATUS_ERROR = 1u << 2;

inline constexpr uint32_t kTestEndpointId = 0x7e57e9d0;
inline constexpr uint16_t kVendorId = 0x1234, kDeviceId = 0x7e57;
inline constexpr uint32_t kBar0Size = 16 << 10, kMsixTable = 0x2000, kMsixPba = 0x3000, kMsixVectors = 32;
inline constexpr uint64_t kBar2Size = 1 << 20;

// The function the test endpoint is (its config space), built before the endpoint base that
// serves it.
struct TestEndpointFunction {
  TestEndpointFunction(const std::string& path, pcie::SimContext& ctx);
  pcie::Function fn;
  uint16_t msix_cap = 0;
};

class TestEndpoint : private TestEndpointFunction, public pcie::EndpointBase {
 public:
  TestEndpoint(sc_core::sc_module_name name, pcie::SimContext& ctx);

  pcie::Requester& requester() { return dma(); }
  // The pcie-bench engine (BAR0 0x100, bench_engine.h).
  BenchEngine& bench() { return bench_; }

 private:
  void read_regs(uint64_t off, uint8_t* out, size_t n);
  void write_regs(uint64_t off, const uint8_t* in, size_t n);
  void write_reg(uint32_t off, uint32_t value);
  void start_dma(uint32_t ctrl);
  void finish_dma(bool ok, uint32_t ctrl);
  void raise(unsigned vector);

  std::vector<uint8_t> memory_;  // BAR2
  uint32_t regs_[TEP_REGS_END / 4] = {};
  BenchEngine bench_;
};

}  // namespace dpusim::testep
