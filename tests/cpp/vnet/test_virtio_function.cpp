// The virtio function PF and VF share (virtio_function.h): which lifecycle hooks one
// common-config write calls and in what order, the status edges, and the control-virtqueue
// decode, on a recording lifecycle over a real register file.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "vnet/virtio/virtio_function.h"
#include "vnet/virtio/virtio_spec.h"

using namespace dpusim::vnet;
using namespace dpusim::virtio;

namespace {

// Records every hook as "name(fn[,args])".
struct Recorder : VirtioFunction::Lifecycle {
  std::vector<std::string> calls;
  void add(std::string s) { calls.push_back(std::move(s)); }
  static std::string n(unsigned v) { return std::to_string(v); }
  void common_access(unsigned fn) override { add("access(" + n(fn) + ")"); }
  void rolled_back(unsigned fn) override { add("rolled_back(" + n(fn) + ")"); }
  void version_1_visible(unsigned fn) override { add("version_1(" + n(fn) + ")"); }
  void vq_config(unsigned fn, unsigned q, bool edge) override {
    add("vq_config(" + n(fn) + "," + n(q) + "," + (edge ? "enable" : "addresses") + ")");
  }
  void registers_written(unsigned fn) override { add("written(" + n(fn) + ")"); }
  void write_done(unsigned fn) override { add("done(" + n(fn) + ")"); }
  void status_written(unsigned fn, uint8_t old, uint8_t now) override {
    add("status(" + n(fn) + "," + n(old) + "->" + n(now) + ")");
  }
  void device_reset(unsigned fn) override { add("reset(" + n(fn) + ")"); }
  void acknowledge(unsigned fn) override { add("ack(" + n(fn) + ")"); }
  void driver(unsigned fn) override { add("driver(" + n(fn) + ")"); }
  void features_ok(unsigned fn) override { add("features_ok(" + n(fn) + ")"); }
  void driver_ok(unsigned fn) override { add("driver_ok(" + n(fn) + ")"); }
};

struct Fn {
  dpusim::pcie::SimContext ctx{1};
  AppLog log{ctx};
  VnetOptions opt;
  std::unique_ptr<VirtioPciDevice> dev;
  Recorder rec;
  VirtioFunction function{rec};
  Fn() {
    ctx.log.open_memory();
    dev = std::make_unique<VirtioPciDevice>(0, opt, ctx, log);
  }
  // A write of `width` bytes at register offset `off` (its DW and byte lanes), as function 7.
  std::vector<std::string> w(uint16_t off, unsigned width, uint32_t v) {
    rec.calls.clear();
    const unsigned lane = off & 3u;
    function.common_write(7, *dev, uint16_t(off & ~3u), v << (8 * lane), uint8_t(((1u << width) - 1) << lane));
    return rec.calls;
  }
  std::vector<std::string> edges(uint8_t before, uint8_t now) {
    rec.calls.clear();
    function.status_edges(3, before, now);
    return rec.calls;
  }
};

using Calls = std::vector<std::string>;

CtrlReq req(uint8_t cls, uint8_t cmd, std::vector<uint8_t> data = {}) {
  CtrlReq r;
  r.cls = cls;
  r.cmd = cmd;
  r.data = std::move(data);
  return r;
}

}  // namespace

TEST(VirtioFunction, StatusWriteCallsAccessWrittenThenStatusWithOldAndNew) {
  Fn f;
  // Power-on status is DEVICE_NEEDS_RESET (0x40) until the driver's first reset.
  EXPECT_EQ(f.w(VIRTIO_PCI_COMMON_STATUS, 1, 0), (Calls{"access(7)", "written(7)", "status(7,64->0)"}));
  EXPECT_EQ(f.w(VIRTIO_PCI_COMMON_STATUS, 1, VIRTIO_CONFIG_S_ACKNOWLEDGE),
            (Calls{"access(7)", "written(7)", "status(7,0->1)"}));
  EXPECT_EQ(f.dev->status(), VIRTIO_CONFIG_S_ACKNOWLEDGE);
}

TEST(VirtioFunction, WriteLeavingStatusUnchangedEndsInWriteDone) {
  Fn f;
  EXPECT_EQ(f.w(VIRTIO_PCI_COMMON_MSIX, 2, 5), (Calls{"access(7)", "written(7)", "done(7)"}));
  EXPECT_EQ(f.dev->config_msix_vector(), 5u);
}

TEST(VirtioFunction, ReadOnlyFieldWriteRollsBackAndStops) {
  Fn f;
  const uint16_t numq = f.dev->num_queues();
  EXPECT_EQ(f.w(VIRTIO_PCI_COMMON_NUMQ, 2, 1), (Calls{"access(7)", "rolled_back(7)"}));
  EXPECT_EQ(f.dev->num_queues(), numq);
}

TEST(VirtioFunction, FeatureSelectOneAnnouncesVersion1) {
  Fn f;
  EXPECT_EQ(f.w(VIRTIO_PCI_COMMON_DFSELECT, 4, 1), (Calls{"access(7)", "version_1(7)", "written(7)", "done(7)"}));
}

