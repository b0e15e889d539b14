// The capability library beyond MSI-X: a parametrised SR-IOV capability (tlm/sriov_cap.h), ARI
// and ACS (tlm/capabilities.h) and the FLR hook (Function::on_flr), with a device's parameters
// other than the vnet application's, as any device would compose them.
#include <gtest/gtest.h>

#include <vector>

#include "tlm/capabilities.h"
#include "tlm/function.h"
#include "tlm/pci_regs.h"
#include "tlm/sriov_cap.h"

using namespace dpusim::pcie;
using namespace dpusim::pci;

namespace {
SriovCapSpec spec7() {
  SriovCapSpec s;
  s.total_vfs = 7;
  s.first_vf_offset = 4;
  s.vf_stride = 2;
  s.vf_device_id = 0xabcd;
  s.supported_page_sizes = 0x3;  // 4 KiB, 8 KiB
  s.vf_bar0_size = 16384;
  s.control_mask = PCI_SRIOV_CTRL_VFE | PCI_SRIOV_CTRL_MSE;
  return s;
}
constexpr uint16_t S = 0x200;
}  // namespace

TEST(SriovCapLibrary, RegistersFollowTheSpec) {
  ConfigSpace cfg;
  SriovCap cap(cfg, S, spec7());
  cfg.seal();
  EXPECT_EQ(cfg.read_dword(S), 0x00010010u);                          // SR-IOV, v1, last
  EXPECT_EQ(cfg.read_dword(S + PCI_SRIOV_INITIAL_VF), 0x00070007u);   // InitialVFs = TotalVFs = 7
  EXPECT_EQ(cfg.read_dword(S + PCI_SRIOV_VF_OFFSET), 0x00020004u);    // offset 4, stride 2
  EXPECT_EQ(cfg.read_dword(S + PCI_SRIOV_VF_DID - 2), 0xabcd0000u);
  EXPECT_EQ(cfg.read_dword(S + PCI_SRIOV_SUP_PGSIZE), 0x3u);
  EXPECT_EQ(cfg.read_dword(S + PCI_SRIOV_SYS_PGSIZE), 0x1u);
  EXPECT_EQ(cfg.read_dword(S + PCI_SRIOV_BAR), 0xcu);                 // 64-bit prefetchable
  // Control takes only the device's bits.
  cfg.write_dword(S + PCI_SRIOV_CTRL, 0xffff, 0x3);
  EXPECT_EQ(cfg.read_dword(S + PCI_SRIOV_CTRL), uint32_t(PCI_SRIOV_CTRL_VFE | PCI_SRIOV_CTRL_MSE));
  EXPECT_FALSE(cap.state().ari_hierarchy);
}

TEST(SriovCapLibrary, VfRoutingIdsFollowOffsetAndStride) {
  ConfigSpace cfg;
  SriovCap cap(cfg, S, spec7());
  EXPECT_EQ(cap.vf_rid(0x0300, 0), 0x0304u);
  EXPECT_EQ(cap.vf_rid(0x0300, 6), 0x0310u);
}

TEST(SriovCapLibrary, VfBarSizeIsTheDevicesOrThePageIfLarger) {
  ConfigSpace cfg;
  SriovCap cap(cfg, S, spec7());
  cfg.seal();
  cfg.write_dword(S + PCI_SRIOV_BAR, 0xffffffff, 0xf);
  EXPECT_EQ(cfg.read_dword(S + PCI_SRIOV_BAR), 0xffffc00cu);  // 16 KiB per VF
  EXPECT_EQ(cap.state().vf_bar_size(), 16384u);
  cfg.write_dword(S + PCI_SRIOV_SYS_PGSIZE, 0x4, 0xf);  // 16 KiB: not supported, unchanged
  EXPECT_EQ(cap.state().sys_pgsize, 1u);
  cfg.write_dword(S + PCI_SRIOV_SYS_PGSIZE, 0x2, 0xf);  // 8 KiB: smaller than the BAR, no change in size
  EXPECT_EQ(cap.state().vf_bar_size(), 16384u);
}

TEST(SriovCapLibrary, ApertureDecodesEachVfsBar) {
  ConfigSpace cfg;
  SriovCap cap(cfg, S, spec7());
  cfg.seal();
  cfg.write_dword(S + PCI_SRIOV_BAR, 0x80000000, 0xf);
  cfg.write_dword(S + PCI_SRIOV_BAR + 4, 0x1, 0xf);
  EXPECT_EQ(cap.state().vf_at(0x180000000ull), -1);  // VF Enable and VF MSE clear
  cfg.write_dword(S + PCI_SRIOV_CTRL, PCI_SRIOV_CTRL_VFE | PCI_SRIOV_CTRL_MSE, 0x3);
  EXPECT_EQ(cap.state().vf_at(0x180000000ull), 0);
  EXPECT_EQ(cap.state().vf_at(0x180000000ull + 6 * 16384 + 16383), 6);
  EXPECT_EQ(cap.state().vf_at(0x180000000ull + 7 * 16384), -1);  // past TotalVFs
  EXPECT_EQ(cap.state().vf_bar_base(3), 0x180000000ull + 3 * 16384);
}

