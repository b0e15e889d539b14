// The device state a live update moves (models/vnet/lu/lu_transfer.h): what the active
// captures of a device, through the export's bytes (lu_export.h), is what the standby sets.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "vnet/lu/lu_transfer.h"

using namespace dpusim::vnet;
using namespace dpusim::virtio;

namespace {

struct Devices {
  dpusim::pcie::SimContext& ctx;
  AppLog log{ctx};
  VnetOptions opt;
  AppDevices devs;
  explicit Devices(dpusim::pcie::SimContext& c) : ctx(c) {
    devs.devices.push_back(std::make_unique<VirtioPciDevice>(0, opt, ctx, log));
    devs.controllers.emplace_back();
    devs.trace_status.assign(1, 0);
  }
  VirtioPciDevice& dev() { return *devs.devices[0]; }
  void w(uint16_t off, unsigned width, uint32_t v) {
    dev().write_common_dw(off & ~3u, v << (8 * (off & 3u)), uint8_t(((1u << width) - 1) << (off & 3u)));
  }
};

// The export of `d`'s endpoint 0 written to bytes and read back, as the standby reads the SHM.
LuExport through_shm(Devices& d) {
  const LuExport e = lu_capture(d.opt, d.devs, {0}, 1);
  LuExport out;
  std::string error;
  EXPECT_TRUE(lu_export_read(lu_export_write(e), out, &error)) << error;
  return out;
}

TEST(LuTransfer, TheStandbyRestoresTheFeaturesQueuesAndMqStateTheActiveCaptured) {
  dpusim::pcie::SimContext ctx{1};
  ctx.log.open_memory();
  Devices active(ctx), standby(ctx);
  active.w(VIRTIO_PCI_COMMON_GFSELECT, 4, 0);
  active.w(VIRTIO_PCI_COMMON_GF, 4, 0x00431829);
  active.w(VIRTIO_PCI_COMMON_GFSELECT, 4, 1);
  active.w(VIRTIO_PCI_COMMON_GF, 4, 0x00000001);
  active.w(VIRTIO_PCI_COMMON_GFSELECT, 4, 0);  // latches the high half
  active.dev().latch_negotiated();
  active.w(VIRTIO_PCI_COMMON_Q_SELECT, 2, 3);
  active.w(VIRTIO_PCI_COMMON_Q_SIZE, 2, 256);
  active.w(VIRTIO_PCI_COMMON_Q_MSIX, 2, 4);
  active.w(VIRTIO_PCI_COMMON_Q_DESCLO, 4, 0x1000);
  active.w(VIRTIO_PCI_COMMON_Q_AVAILLO, 4, 0x2000);
  active.w(VIRTIO_PCI_COMMON_Q_USEDLO, 4, 0x3000);
  active.w(VIRTIO_PCI_COMMON_Q_ENABLE, 2, 1);
  active.w(VIRTIO_PCI_COMMON_Q_SELECT, 2, 0);  // saves queue 3's window into its shadow
  Controller& c = active.devs.controllers[0];
  c.mq_negotiated = true;
  c.max_queue_pairs = 8;
  c.num_active_qps = 4;

  const LuExport e = through_shm(active);
  ASSERT_EQ(e.devices.size(), 1u);
  EXPECT_EQ(e.presence_bitmap, 1u);
  EXPECT_EQ(e.devices[0].vhca_id, lu_vhca_id(0));
  const std::vector<VqShadow> shadows = lu_restore(e.devices[0], standby.devs, 0);

  VirtioPciDevice& dev = standby.dev();
  EXPECT_EQ(dev.status(), 0x0F);
  EXPECT_EQ(dev.prev_status, 0x0F);
  EXPECT_EQ(standby.devs.trace_status[0], 0x0F);
  EXPECT_EQ(dev.negotiated_features(), 0x0000000100431829ull);
  ASSERT_EQ(shadows.size(), dev.num_queues());
  const VqShadow& s = dev.shadow(3);
  EXPECT_EQ(s.size, 256);
  EXPECT_EQ(s.msix, 4);
  EXPECT_EQ(s.enable, 1);
  EXPECT_EQ(s.desc, 0x1000u);
  EXPECT_EQ(s.driver, 0x2000u);
  EXPECT_EQ(s.device, 0x3000u);
  EXPECT_EQ(shadows[3].desc, 0x1000u);
  EXPECT_FALSE(dev.shadow(2).enable);
  const Controller& r = standby.devs.controllers[0];
  EXPECT_TRUE(r.mq_negotiated);
  EXPECT_EQ(r.max_queue_pairs, 8u);
  EXPECT_EQ(r.num_active_qps, 4u);
}

TEST(LuTransfer, ASingleQueuePairDeviceIsRestoredWithOneQueuePair) {
  dpusim::pcie::SimContext ctx{1};
  ctx.log.open_memory();
  Devices active(ctx), standby(ctx);
  const LuExport e = through_shm(active);  // MQ never negotiated
  ASSERT_EQ(e.devices.size(), 1u);
  EXPECT_FALSE(e.devices[0].mq);
  lu_restore(e.devices[0], standby.devs, 0);
  EXPECT_FALSE(standby.devs.controllers[0].mq_negotiated);
  EXPECT_EQ(standby.devs.controllers[0].max_queue_pairs, 1u);
  EXPECT_EQ(standby.devs.controllers[0].num_active_qps, 1u);
}

}  // namespace
