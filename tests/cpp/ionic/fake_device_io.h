// A fake of the NIC's DeviceIo (models/ionic/dma_io.h) for unit tests of the parts that take
// one: guest memory is a byte window at `base`, a read of it answers at once and a read outside
// it fails (as a DMA read completing UR would), writes are recorded in order (one outside the
// window lands nowhere), and the device's delays wait in a queue the test runs.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "../support/event_record.h"
#include "ionic/dma_io.h"
#include "ionic/rdma_completions.h"
#include "ionic/rdma_resources.h"
#include "tlm/sim_context.h"

namespace dpusim::ionic {

class FakeDeviceIo final : public DeviceIo {
  uint64_t base_;

 public:
  explicit FakeDeviceIo(uint64_t base, size_t size = 0x10000) : base_(base), mem(size, 0) {}

  std::vector<uint8_t> mem;
  std::vector<std::string> trace;  // "write <offset>+<len>", and what the test adds ("irq n"), in order
  std::deque<std::function<void()>> later;

  uint8_t* at(uint64_t addr) { return &mem[addr - base_]; }
  std::vector<uint8_t> bytes(uint64_t addr, size_t len) { return {at(addr), at(addr) + len}; }
  bool inside(uint64_t addr, uint64_t len) const { return addr >= base_ && addr + len <= base_ + mem.size(); }

  void gather(std::vector<BusRun> runs, GatherDone done) override {
    std::vector<uint8_t> out;
    for (const BusRun& r : runs) {
      if (!inside(r.addr, r.len)) return done({}, false);
      out.insert(out.end(), at(r.addr), at(r.addr) + r.len);
    }
    done(std::move(out), true);
  }
  // A posted write outside the window goes nowhere (the host drops a write to no memory).
  void write(uint64_t addr, const uint8_t* bytes, size_t len) override {
    if (!inside(addr, len)) return trace.push_back("write outside " + std::to_string(addr) + "+" + std::to_string(len));
    std::memcpy(at(addr), bytes, len);
    trace.push_back("write " + std::to_string(addr - base_) + "+" + std::to_string(len));
  }
  void after(sc_core::sc_time, std::function<void()> fn) override { later.push_back(std::move(fn)); }
  bool ahead() const override { return false; }
  void at_local_time(std::function<void()> fn) override { fn(); }
  // Runs the first delayed step (false when there is none).
  bool step() {
    if (later.empty()) return false;
    auto fn = std::move(later.front());
    later.pop_front();
    fn();
    return true;
  }
  // Runs every delayed step, and the steps they delay, in order.
  void run() {
    while (step()) {
    }
  }
};

// The RDMA CQs and EQs over the fake: their DMA writes in its trace, an interrupt as "irq n".
inline RdmaCompletions::Ports completions_over(pcie::SimContext& ctx, FakeDeviceIo& dev) {
  return {ctx, "ep0", [&dev](const std::vector<BusRun>& runs, const uint8_t* b) { dev.scatter(runs, b); },
          [&dev](uint64_t addr, const uint8_t* b, size_t n) { dev.write(addr, b, n); },
          [&dev](uint32_t n) { dev.trace.push_back("irq " + std::to_string(n)); }};
}

// What a test of an RDMA part starts from: the context and its events, guest memory at `Base`,
// the QP and region tables, and the CQs and EQs over the fake.
template <uint64_t Base>
struct RdmaPartTest : ::testing::Test {
  pcie::SimContext ctx{1};
  testing::EventRecord events{ctx.log};
  FakeDeviceIo dev{Base};
  RdmaResources res;
  RdmaCompletions cq{completions_over(ctx, dev)};
};

}  // namespace dpusim::ionic