TEST(SriovCapLibrary, ControlEdgesReachTheDeviceAndNumVfsFreezesUnderVfEnable) {
  ConfigSpace cfg;
  SriovCap cap(cfg, S, spec7());
  cfg.seal();
  std::vector<std::pair<bool, bool>> edges;
  cap.on_control = [&](const SriovState& b, const SriovState& a) { edges.emplace_back(b.vfe, a.vfe); };
  cfg.write_dword(S + PCI_SRIOV_NUM_VF, 5, 0x3);
  cfg.write_dword(S + PCI_SRIOV_CTRL, PCI_SRIOV_CTRL_VFE, 0x3);
  cfg.write_dword(S + PCI_SRIOV_NUM_VF, 2, 0x3);
  EXPECT_EQ(cap.state().num_vfs, 5u);
  cfg.write_dword(S + PCI_SRIOV_CTRL, 0, 0x3);
  EXPECT_EQ(edges, (std::vector<std::pair<bool, bool>>{{false, true}, {true, false}}));
}

TEST(SriovCapLibrary, RefusesAVfBarThatIsNoPowerOfTwoOfAtLeastAPage) {
  ConfigSpace cfg;
  SriovCapSpec s = spec7();
  for (uint64_t bad : {uint64_t(0), uint64_t(2048), uint64_t(12288)}) {
    s.vf_bar0_size = bad;
    EXPECT_THROW(SriovCap(cfg, S, s), ConfigLayoutError) << bad;
  }
}

TEST(AriCap, NextFunctionNumberAndNoWritableControl) {
  ConfigSpace cfg;
  const uint16_t off = add_ari_cap(cfg, 5, 0x140);
  cfg.seal();
  EXPECT_EQ(cfg.read_dword(off), 0x0001000eu);
  EXPECT_EQ(cfg.read_dword(off + PCI_ARI_CAP), 0x00000500u);
  cfg.write_dword(off + PCI_ARI_CAP, 0xffffffff, 0xf);
  EXPECT_EQ(cfg.read_dword(off + PCI_ARI_CAP), 0x00000500u);
}

TEST(AcsCap, ControlWritableExactlyForTheCapabilities) {
  ConfigSpace cfg;
  const uint16_t caps = PCI_ACS_SV | PCI_ACS_RR | PCI_ACS_CR;
  const uint16_t off = add_acs_cap(cfg, caps, 0x180);
  cfg.seal();
  cfg.write_dword(off + PCI_ACS_CAP, 0xffffffff, 0xf);
  EXPECT_EQ(cfg.read_dword(off + PCI_ACS_CAP), uint32_t(caps) << 16 | caps);
}

TEST(AcsCap, RefusesEgressControlWithoutItsVector) {
  ConfigSpace cfg;
  EXPECT_THROW(add_acs_cap(cfg, PCI_ACS_EC), ConfigLayoutError);
}

namespace {
struct FlrFn {
  SimContext ctx{1};
  Function fn{"f", ctx};
  std::vector<uint16_t> devctl_at_flr;
  explicit FlrFn(bool flr_capable) {
    ctx.log.open_memory();
    PcieCapSpec s;
    s.devcap = flr_capable ? PCI_EXP_DEVCAP_FLR : 0;
    fn.set_pcie_cap(add_pcie_cap(fn.cfg, s));
    fn.cfg.seal();
    fn.on_flr = [this] { devctl_at_flr.push_back(uint16_t(fn.cfg.get(fn.pcie_cap() + PCI_EXP_DEVCTL, 2))); };
  }
  void devctl(uint32_t v, uint8_t be) { fn.config_write(fn.pcie_cap() + PCI_EXP_DEVCTL, v, be, 0x0100); }
};
}  // namespace

TEST(FlrHook, InitiateFlrCallsTheHookAfterTheWriteApplied) {
  FlrFn f(true);
  f.devctl(PCI_EXP_DEVCTL_BCR_FLR | 0x0010, 0x3);  // FLR with Relaxed Ordering, MPS/MRRS 0
  // The write applied first (Relaxed Ordering set, Initiate FLR reads 0); what the reset then
  // does is the device's.
  EXPECT_EQ(f.devctl_at_flr, (std::vector<uint16_t>{0x0010}));
}

TEST(FlrHook, NoHookWithoutTheByteOrTheBitOrTheCapability) {
  FlrFn f(true);
  f.devctl(PCI_EXP_DEVCTL_BCR_FLR, 0x1);  // byte 1 not enabled
  f.devctl(0x7fff, 0x3);                  // bit 15 clear
  EXPECT_TRUE(f.devctl_at_flr.empty());
  FlrFn g(false);
  g.devctl(PCI_EXP_DEVCTL_BCR_FLR, 0x3);  // not FLR capable: Initiate FLR is ignored
  EXPECT_TRUE(g.devctl_at_flr.empty());
}
