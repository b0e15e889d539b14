// The control virtqueue's handler (models/vnet/app/cvq_handler.h; virtio 1.2 §5.1.6.5), seen as
// the driver sees it: requests put on the control queue in host memory, the ack byte the
// device writes back. RX, MAC and VLAN are acknowledged, other classes and MQ commands refused;
// VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET is validated, a decrease applied before the reply, an
// increase answered at once and started in the background.
#include "vnet_fixture.h"

using namespace dpusim;
using namespace dpusim::testing;
using namespace dpusim::virtio;
using namespace dpusim::vnet::timing;

namespace {

struct CvqBench : VnetBench {
  CvqBench() : VnetBench(1, 0) { probe(); }
  // The time the ack byte at `ack` is written by the device (the driver's poll sees it then).
  uint64_t ack_time(uint64_t ack) { return acks_.at(ack); }
  uint64_t send(uint8_t cls, uint8_t cmd, const std::vector<uint8_t>& data) {
    const uint64_t ack = send_ctrl(0, cls, cmd, data);
    const uint64_t id = host.rc.watch_memory(ack, 1);
    watched_[id] = ack;
    host.rc.on_memory_write = [this](uint64_t id) { acks_[watched_.at(id)] = now(); };
    return ack;
  }

 private:
  std::map<uint64_t, uint64_t> watched_, acks_;
};

std::vector<std::string> worker_lines(EventRecord& ev, size_t from) { return ev.lines(vnet::kWorkerThread, from); }

}  // namespace

TEST(CvqHandler, EachControlClassGetsItsStatus) {
  CvqBench b;
  const size_t m = b.events.mark();
  const std::vector<uint64_t> acks{
      b.send(VIRTIO_NET_CTRL_RX, 0, {1}),                                      // PROMISC on
      b.send(VIRTIO_NET_CTRL_MAC, 1, {0x52, 0x54, 0x00, 0x00, 0x00, 0x01}),    // ADDR_SET
      b.send(VIRTIO_NET_CTRL_VLAN, 0, {5, 0}),                                 // ADD 5
      b.send(VIRTIO_NET_CTRL_ANNOUNCE, 0, {}),                                 // ACK
      b.send(VIRTIO_NET_CTRL_MQ, VIRTIO_NET_CTRL_MQ_RSS_CONFIG, {0, 0, 0, 0}),
      b.send(VIRTIO_NET_CTRL_GUEST_OFFLOADS, 0, {0, 0, 0, 0, 0, 0, 0, 0}),
  };
  b.settle();
  const std::vector<uint8_t> want_acks{VIRTIO_NET_OK, VIRTIO_NET_OK, VIRTIO_NET_OK, VIRTIO_NET_ERR, VIRTIO_NET_ERR, VIRTIO_NET_ERR};
  for (size_t k = 0; k < acks.size(); ++k) EXPECT_EQ(b.host_byte(acks[k]), want_acks[k]) << "request " << k;
  const std::vector<std::string> want{
      "ctrl_req received: cls=0, cmd=0, controller=controller@ep0", "RX ctrl cmd: 0 (handled by backend)",
      "ctrl_req received: cls=1, cmd=1, controller=controller@ep0", "MAC ctrl cmd: 1 (handled by backend)",
      "ctrl_req received: cls=2, cmd=0, controller=controller@ep0", "VLAN ctrl cmd: 0 (handled by backend)",
      "ctrl_req received: cls=3, cmd=0, controller=controller@ep0", "Unsupported ctrl class: 3",
      "ctrl_req received: cls=4, cmd=1, controller=controller@ep0", "Unsupported MQ cmd: 1",
      "ctrl_req received: cls=5, cmd=0, controller=controller@ep0", "Unsupported ctrl class: 5",
  };
  EXPECT_EQ(worker_lines(b.events, m), want);
  EXPECT_EQ(b.events.line_level("Unsupported MQ cmd: 1"), "warning");
  EXPECT_EQ(b.events.line_level("Unsupported ctrl class: 5"), "warning");
}

