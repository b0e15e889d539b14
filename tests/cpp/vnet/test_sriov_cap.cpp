// The PF's SR-IOV, ARI and ACS extended capabilities (sriov_cap.h): layout, write masks, the
// decoded state, VF BAR aperture sizing; the start-up checks' messages (sriov_limits.h); a
// DSP's ARI Forwarding (bridge_image.h).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "device/doc_error.h"
#include "tlm/pci_regs.h"
#include "vnet/switch/bridge_image.h"
#include "vnet/virtio/ep_image.h"
#include "vnet/sriov/sriov_limits.h"
#include "vnet/app/vnet_options.h"

using namespace dpusim::vnet;
using namespace dpusim::pci;
using dpusim::pcie::ConfigSpace;

namespace {
struct Pf {
  dpusim::pcie::SimContext ctx{1};
  AppLog log{ctx};
  std::unique_ptr<EpImages> img;
  explicit Pf(unsigned total_vfs) {
    ctx.log.open_memory();
    img = std::make_unique<EpImages>("ep0", ctx, log, total_vfs);
  }
  ConfigSpace& cfg() { return img->virtio().cfg; }
  uint32_t rd(uint16_t off) { return cfg().read_dword(off); }
  void wr(uint16_t off, uint32_t v, uint8_t be = 0xf) { cfg().write_dword(off, v, be); }
};
constexpr uint16_t S = VNET_SRIOV_CAP;
}  // namespace

TEST(SriovCap, ExtendedSpaceReadsZeroWithoutTotalVfs) {
  Pf pf(0);
  for (uint16_t off = 0x100; off < 0x1000; off += 4) ASSERT_EQ(pf.rd(off), 0u) << off;
  EXPECT_EQ(pf.img->sriov(), nullptr);
}

TEST(SriovCap, ChainSriovAriAcsEachVersionOne) {
  Pf pf(4);
  EXPECT_EQ(pf.rd(0x100), 0x14010010u);  // SR-IOV, v1, next 0x140
  EXPECT_EQ(pf.rd(0x140), 0x1481000eu);
  EXPECT_EQ(pf.rd(0x148), 0x0001000du);  // ACS, v1, next 0
}

TEST(SriovCap, ReadOnlyFieldsAndResetValues) {
  Pf pf(4);
  EXPECT_EQ(pf.rd(S + PCI_SRIOV_CAP), 0u);
  EXPECT_EQ(pf.rd(S + PCI_SRIOV_CTRL), 0u);                   // control 0, status 0
  EXPECT_EQ(pf.rd(S + PCI_SRIOV_INITIAL_VF), 0x00040004u);    // InitialVFs 4, TotalVFs 4
  EXPECT_EQ(pf.rd(S + PCI_SRIOV_NUM_VF), 0u);                 // NumVFs 0, link 0
  EXPECT_EQ(pf.rd(S + PCI_SRIOV_VF_OFFSET), 0x00010001u);     // offset 1, stride 1
  EXPECT_EQ(pf.rd(S + PCI_SRIOV_VF_DID - 2), 0x10410000u);    // VF Device ID 0x1041
  EXPECT_EQ(pf.rd(S + PCI_SRIOV_SUP_PGSIZE), 0x553u);
  EXPECT_EQ(pf.rd(S + PCI_SRIOV_SYS_PGSIZE), 1u);
  EXPECT_EQ(pf.rd(S + PCI_SRIOV_BAR), 0xcu);                  // 64-bit prefetchable
  for (uint16_t b = 1; b < 6; ++b) EXPECT_EQ(pf.rd(S + PCI_SRIOV_BAR + 4 * b), 0u) << b;
  // Writes to read-only fields change nothing.
  for (uint16_t off : {uint16_t(PCI_SRIOV_CAP), uint16_t(PCI_SRIOV_INITIAL_VF), uint16_t(PCI_SRIOV_VF_OFFSET),
                       uint16_t(PCI_SRIOV_VF_DID - 2), uint16_t(PCI_SRIOV_SUP_PGSIZE), uint16_t(PCI_SRIOV_BAR + 8),
                       uint16_t(PCI_SRIOV_VFM)}) {
    const uint32_t before = pf.rd(S + off);
    pf.wr(S + off, 0xffffffff);
    EXPECT_EQ(pf.rd(S + off), before) << off;
  }
}

