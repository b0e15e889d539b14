// The common-config register file of one endpoint (one DW write's register rules, the reset), with
// the writes a driver makes, one DW at a time as PE1 applies them.
#include <gtest/gtest.h>

#include "vnet/virtio/virtio_device.h"

using namespace dpusim::vnet;
using namespace dpusim::virtio;

namespace {
struct Dev {
  dpusim::pcie::SimContext ctx{1};
  AppLog log{ctx};
  VnetOptions opt;
  std::unique_ptr<VirtioPciDevice> dev;
  Dev() {
    ctx.log.open_memory();
    dev = std::make_unique<VirtioPciDevice>(0, opt, ctx, log);
  }
  // A 32-bit write at a register offset (its DW and byte lanes).
  CommonWriteEffect w(uint16_t off, unsigned width, uint32_t v) {
    const uint16_t dw = off & ~3u;
    const unsigned lane = off & 3u;
    const uint8_t be = uint8_t(((1u << width) - 1) << lane);
    return dev->write_common_dw(dw, v << (8 * lane), be);
  }
};
}  // namespace

TEST(VirtioDevice, LinuxFeatureWriteOrderNeverLatchesTheHighWord) {
  Dev d;
  d.w(VIRTIO_PCI_COMMON_GFSELECT, 4, 0);
  d.w(VIRTIO_PCI_COMMON_GF, 4, 0x00431829);
  d.w(VIRTIO_PCI_COMMON_GFSELECT, 4, 1);
  d.w(VIRTIO_PCI_COMMON_GF, 4, 0x80000003);
  d.dev->latch_negotiated();
  EXPECT_EQ(d.dev->negotiated_features(), 0x00431829u);
  // High word first, then low, then a select change latches both.
  Dev e;
  e.w(VIRTIO_PCI_COMMON_GFSELECT, 4, 1);
  e.w(VIRTIO_PCI_COMMON_GF, 4, 0x80000003);
  e.w(VIRTIO_PCI_COMMON_GFSELECT, 4, 0);
  EXPECT_EQ(e.dev->common(VIRTIO_PCI_COMMON_GF, 4), 0u);  // reloaded from half 0
  e.w(VIRTIO_PCI_COMMON_GF, 4, 0x00431829);
  e.w(VIRTIO_PCI_COMMON_GFSELECT, 4, 1);
  EXPECT_EQ(e.dev->common(VIRTIO_PCI_COMMON_GF, 4), 0x80000003u);
  e.dev->latch_negotiated();
  EXPECT_EQ(e.dev->negotiated_features(), 0x8000000300431829ull);
}

TEST(VirtioDevice, ReadOnlyFieldInTheDwRollsBackEverything) {
  Dev d;
  const auto e = d.w(VIRTIO_PCI_COMMON_MSIX, 4, 0x00050001);  // msix 1, num_queues 5
  EXPECT_TRUE(e.rolled_back);
  EXPECT_EQ(d.dev->common(VIRTIO_PCI_COMMON_MSIX, 4), 0x0011ffffu);
  EXPECT_FALSE(d.w(VIRTIO_PCI_COMMON_MSIX, 2, 1).rolled_back);
  EXPECT_EQ(d.dev->config_msix_vector(), 1u);
  // queue_notify_off is not among the checked fields: it can be written.
  EXPECT_FALSE(d.w(VIRTIO_PCI_COMMON_Q_NOFF, 2, 7).rolled_back);
}

TEST(VirtioDevice, QueueSelectSavesAndLoadsTheWindowAndEnableSubmitsOnce) {
  Dev d;
  d.w(VIRTIO_PCI_COMMON_Q_SELECT, 2, 3);
  d.w(VIRTIO_PCI_COMMON_Q_SIZE, 2, 256);
  d.w(VIRTIO_PCI_COMMON_Q_DESCLO, 4, 0x1000);
  d.w(VIRTIO_PCI_COMMON_Q_AVAILLO, 4, 0x2000);
  // Enabled before the addresses are complete: submitted on the edge, and again when they are.
  auto e = d.w(VIRTIO_PCI_COMMON_Q_ENABLE, 2, 1);
  ASSERT_TRUE(e.vq_config.has_value());
  EXPECT_EQ(*e.vq_config, 3u);
  EXPECT_TRUE(e.vq_enabled_edge);
  e = d.w(VIRTIO_PCI_COMMON_Q_USEDLO, 4, 0x3000);
  ASSERT_TRUE(e.vq_config.has_value());
  EXPECT_FALSE(e.vq_enabled_edge);
  EXPECT_FALSE(d.w(VIRTIO_PCI_COMMON_Q_MSIX, 2, 4).vq_config.has_value());
  d.w(VIRTIO_PCI_COMMON_Q_SELECT, 2, 0);
  EXPECT_EQ(d.dev->common(VIRTIO_PCI_COMMON_Q_SIZE, 2), 1024u);
  const VqShadow& s = d.dev->shadow(3);
  EXPECT_EQ(s.size, 256);
  EXPECT_EQ(s.msix, 4);
  EXPECT_EQ(s.desc, 0x1000u);
  EXPECT_EQ(s.device, 0x3000u);
  EXPECT_TRUE(s.fully_configured());
  d.w(VIRTIO_PCI_COMMON_Q_SELECT, 2, 17);  // beyond num_queues: the window reads 0
  EXPECT_EQ(d.dev->common(VIRTIO_PCI_COMMON_Q_SIZE, 2), 0u);
  EXPECT_FALSE(d.w(VIRTIO_PCI_COMMON_Q_ENABLE, 2, 1).vq_config.has_value());
}

TEST(VirtioDevice, ResetKeepsSelectsVectorAndGeneration) {
  Dev d;
  d.w(VIRTIO_PCI_COMMON_DFSELECT, 4, 1);
  d.w(VIRTIO_PCI_COMMON_MSIX, 2, 0);
  d.w(VIRTIO_PCI_COMMON_STATUS, 1, 0x0f);
  d.w(VIRTIO_PCI_COMMON_Q_SELECT, 2, 2);
  d.w(VIRTIO_PCI_COMMON_Q_ENABLE, 2, 1);
  d.dev->reset_registers();
  EXPECT_EQ(d.dev->status(), 0);
  EXPECT_EQ(d.dev->queue_select(), 0);
  EXPECT_EQ(d.dev->common(VIRTIO_PCI_COMMON_DFSELECT, 4), 1u);
  EXPECT_EQ(d.dev->common(VIRTIO_PCI_COMMON_DF, 4), 0x80000003u);
  EXPECT_EQ(d.dev->config_msix_vector(), 0u);
  EXPECT_EQ(d.dev->config_generation(), 1u);
  EXPECT_EQ(d.dev->shadow(2).enable, 0);
  EXPECT_EQ(d.dev->shadow(2).notify_off, 2);
}

TEST(VnetOptions, FeaturesAndMacs) {
  VnetOptions o;
  EXPECT_EQ(o.device_features(), 0x8000000300431829ull);
  o.mrg_rxbuf = o.guest_csum = true;
  EXPECT_EQ(o.device_features(), 0x8000000300439829ull | 0x2);
  o.mac = {0x52, 0x54, 0x00, 0x12, 0x34, 0xfe};
  EXPECT_EQ(mac_str(o.ep_mac(1)), "52:54:00:12:34:ff");
}
