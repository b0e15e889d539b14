// A host for C++ tests and benchmarks of one endpoint: the root complex (models/host) with its
// link straight to the endpoint's port, no switch, so the endpoint answers Type 0 config requests
// on bus 0 (as device 1: 00:01.0), and a script of host operations run by an SC_THREAD that
// blocks on each until it completes, as a driver does.
#pragma once

#include <systemc>

#include <cstdint>
#include <functional>
#include <vector>

#include "host/root_complex.h"
#include "tlm/endpoint_base.h"
#include "tlm/link.h"
#include "tlm/sim_context.h"

namespace dpusim::test {

class HostScript : public sc_core::sc_module {
 public:
  static constexpr uint16_t kBdf = 0x0008;  // 00:01.0
  static constexpr uint64_t kMsiAddress = 0xfee00000, kMsiData = 0x30;

  SC_HAS_PROCESS(HostScript);
  HostScript(sc_core::sc_module_name name, pcie::SimContext& ctx, pcie::EndpointBase& ep,
             const host::HostSpec& spec = {});

  host::RootComplex host;
  pcie::Link link;

  // The script runs from the next sc_start; `done()` is true once it has returned.
  void run(std::function<void()> script);
  bool done() const { return finished_; }

  uint32_t cfg_read(uint16_t off, unsigned size = 4);
  void cfg_write(uint16_t off, uint32_t value, unsigned size = 4);
  pcie::Result mem_read(uint64_t addr, size_t len);
  uint32_t read32(uint64_t addr);
  void write32(uint64_t addr, uint32_t value);
  void write(uint64_t addr, std::vector<uint8_t> bytes);
  void sleep(uint64_t ps);
  // Waits until the host has received `count` MSIs in all, or `timeout_ps`; true if they came.
  bool wait_msis(size_t count, uint64_t timeout_ps);
  // The offset of capability `id` in the standard list (0 if absent).
  uint16_t find_cap(uint8_t id);
  // What Linux's probe and a driver do before using the device: BAR0 at `bar0`, Device
  // Control's Max_Payload_Size and Max_Read_Request_Size (bytes), Memory Space and Bus Master
  // Enable, and, with `msix`, vector 0 aimed at kMsiAddress/kMsiData, unmasked, MSI-X enabled.
  void enable(uint32_t bar0, unsigned mps, unsigned mrrs, bool msix = true);

 private:
  void thread();
  pcie::Result wait_for(const std::function<void(host::RootComplex::Done)>& issue);

  std::function<void()> script_;
  bool finished_ = false;
  sc_core::sc_event go_, completed_, msi_;
};

}  // namespace dpusim::test
