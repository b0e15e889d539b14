// The quantum keeper (tlm/quantum_keeper.h): work runs in (due time, posting order), ahead of
// the kernel by at most the quantum, with the local time reported while it runs; nesting.
#include <gtest/gtest.h>

#include <systemc>

#include <utility>
#include <vector>

#include "tlm/quantum_keeper.h"
#include "tlm/sim_context.h"
#include "tlm/timing.h"

using namespace dpusim::pcie;
using namespace sc_core;

TEST(QuantumKeeper, RunsAheadByAtMostTheQuantumInDueOrder) {
  SimContext ctx(1);
  ctx.timing.set("lt.quantum_ps", 1000);
  QuantumKeeper k("keeper", ctx);
  std::vector<std::pair<uint64_t, uint64_t>> ran;  // (kernel time, local time)
  auto note = [&] { ran.emplace_back(sc_time_stamp().value(), ctx.local_ps()); };
  k.post(900, note);
  k.post(300, note);
  k.post(300, [&] {
    note();
    k.post(ctx.local_ps() + 500, note);  // 800: within the quantum of kernel time 0
  });
  k.post(2500, note);  // beyond: the keeper waits for kernel time 2500
  sc_start();
  const std::vector<std::pair<uint64_t, uint64_t>> expected = {{0, 300}, {0, 300}, {0, 800}, {0, 900}, {2500, 2500}};
  EXPECT_EQ(ran, expected);
  EXPECT_EQ(ctx.local_ps(), sc_time_stamp().value());  // not decoupled outside the keeper
}

TEST(QuantumKeeper, NestedWorkRunsAtOnceAtItsOwnLocalTime) {
  SimContext ctx(1);
  QuantumKeeper k("keeper", ctx);
  k.allow_nesting(true);
  std::vector<uint64_t> order;
  k.post(100, [&] {
    EXPECT_TRUE(k.runs_now(400));
    k.post(400, [&] { order.push_back(ctx.local_ps()); });  // nested: before the next line
    order.push_back(ctx.local_ps());                          // the poster's time is back
  });
  sc_start();
  EXPECT_EQ(order, (std::vector<uint64_t>{400, 100}));
}