TEST(SriovCap, ControlMaskAndDecodedState) {
  Pf pf(8);
  dpusim::pcie::SriovState seen_before, seen_after;
  int calls = 0;
  pf.img->sriov()->on_control = [&](const dpusim::pcie::SriovState& b, const dpusim::pcie::SriovState& a) {
    seen_before = b;
    seen_after = a;
    ++calls;
  };
  pf.wr(S + PCI_SRIOV_CTRL, 0xffff, 0x3);
  EXPECT_EQ(pf.rd(S + PCI_SRIOV_CTRL), 0x19u);  // VFE, VF MSE, ARI; no migration bits
  EXPECT_EQ(calls, 1);
  EXPECT_FALSE(seen_before.vfe);
  EXPECT_TRUE(seen_after.vfe);
  EXPECT_TRUE(seen_after.vf_mse);
  EXPECT_TRUE(seen_after.ari_hierarchy);
  EXPECT_EQ(pf.img->sriov()->state().total_vfs, 8u);
}

TEST(SriovCap, NumVfsWritableOnlyWhileVfEnableClear) {
  Pf pf(8);
  pf.wr(S + PCI_SRIOV_NUM_VF, 0xffff0005);
  EXPECT_EQ(pf.rd(S + PCI_SRIOV_NUM_VF), 5u);  // the link byte is read-only
  pf.wr(S + PCI_SRIOV_CTRL, PCI_SRIOV_CTRL_VFE, 0x3);
  pf.wr(S + PCI_SRIOV_NUM_VF, 7);
  EXPECT_EQ(pf.img->sriov()->state().num_vfs, 5u);
  pf.wr(S + PCI_SRIOV_CTRL, 0, 0x3);
  pf.wr(S + PCI_SRIOV_NUM_VF, 7);
  EXPECT_EQ(pf.img->sriov()->state().num_vfs, 7u);
}

TEST(SriovCap, SystemPageSizeTakesOneSupportedSize) {
  Pf pf(2);
  pf.wr(S + PCI_SRIOV_SYS_PGSIZE, 0x10);  // 64 KiB
  EXPECT_EQ(pf.rd(S + PCI_SRIOV_SYS_PGSIZE), 0x10u);
  pf.wr(S + PCI_SRIOV_SYS_PGSIZE, 0x2 | 0x10);  // two bits: ignored
  EXPECT_EQ(pf.rd(S + PCI_SRIOV_SYS_PGSIZE), 0x10u);
  pf.wr(S + PCI_SRIOV_SYS_PGSIZE, 0x4);  // 16 KiB: not supported
  EXPECT_EQ(pf.rd(S + PCI_SRIOV_SYS_PGSIZE), 0x10u);
  pf.wr(S + PCI_SRIOV_SYS_PGSIZE, 0x1);
  EXPECT_EQ(pf.rd(S + PCI_SRIOV_SYS_PGSIZE), 0x1u);
}

TEST(SriovCap, VfBarSizingFollowsTheSystemPageSize) {
  Pf pf(4);
  const uint16_t b0 = S + PCI_SRIOV_BAR;
  pf.wr(b0, 0xffffffff);
  EXPECT_EQ(pf.rd(b0), 0xffff800cu);  // 32 KiB per VF
  pf.wr(b0 + 4, 0xffffffff);
  EXPECT_EQ(pf.rd(b0 + 4), 0xffffffffu);
  pf.wr(S + PCI_SRIOV_SYS_PGSIZE, 0x100);  // 1 MiB pages: 1 MiB per VF
  pf.wr(b0, 0xffffffff);
  EXPECT_EQ(pf.rd(b0), 0xfff0000cu);
  pf.wr(S + PCI_SRIOV_SYS_PGSIZE, 0x1);
  pf.wr(b0, 0x12348000);
  pf.wr(b0 + 4, 0x1);
  EXPECT_EQ(pf.rd(b0), 0x1234800cu);
  // A larger page after the BAR was programmed: the bits below the new size read 0.
  pf.wr(S + PCI_SRIOV_SYS_PGSIZE, 0x10);
  EXPECT_EQ(pf.rd(b0), 0x1234000cu);
  const dpusim::pcie::SriovState& st = pf.img->sriov()->state();
  EXPECT_EQ(st.vf_bar0, 0x112340000ull);
  EXPECT_EQ(st.vf_bar_size(), 0x10000u);
}