TEST(VirtioFunction, QueueEnableEdgeThenAddressCompletionEachConfigureTheQueue) {
  Fn f;
  f.w(VIRTIO_PCI_COMMON_Q_SELECT, 2, 1);
  EXPECT_EQ(f.w(VIRTIO_PCI_COMMON_Q_ENABLE, 2, 1),
            (Calls{"access(7)", "vq_config(7,1,enable)", "written(7)", "done(7)"}));
  // Enabled before its addresses: the last address write completes them and configures again.
  EXPECT_EQ(f.w(VIRTIO_PCI_COMMON_Q_DESCLO, 4, 0x1000), (Calls{"access(7)", "written(7)", "done(7)"}));
  EXPECT_EQ(f.w(VIRTIO_PCI_COMMON_Q_AVAILLO, 4, 0x2000), (Calls{"access(7)", "written(7)", "done(7)"}));
  EXPECT_EQ(f.w(VIRTIO_PCI_COMMON_Q_USEDLO, 4, 0x3000),
            (Calls{"access(7)", "vq_config(7,1,addresses)", "written(7)", "done(7)"}));
}

TEST(VirtioFunction, StatusEdgesInSpecOrderForEveryNewlySetBit) {
  Fn f;
  EXPECT_EQ(f.edges(0x00, 0x0f), (Calls{"ack(3)", "driver(3)", "features_ok(3)", "driver_ok(3)"}));
  EXPECT_EQ(f.edges(0x03, 0x0b), (Calls{"features_ok(3)"}));
  EXPECT_EQ(f.edges(0x0b, 0x0f), (Calls{"driver_ok(3)"}));
  EXPECT_EQ(f.edges(0x0f, 0x0f), Calls{});
  // FAILED and DEVICE_NEEDS_RESET are no edges of their own.
  EXPECT_EQ(f.edges(0x0f, 0x0f | VIRTIO_CONFIG_S_FAILED | VIRTIO_CONFIG_S_NEEDS_RESET), Calls{});
}

TEST(VirtioFunction, StatusZeroIsADeviceResetWhateverCameBefore) {
  Fn f;
  for (uint8_t before : {0x00, 0x01, 0x0f, 0x40, 0xff}) EXPECT_EQ(f.edges(before, 0), (Calls{"reset(3)"})) << int(before);
}

TEST(VirtioFunction, NothingIsNewlySetAgainstACopyOfAllOnes) {
  // The PF's status callback starts from 0xFF (never set): its first probe sees no edge.
  Fn f;
  EXPECT_EQ(f.edges(0xff, 0x0f), Calls{});
}

TEST(VirtioFunction, ControlRequestKinds) {
  using K = VirtioFunction::CtrlKind;
  EXPECT_EQ(VirtioFunction::ctrl_kind(req(VIRTIO_NET_CTRL_RX, 0)), K::BACKEND);
  EXPECT_EQ(VirtioFunction::ctrl_kind(req(VIRTIO_NET_CTRL_MAC, 1)), K::BACKEND);
  EXPECT_EQ(VirtioFunction::ctrl_kind(req(VIRTIO_NET_CTRL_VLAN, 0)), K::BACKEND);
  EXPECT_EQ(VirtioFunction::ctrl_kind(req(VIRTIO_NET_CTRL_MQ, VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET)), K::MQ_VQ_PAIRS_SET);
  EXPECT_EQ(VirtioFunction::ctrl_kind(req(VIRTIO_NET_CTRL_MQ, VIRTIO_NET_CTRL_MQ_RSS_CONFIG)), K::UNSUPPORTED_MQ);
  EXPECT_EQ(VirtioFunction::ctrl_kind(req(VIRTIO_NET_CTRL_ANNOUNCE, 0)), K::UNSUPPORTED_CLASS);
  EXPECT_EQ(VirtioFunction::ctrl_kind(req(0xff, 0)), K::UNSUPPORTED_CLASS);
}

TEST(VirtioFunction, VqPairsIsLittleEndianAndNeedsTwoBytes) {
  const uint8_t set = VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET;
  EXPECT_EQ(VirtioFunction::vq_pairs(req(VIRTIO_NET_CTRL_MQ, set, {0x02, 0x01})), 0x0102u);
  EXPECT_EQ(VirtioFunction::vq_pairs(req(VIRTIO_NET_CTRL_MQ, set, {0x04, 0x00, 0xee})), 4u);
  EXPECT_FALSE(VirtioFunction::vq_pairs(req(VIRTIO_NET_CTRL_MQ, set, {0x04})));
  EXPECT_FALSE(VirtioFunction::vq_pairs(req(VIRTIO_NET_CTRL_MQ, set)));
}

TEST(VirtioFunction, VqPairsValidFromOneToTheMaximum) {
  for (unsigned n = 0; n <= 9; ++n) EXPECT_EQ(VirtioFunction::vq_pairs_valid(n, 8), n >= 1 && n <= 8) << n;
}