TEST(CvqHandler, VqPairsSetIsValidatedAgainstTheControllersMaximum) {
  CvqBench b;
  const size_t m = b.events.mark();
  const std::vector<uint64_t> acks{
      b.send(VIRTIO_NET_CTRL_MQ, VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET, {4}),  // one byte of two
      b.send(VIRTIO_NET_CTRL_MQ, VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET, {0, 0}),
      b.send(VIRTIO_NET_CTRL_MQ, VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET, {9, 0}),
      b.send(VIRTIO_NET_CTRL_MQ, VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET, {1, 0}),
  };
  b.settle();
  const std::vector<uint8_t> want_acks{VIRTIO_NET_ERR, VIRTIO_NET_ERR, VIRTIO_NET_ERR, VIRTIO_NET_OK};
  for (size_t k = 0; k < acks.size(); ++k) EXPECT_EQ(b.host_byte(acks[k]), want_acks[k]) << "request " << k;
  const std::string received = "ctrl_req received: cls=4, cmd=0, controller=controller@ep0";
  EXPECT_EQ(worker_lines(b.events, m),
            (std::vector<std::string>{received, "MQ_VQ_PAIRS_SET: data too short (1 bytes)", received, "Invalid num_qps: 0 (valid: 1-8)",
                                      received, "Invalid num_qps: 9 (valid: 1-8)", received, "MQ_VQ_PAIRS_SET: 1 -> 1 QPs",
                                      "num_qps unchanged"}));
  EXPECT_EQ(b.events.line_level("Invalid num_qps: 9 (valid: 1-8)"), "error");
  EXPECT_EQ(b.ctl(0).num_active_qps, 1u);
  EXPECT_EQ(b.app.primary().mq_start().spawned_threads(), 0u);
}

TEST(CvqHandler, AnIncreaseIsAnsweredAtOnceAndADecreaseOnlyOnceItIsDone) {
  CvqBench b;
  const uint64_t qp = 2 * (b.param(work_vq_set_conf_ps) + b.param(work_vq_start_ps)) + b.param(mq_qp_yield_ps);
  size_t m = b.events.mark();
  const uint64_t grow = b.send(VIRTIO_NET_CTRL_MQ, VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET, {3, 0});
  b.settle();
  const uint64_t h1 = b.events.line_time("MQ_VQ_PAIRS_SET: 1 -> 3 QPs", m);
  EXPECT_EQ(b.events.line_time("MQ start QPs 1 -> 3 spawned as joinable thread (parallel execution)", m), h1);
  const uint64_t started = b.events.line_time("Successfully started QPs 1-2", m);
  EXPECT_EQ(started, h1 + 2 * qp + b.param(work_vq_group_enable_ps));
  EXPECT_EQ(b.host_byte(grow), VIRTIO_NET_OK);
  EXPECT_LT(b.ack_time(grow), h1 + kMs);  // long before the queues run
  EXPECT_EQ(b.ctl(0).num_active_qps, 3u);

  m = b.events.mark();
  const uint64_t shrink = b.send(VIRTIO_NET_CTRL_MQ, VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET, {1, 0});
  b.settle();
  const uint64_t h2 = b.events.line_time("MQ_VQ_PAIRS_SET: 3 -> 1 QPs", m);
  EXPECT_EQ(b.events.line_time("Stopping QPs 1-2 (VQs 2-5)", m), h2);
  const uint64_t stopped = h2 + b.param(work_vq_group_disable_ps) + 4 * b.param(work_vq_stop_ps);
  EXPECT_EQ(b.events.line_time("Successfully stopped QPs 1-2", m), stopped);
  EXPECT_EQ(b.host_byte(shrink), VIRTIO_NET_OK);
  EXPECT_GT(b.ack_time(shrink), stopped);
  EXPECT_EQ(b.ctl(0).num_active_qps, 1u);
  for (unsigned q = 2; q < 6; ++q) EXPECT_EQ(b.ep(0).vqs().vq_state(q), vnet::VqState::STOPPED) << "VQ" << q;
  EXPECT_EQ(b.ep(0).vqs().vq_state(0), vnet::VqState::ENABLED);
}