TEST(SriovCap, ApertureDecodesOnlyWithVfEnableAndVfMse) {
  Pf pf(4);
  const uint16_t b0 = S + PCI_SRIOV_BAR;
  pf.wr(b0, 0x80000000);
  const dpusim::pcie::SriovState& st = pf.img->sriov()->state();
  EXPECT_EQ(st.vf_at(0x80000000), -1);
  pf.wr(S + PCI_SRIOV_CTRL, PCI_SRIOV_CTRL_VFE, 0x3);
  EXPECT_EQ(st.vf_at(0x80000000), -1);
  pf.wr(S + PCI_SRIOV_CTRL, PCI_SRIOV_CTRL_VFE | PCI_SRIOV_CTRL_MSE, 0x3);
  EXPECT_EQ(st.vf_at(0x80000000), 0);
  EXPECT_EQ(st.vf_at(0x80007ffc), 0);
  EXPECT_EQ(st.vf_at(0x80008000), 1);
  EXPECT_EQ(st.vf_at(0x8001fffc), 3);
  EXPECT_EQ(st.vf_at(0x80020000), -1);  // past TotalVFs x size
  EXPECT_EQ(st.vf_bar_base(3), 0x80018000u);
}

TEST(SriovCap, AriAndAcsRegisters) {
  Pf pf(4);
  EXPECT_EQ(pf.rd(VNET_ARI_CAP + PCI_ARI_CAP), 0u);  // next function 0, no function groups
  pf.wr(VNET_ARI_CAP + PCI_ARI_CAP, 0xffffffff);
  EXPECT_EQ(pf.rd(VNET_ARI_CAP + PCI_ARI_CAP), 0u);
  EXPECT_EQ(pf.rd(VNET_ACS_CAP + PCI_ACS_CAP), 0x004cu);
  pf.wr(VNET_ACS_CAP + PCI_ACS_CAP, 0xffffffff);
  EXPECT_EQ(pf.rd(VNET_ACS_CAP + PCI_ACS_CAP), 0x004c004cu);  // control takes RR, CR, DT only
}

TEST(SriovLimits, EveryRejectionString) {
  SriovRequest r;
  r.total_vfs = 65;
  EXPECT_EQ(*sriov_validate_caps(r), "Invalid --total-vfs value: 65. Must be between 1 and 64 (per-PF VF limit)");
  r.total_vfs = 0;
  EXPECT_EQ(*sriov_validate_caps(r), "Invalid --total-vfs value: 0. Must be between 1 and 64 (per-PF VF limit)");
  r.total_vfs = 64;
  r.vf_stride = 5;
  EXPECT_EQ(*sriov_validate_caps(r),
            "SR-IOV: last VF function 316 (first_vf_offset=1 + (total_vfs=64 - 1) * vf_stride=5) exceeds the ARI "
            "ceiling of 255");
  r.vf_stride = 1;
  r.num_ep = 5;
  EXPECT_EQ(*sriov_validate_caps(r),
            "SR-IOV: device-wide VF VQ budget exceeded: 5 PF(s) x 64 VF(s) x 17 VQs = 5440 > 4352");
  r.num_ep = 32;
  r.total_vfs = 16;
  r.max_queue_pairs = 1;
  EXPECT_EQ(*sriov_validate_caps(r),
            "SR-IOV: aggregate VF count 512 (32 PF(s) x 16 VF(s)) exceeds the device limit of 256");
  r.num_ep = 4;
  r.total_vfs = 4;
  r.mac_low16 = 0xfff0;
  EXPECT_EQ(*sriov_validate_caps(r),
            "SR-IOV: VF MAC address overflow for vf_index 15 (base low16=0xfff0 + num_ep=4 + vf_index=15 > 0xffff)");
  r.mac_low16 = 0x3456;
  EXPECT_FALSE(sriov_validate_caps(r).has_value());
}

