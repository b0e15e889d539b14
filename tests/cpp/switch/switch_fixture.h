// The bench of the generic switch's unit tests: the root complex above the switch (its TLPs
// tapped, support/host_side.h), one device stub below each downstream port whose slot is
// occupied (support/device_stub.h; an empty slot's link ends in a bare stub too, down), the
// event log in memory. `enumerate` numbers the buses as Linux does and opens windows.
#pragma once

#include <gtest/gtest.h>

#include <systemc>

#include <memory>
#include <vector>

#include "../support/device_stub.h"
#include "../support/event_record.h"
#include "../support/host_side.h"
#include "../support/kernel.h"
#include "switch/pcie_switch.h"
#include "tlm/pci_regs.h"

namespace dpusim::testing {

inline constexpr uint64_t kUs = 1000000ull, kMs = 1000000000ull;

class SwitchBench {
 public:
  // One downstream port per entry of `occupied`.
  explicit SwitchBench(std::vector<bool> occupied)
      : links_(make_links(occupied.size())), sw(make_switch(occupied)), host(ctx, sw->up) {
    for (size_t i = 0; i < occupied.size(); ++i) {
      devices.push_back(std::make_unique<DeviceStub>("dev" + std::to_string(i), ctx, uint16_t(i)));
      links_[i]->connect(*sw->down[i], devices[i]->port, -1, -1);
    }
  }

  pcie::SimContext ctx{1};
  EventRecord events{ctx.log};

 private:
  std::vector<std::unique_ptr<pcie::Link>> links_;

 public:
  std::unique_ptr<sw::PcieSwitch> sw;
  HostSide host;
  std::vector<std::unique_ptr<DeviceStub>> devices;

  static uint64_t now() { return pcie::SimContext::now_ps(); }
  void run_for(uint64_t ps) { dpusim::testing::run_for(ctx, ps); }
  pcie::Link& link(unsigned i) { return *links_[i]; }
  static uint16_t dsp_bdf(unsigned i) { return uint16_t(0x0100 | i << 3); }
  // Port i's window: 1 MiB at 0xC0000000 + i MiB.
  static uint64_t window(unsigned i) { return 0xc0000000ull + uint64_t(i) * 0x100000; }

  // Bus numbers (the USP's secondary 1; port i's secondary and subordinate 2+i), each port's
  // memory window, and Memory Space and Bus Master on every bridge; run until done.
  void enumerate() {
    const unsigned n = sw->ports();
    std::vector<Op> ops{host.cfg_write(0x0000, pci::PCI_PRIMARY_BUS, 4, (1 + n) << 16 | 1 << 8)};
    for (unsigned i = 0; i < n; ++i) {
      ops.push_back(host.cfg_write(dsp_bdf(i), pci::PCI_PRIMARY_BUS, 4, (2 + i) << 16 | (2 + i) << 8 | 1));
      const uint32_t base = uint32_t(window(i) >> 16);
      ops.push_back(host.cfg_write(dsp_bdf(i), pci::PCI_MEMORY_BASE, 4, base << 16 | base));
    }
    command(true, true);
    for (const Op& op : ops) ASSERT_TRUE(op->done && op->result.outcome == pcie::Outcome::SC);
  }
  // Memory Space and Bus Master of the USP and every port, on or off.
  void command(bool mse, bool bme) {
    const uint32_t cmd = (mse ? pci::PCI_COMMAND_MEMORY : 0) | (bme ? pci::PCI_COMMAND_MASTER : 0);
    host.cfg_write(0x0000, pci::PCI_COMMAND, 2, cmd);
    for (unsigned i = 0; i < sw->ports(); ++i) host.cfg_write(dsp_bdf(i), pci::PCI_COMMAND, 2, cmd);
    run_for(kMs);
  }

 private:
  std::vector<std::unique_ptr<pcie::Link>> make_links(size_t n) {
    std::vector<std::unique_ptr<pcie::Link>> out;
    for (size_t i = 0; i < n; ++i)
      out.push_back(std::make_unique<pcie::Link>(("link_dsp" + std::to_string(i)).c_str(), ctx, pcie::timing::link_dsp_gen,
                                                 pcie::timing::link_dsp_width,
                                                 [this, i] { return sw ? int(sw->dsp(unsigned(i)).secondary()) : -1; }));
    return out;
  }
  std::unique_ptr<sw::PcieSwitch> make_switch(const std::vector<bool>& occupied) {
    sw::SwitchSpec spec;
    spec.occupied = occupied;
    std::vector<pcie::Link*> links;
    for (auto& l : links_) links.push_back(l.get());
    return std::make_unique<sw::PcieSwitch>("switch", ctx, spec, links);
  }
};

}  // namespace dpusim::testing
