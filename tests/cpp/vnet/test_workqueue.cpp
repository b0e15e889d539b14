// The PCI-config workqueue (docs/vnet.md, "Workqueue"): one FIFO worker, each item queued, started and
// finished in order with its type; stale generations skipped; the 1024-item pool; shutdown
// discarding what is queued.
#include <gtest/gtest.h>

#include <systemc>

#include <string>
#include <vector>

#include "vnet/app/vnet_timing.h"
#include "vnet/app/workqueue.h"

using namespace dpusim::vnet;
using namespace sc_core;

namespace {
struct Bench {
  dpusim::pcie::SimContext ctx{1};
  AppLog log{ctx};
  dpusim::pcie::TimedQueue later{"later"};
  ConfigWorkqueue wq{ctx, log, later};
  uint32_t gen = 1;
  Bench() {
    ctx.log.open_memory();
    wq.execute = [](const WorkItem&, dpusim::pcie::Activity& w) { w.then(sc_time(1, SC_MS), [] {}); };
    wq.generation_of = [this](int) { return gen; };
    wq.progress_pes = [](dpusim::pcie::Activity&) {};
  }
};
std::vector<std::string> lines_with(const std::string& log, const std::string& what) {
  std::vector<std::string> out;
  size_t pos = 0;
  while ((pos = log.find('\n', pos)) != std::string::npos) {
    const size_t start = log.rfind('\n', pos - 1);
    const std::string line = log.substr(start == std::string::npos ? 0 : start + 1, pos - (start == std::string::npos ? 0 : start + 1));
    if (line.find(what) != std::string::npos) out.push_back(line);
    ++pos;
  }
  return out;
}
}  // namespace

TEST(Workqueue, EveryWorkTypeIsQueuedStartedAndFinishedInFifoOrder) {
  Bench b;
  for (unsigned t = 0; t < kWorkTypes; ++t) {
    WorkItem it;
    it.type = static_cast<WorkType>(t);
    it.device = 0;
    it.generation = 1;
    ASSERT_TRUE(b.wq.submit(it));
  }
  sc_start(sc_time(1, SC_SEC));
  const std::string log = b.ctx.log.take_memory();
  const uint64_t wake = b.ctx.timing.get(dpusim::vnet::timing::worker_wakeup_ps);
  const uint64_t progress = b.ctx.timing.get(dpusim::vnet::timing::worker_progress_ps);
  const auto started = lines_with(log, "\"event\":\"work_started\"");
  const auto finished = lines_with(log, "\"event\":\"work_finished\"");
  ASSERT_EQ(started.size(), kWorkTypes);
  ASSERT_EQ(finished.size(), kWorkTypes);
  EXPECT_EQ(lines_with(log, "\"event\":\"work_queued\"").size(), kWorkTypes);
  for (unsigned t = 0; t < kWorkTypes; ++t) {
    const std::string type = std::string("\"type\":\"") + work_type_name(static_cast<WorkType>(t)) + "\"";
    EXPECT_NE(started[t].find(type), std::string::npos) << started[t];
    EXPECT_NE(finished[t].find(type), std::string::npos) << finished[t];
    const uint64_t t0 = wake + t * (1000000000ull + progress);
    EXPECT_NE(started[t].find("\"time_ps\":" + std::to_string(t0)), std::string::npos) << started[t];
  }
  EXPECT_EQ(b.wq.processed(), kWorkTypes);
}

TEST(Workqueue, StaleItemsAreSkippedAndGenerationZeroNeverIs) {
  Bench b;
  WorkItem stale;
  stale.type = WorkType::ENGINE_START;
  stale.device = 0;
  stale.generation = 1;
  WorkItem never;
  never.type = WorkType::DELAYED_DESTROY;
  b.wq.submit(stale);
  b.wq.submit(never);
  b.gen = 2;
  sc_start(sc_time(1, SC_SEC));
  const std::string log = b.ctx.log.take_memory();
  EXPECT_EQ(lines_with(log, "Skipping stale work type 2 (gen=1)").size(), 1u);
  EXPECT_EQ(lines_with(log, "\"event\":\"work_finished\"").size(), 1u);
  EXPECT_EQ(b.wq.processed(), 1u);
}

TEST(Workqueue, PoolOf1024AndShutdownDiscards) {
  Bench b;
  WorkItem it;
  it.type = WorkType::CREATE_STATS_LIST;
  for (unsigned i = 0; i < 1024; ++i) ASSERT_TRUE(b.wq.submit(it));
  EXPECT_EQ(b.wq.pool_free(), 0u);
  EXPECT_FALSE(b.wq.submit(it));
  EXPECT_EQ(b.wq.dropped(), 0u);  // exhaustion is not counted as dropped
  sc_start(sc_time(2, SC_MS));    // the first item runs
  b.wq.shutdown();
  EXPECT_FALSE(b.wq.submit(it));
  EXPECT_EQ(b.wq.dropped(), 1u);
  sc_start(sc_time(1, SC_SEC));
  const std::string log = b.ctx.log.take_memory();
  EXPECT_EQ(lines_with(log, "Work pool exhausted (size=1024, pending=1024) - work item dropped").size(), 1u);
  EXPECT_EQ(lines_with(log, "\"event\":\"work_discarded\"").size(), 1022u);
  EXPECT_EQ(lines_with(log, "Shutting down PCI config workqueue (pending: 1022, processed: 1)").size(), 1u);
  EXPECT_EQ(b.wq.processed(), 2u);  // the one running at shutdown finishes
}