TEST(SriovLimits, TheLargestLegalPlatformsPass) {
  SriovRequest a;
  a.num_ep = 32;
  a.total_vfs = 8;
  a.max_queue_pairs = 8;
  EXPECT_FALSE(sriov_validate_caps(a).has_value());
  SriovRequest b;
  b.num_ep = 4;
  b.total_vfs = 64;
  b.max_queue_pairs = 8;
  EXPECT_FALSE(sriov_validate_caps(b).has_value());
  b.max_queue_pairs = 9;  // 4 x 64 x 19 VQs
  EXPECT_TRUE(sriov_validate_caps(b).has_value());
}

TEST(SriovOptions, TotalVfsParsedAndRefusedWithLuMode) {
  const VnetOptions o = parse_vnet_options(nlohmann::json{{"num-ep", 4}, {"total-vfs", 4}}, "$.o");
  EXPECT_EQ(o.total_vfs, 4);
  EXPECT_EQ(mac_str(o.vf_mac(0)), "52:54:00:12:34:5a");      // 0x3456 + 4 + 0
  EXPECT_EQ(mac_str(o.vf_mac(0xa9)), "52:54:00:12:35:03");   // carries into octet 4
  EXPECT_EQ(parse_vnet_options(nlohmann::json::object(), "$.o").total_vfs, 0);
  try {
    parse_vnet_options(nlohmann::json{{"total-vfs", 4}, {"lu-mode", "active"}}, "$.o");
    FAIL() << "accepted total-vfs with lu-mode";
  } catch (const dpusim::platform::DocError& e) {
    EXPECT_NE(std::string(e.what()).find("$.o.total-vfs"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(VNET_SRIOV_LU_EXCLUSIVE), std::string::npos) << e.what();
  }
  try {
    parse_vnet_options(nlohmann::json{{"num-ep", 8}, {"total-vfs", 64}}, "$.o");
    FAIL() << "accepted 8 x 64 VFs";
  } catch (const dpusim::platform::DocError& e) {
    EXPECT_NE(std::string(e.what()).find("device-wide VF VQ budget exceeded: 8 PF(s) x 64 VF(s) x 17 VQs = 8704"),
              std::string::npos)
        << e.what();
  }
}

TEST(DspImage, AriForwardingOnlyWithSriov) {
  dpusim::pcie::SimContext ctx{1};
  ctx.log.open_memory();
  AppLog log{ctx};
  dpusim::sw::Bridge plain("dsp0", ctx), ari("dsp1", ctx);
  init_dsp_image(plain, 0, log, SlotEvents{[](bool) {}, [] {}});
  init_dsp_image(ari, 1, log, SlotEvents{[](bool) {}, [] {}}, true);
  const uint16_t x = TLP_BRIDGE_EXP_CAP;
  EXPECT_EQ(plain.cfg.read_dword(x + PCI_EXP_DEVCAP2), 0u);
  plain.cfg.write_dword(x + PCI_EXP_DEVCTL2, 0xffff, 0x3);
  EXPECT_EQ(plain.cfg.read_dword(x + PCI_EXP_DEVCTL2), 0u);
  EXPECT_FALSE(plain.ari_forwarding());
  EXPECT_EQ(ari.cfg.read_dword(x + PCI_EXP_DEVCAP2), PCI_EXP_DEVCAP2_ARI);
  ari.cfg.write_dword(x + PCI_EXP_DEVCTL2, 0xffff, 0x3);
  EXPECT_EQ(ari.cfg.read_dword(x + PCI_EXP_DEVCTL2), uint32_t(PCI_EXP_DEVCTL2_ARI));
  EXPECT_TRUE(ari.ari_forwarding());
}
