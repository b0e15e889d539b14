// The offload engine's parts on their own (models/vnet/virtio): the VQ lifecycle
// (vq_lifecycle.h) and the CVQ binding (ctrl_queue.h). The datapath that uses them is tested
// through the scenarios and tests/py/test_traffic.py.
#include <gtest/gtest.h>

#include <systemc>

#include <vector>

#include "tlm/function_dma.h"
#include "tlm/requester.h"
#include "tlm/sim_context.h"
#include "vnet/virtio/ctrl_queue.h"
#include "vnet/virtio/vq_lifecycle.h"

using dpusim::vnet::CtrlQueue;
using dpusim::vnet::CtrlReq;
using dpusim::vnet::Vq;
using dpusim::vnet::VqLifecycle;
using dpusim::vnet::VqState;

namespace {

struct LifecycleBench {
  dpusim::pcie::SimContext ctx{1};
  dpusim::pcie::Requester req{"req", ctx, [](dpusim::pcie::Tlp& t) { t.release(); return sc_core::SC_ZERO_TIME; },
                              [] { return uint16_t(0x0200); }};
  dpusim::pcie::FunctionDma dma{req};
  VqLifecycle vqs{ctx, "ep0", 0, 4, dma};
  std::vector<unsigned> runnable, enabled, stopping, destroying;
  LifecycleBench() {
    ctx.log.open_memory();
    vqs.on_runnable = [this](Vq& vq) { runnable.push_back(vq.index); };
    vqs.on_vq_enabled = [this](unsigned q) { enabled.push_back(q); };
    vqs.on_stopping = [this](Vq& vq) {
      EXPECT_EQ(vq.state, VqState::ENABLED) << "the hook runs before the state changes";
      stopping.push_back(vq.index);
    };
    vqs.on_destroying = [this](unsigned q) { destroying.push_back(q); };
  }
  // VQs 0 and 1 started, 2 and 3 created, the engine started.
  void start_two() {
    for (unsigned q = 0; q < 4; ++q) vqs.vq_create(q);
    vqs.vq_start(0);
    vqs.vq_start(1);
    vqs.engine_start();
  }
};

TEST(VqLifecycle, EngineEnableEnablesTheStartedQueuesThenServicesEachRunningOne) {
  LifecycleBench b;
  b.start_two();
  EXPECT_TRUE(b.runnable.empty());
  b.vqs.engine_enable();
  EXPECT_EQ(b.vqs.vq_state(0), VqState::ENABLED);
  EXPECT_EQ(b.vqs.vq_state(1), VqState::ENABLED);
  EXPECT_EQ(b.vqs.vq_state(2), VqState::CREATED);
  EXPECT_EQ(b.enabled, (std::vector<unsigned>{0, 1}));
  EXPECT_EQ(b.runnable, (std::vector<unsigned>{0, 1}));
  EXPECT_TRUE(b.vqs.running(b.vqs.vq(0)));
  EXPECT_FALSE(b.vqs.running(b.vqs.vq(2)));
}

TEST(VqLifecycle, GroupEnableReenablesDisabledQueuesAndStopsAtTheLastQueue) {
  LifecycleBench b;
  b.start_two();
  b.vqs.engine_enable();
  b.vqs.vq_group_disable(0, 1);
  EXPECT_EQ(b.vqs.vq_state(0), VqState::DISABLED);
  EXPECT_FALSE(b.vqs.running(b.vqs.vq(0)));
  b.runnable.clear();
  b.vqs.vq_group_enable(0, 9);  // past the last queue: clipped
  EXPECT_EQ(b.vqs.vq_state(0), VqState::ENABLED);
  EXPECT_EQ(b.vqs.vq_state(2), VqState::CREATED);  // never started
  EXPECT_EQ(b.runnable, (std::vector<unsigned>{0, 1}));
}

TEST(VqLifecycle, AMalformedRingStopsEveryQueueUntilTheEngineStartsAgain) {
  LifecycleBench b;
  b.start_two();
  b.vqs.engine_enable();
  EXPECT_TRUE(b.vqs.fail());
  EXPECT_FALSE(b.vqs.fail()) << "only the first error is reported";
  EXPECT_FALSE(b.vqs.running(b.vqs.vq(0)));
  EXPECT_FALSE(b.vqs.running(b.vqs.vq(1)));
  b.vqs.engine_stop();
  EXPECT_FALSE(b.vqs.engine_started());
  EXPECT_FALSE(b.vqs.engine_enabled());
  b.vqs.engine_start();
  b.vqs.engine_enable();
  EXPECT_TRUE(b.vqs.running(b.vqs.vq(0)));
  EXPECT_TRUE(b.vqs.fail());
}

TEST(VqLifecycle, StopAndDestroyTellTheEngineFirstAndResumeRestartsAtTheUsedIndex) {
  LifecycleBench b;
  b.start_two();
  b.vqs.engine_enable();
  b.vqs.vq_stop(1);
  b.vqs.vq_destroy(3);
  EXPECT_EQ(b.stopping, (std::vector<unsigned>{1}));
  EXPECT_EQ(b.destroying, (std::vector<unsigned>{3}));
  EXPECT_EQ(b.vqs.vq_state(1), VqState::STOPPED);
  EXPECT_EQ(b.vqs.vq_state(3), VqState::DESTROYED);
  Vq& vq = b.vqs.vq(0);
  vq.used_idx = 7;
  vq.last_avail = 9;  // two chains taken, not completed
  vq.busy = true;
  b.vqs.vq_resume(0);
  EXPECT_EQ(vq.last_avail, 7) << "a chain taken but not completed is taken again";
  EXPECT_FALSE(vq.busy);
  EXPECT_EQ(vq.state, VqState::CREATED);
  b.vqs.vq_create(0);
  EXPECT_EQ(vq.last_avail, 0);
  EXPECT_EQ(vq.used_idx, 0);
}

TEST(CtrlQueue, ARequestIsHandedOverOnceAndCompletedByItsHead) {
  CtrlQueue cvq;
  std::vector<CtrlReq> got;
  cvq.bind(8, [&](CtrlReq r) { got.push_back(std::move(r)); });
  EXPECT_TRUE(cvq.is_cvq(8));
  EXPECT_FALSE(cvq.is_cvq(7));
  EXPECT_EQ(cvq.index(), 8u);
  dpusim::vnet::Chain a, c;
  a.head = 3;
  c.head = 5;
  cvq.hand_over(a, CtrlReq{0, 3, 4, 0, {2, 0}});
  cvq.hand_over(c, CtrlReq{0, 5, 0, 1, {1}});
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].cls, 4);
  EXPECT_EQ(got[0].data, (std::vector<uint8_t>{2, 0}));
  EXPECT_FALSE(cvq.take_completed(4)) << "not pending";
  const auto done = cvq.take_completed(5);
  ASSERT_TRUE(done);
  EXPECT_EQ(done->head, 5);
  EXPECT_FALSE(cvq.take_completed(5)) << "completed once";
  cvq.unbind();
  EXPECT_FALSE(cvq.is_cvq(8));
  EXPECT_FALSE(cvq.take_completed(3)) << "unbinding forgets the pending requests";
}

}  // namespace
