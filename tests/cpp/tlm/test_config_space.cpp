// The config space engine: register semantics in masks, byte enables, BAR sizing, capability
// lists (PCIe r5.0 §7.4, §7.5.1).
#include <gtest/gtest.h>

#include "tlm/capabilities.h"
#include "tlm/config_space.h"
#include "tlm/pci_regs.h"

using namespace dpusim::pcie;
using namespace dpusim::pci;

TEST(ConfigSpace, ReadOnlyBitsIgnoreWrites) {
  ConfigSpace cfg;
  cfg.define(0x40, 4, 0x12345678);
  cfg.write_dword(0x40, 0xffffffff, 0xf);
  EXPECT_EQ(cfg.read_dword(0x40), 0x12345678u);
}

TEST(ConfigSpace, ReadWriteBitsTakeOnlyTheirMask) {
  ConfigSpace cfg;
  cfg.define(0x40, 4, 0xa0000005, 0x0000fff0);
  cfg.write_dword(0x40, 0xffffffff, 0xf);
  EXPECT_EQ(cfg.read_dword(0x40), 0xa000fff5u);
  cfg.write_dword(0x40, 0x00000000, 0xf);
  EXPECT_EQ(cfg.read_dword(0x40), 0xa0000005u);
}

TEST(ConfigSpace, WriteOneToClearBits) {
  ConfigSpace cfg;
  cfg.define(0x44, 2, 0, 0, 0x011f);
  cfg.set(0x44, 2, 0x015f);  // hardware sets events and a state bit (0x40)
  cfg.write_dword(0x44, 0x00000011, 0x3);  // clear ABP and CC
  EXPECT_EQ(cfg.get(0x44, 2), 0x014eu);
  cfg.write_dword(0x44, 0x0000ffff, 0x3);  // all ones: clears every RW1C bit, keeps the state
  EXPECT_EQ(cfg.get(0x44, 2), 0x0040u);
}

TEST(ConfigSpace, ByteEnablesSelectBytes) {
  ConfigSpace cfg;
  cfg.define(0x48, 4, 0, 0xffffffff);
  // Every byte-enable pattern writes exactly the enabled bytes.
  for (uint8_t be = 0; be < 16; ++be) {
    cfg.set(0x48, 4, 0x11223344);
    cfg.write_dword(0x48, 0xaabbccdd, be);
    uint32_t expect = 0x11223344;
    for (unsigned b = 0; b < 4; ++b)
      if (be & (1u << b)) expect = (expect & ~(0xffu << (8 * b))) | (0xaabbccddu & (0xffu << (8 * b)));
    EXPECT_EQ(cfg.read_dword(0x48), expect) << "be " << int(be);
  }
}

TEST(ConfigSpace, Bar32SizingReadsBackTheSizeMask) {
  ConfigSpace cfg;
  define_memory_bar(cfg, 0, 16 << 10, false, false);
  cfg.write_dword(PCI_BASE_ADDRESS_0, 0xffffffff, 0xf);
  EXPECT_EQ(cfg.read_dword(PCI_BASE_ADDRESS_0), 0xffffc000u);  // 16 KiB, 32-bit, non-prefetchable
  cfg.write_dword(PCI_BASE_ADDRESS_0, 0xc0004000, 0xf);
  EXPECT_EQ(cfg.read_dword(PCI_BASE_ADDRESS_0), 0xc0004000u);
  cfg.write_dword(PCI_BASE_ADDRESS_0, 0xc0001234, 0xf);  // bits below the size are hard-wired 0
  EXPECT_EQ(cfg.read_dword(PCI_BASE_ADDRESS_0), 0xc0000000u);
}

TEST(ConfigSpace, Bar64SizingCombinesTwoDwords) {
  ConfigSpace cfg;
  define_memory_bar(cfg, 2, 1ull << 20, true, true);
  cfg.write_dword(0x18, 0xffffffff, 0xf);
  cfg.write_dword(0x1c, 0xffffffff, 0xf);
  EXPECT_EQ(cfg.read_dword(0x18), 0xfff0000cu);  // 1 MiB, type 64-bit (0x4), prefetchable (0x8)
  EXPECT_EQ(cfg.read_dword(0x1c), 0xffffffffu);
  // An 8 GiB BAR: the upper dword's low bit is part of the size.
  ConfigSpace big;
  define_memory_bar(big, 0, 8ull << 30, true, true);
  big.write_dword(0x10, 0xffffffff, 0xf);
  big.write_dword(0x14, 0xffffffff, 0xf);
  EXPECT_EQ(big.read_dword(0x10), 0x0000000cu);
  EXPECT_EQ(big.read_dword(0x14), 0xfffffffeu);
}

TEST(ConfigSpace, UnimplementedBarReadsZeroAfterAllOnes) {
  ConfigSpace cfg;
  define_memory_bar(cfg, 0, 4096, false, false);
  cfg.write_dword(0x14, 0xffffffff, 0xf);
  EXPECT_EQ(cfg.read_dword(0x14), 0u);
}

TEST(ConfigSpace, CapabilitiesLinkInOrderAndSetCapList) {
  ConfigSpace cfg;
  init_type0_header(cfg, {0x1234, 0x5678, 0x020000, 1});
  const uint16_t a = add_pm_cap(cfg, 3);
  const uint16_t b = add_msix_cap(cfg, 8, 0, 0x2000, 0, 0x3000);
  const uint16_t c = add_vendor_cap(cfg, {1, 2, 3, 4, 5});
  EXPECT_EQ(a, 0x40);
  EXPECT_EQ(b, 0x48);
  EXPECT_EQ(c, 0x54);
  EXPECT_TRUE(cfg.get(PCI_STATUS, 2) & PCI_STATUS_CAP_LIST);
  EXPECT_EQ(cfg.get(PCI_CAPABILITY_LIST, 1), 0x40u);
  EXPECT_EQ(cfg.get(a + 1, 1), b);
  EXPECT_EQ(cfg.get(b + 1, 1), c);
  EXPECT_EQ(cfg.get(c + 1, 1), 0u);
  EXPECT_EQ(cfg.get(c + 2, 1), 8u);  // vendor cap length
  EXPECT_EQ(cfg.find_capability(PCI_CAP_ID_MSIX), b);
  EXPECT_EQ(cfg.find_capability(PCI_CAP_ID_EXP), 0);
  EXPECT_EQ(cfg.get(b + PCI_MSIX_FLAGS, 2), 7u);  // Table Size = N - 1
  EXPECT_EQ(cfg.get(b + PCI_MSIX_TABLE, 4), 0x2000u);
  // MSI-X Enable and Function Mask are the only writable bits of Message Control.
  cfg.write_dword(b, 0xffff0000, 0xc);
  EXPECT_EQ(cfg.get(b + PCI_MSIX_FLAGS, 2), 0xc007u);
}

TEST(ConfigSpace, ExtendedCapabilitiesChainThroughTheHeader) {
  ConfigSpace cfg;
  const uint16_t a = add_vendor_ext_cap(cfg, 0x1, 1, {0xaa, 0xbb, 0xcc, 0xdd});
  const uint16_t b = add_vendor_ext_cap(cfg, 0x2, 2, {});
  EXPECT_EQ(a, 0x100);
  EXPECT_EQ(b, 0x10c);
  EXPECT_EQ(cfg.read_dword(0x100), 0x10c1000bu);  // next 0x10c, version 1, ID 0x000b
  EXPECT_EQ(cfg.read_dword(0x104), 0x00c10001u);  // VSEC length 12, rev 1, ID 1
  EXPECT_EQ(cfg.read_dword(0x10c), 0x0001000bu);
  EXPECT_EQ(cfg.find_ext_capability(0x000b), 0x100);
}

TEST(ConfigSpace, OverlappingCapabilitiesAreALayoutError) {
  ConfigSpace cfg;
  add_pm_cap(cfg, 3, 0x40);
  EXPECT_THROW(add_vendor_cap(cfg, {1, 2}, 0x44), ConfigLayoutError);
  EXPECT_THROW(cfg.define(0xffe, 4, 0), ConfigLayoutError);
}

TEST(ConfigSpace, PcieCapabilitySlotRegisters) {
  ConfigSpace cfg;
  PcieCapSpec s;
  s.port_type = PCI_EXP_TYPE_DOWNSTREAM;
  s.slot_implemented = true;
  s.slotcap = PCI_EXP_SLTCAP_HPC;
  s.slotctl = PCI_EXP_SLTCTL_PCC;
  const uint16_t cap = add_pcie_cap(cfg, s);
  EXPECT_EQ(cfg.get(cap + PCI_EXP_FLAGS, 2), 0x0162u);  // v2, downstream port, slot implemented
  // Slot Control: RW, and its DW also holds Slot Status (RW1C events, RO state).
  cfg.set(cap + PCI_EXP_SLTSTA, 2, PCI_EXP_SLTSTA_PDS | PCI_EXP_SLTSTA_CC | PCI_EXP_SLTSTA_PDC);
  cfg.write_dword(cap + PCI_EXP_SLTCTL, 0x0010003b, 0xf);  // enable bits, clear CC
  EXPECT_EQ(cfg.get(cap + PCI_EXP_SLTCTL, 2), 0x003bu);
  EXPECT_EQ(cfg.get(cap + PCI_EXP_SLTSTA, 2), PCI_EXP_SLTSTA_PDS | PCI_EXP_SLTSTA_PDC);
  // Slot Capabilities are read-only.
  cfg.write_dword(cap + PCI_EXP_SLTCAP, 0, 0xf);
  EXPECT_EQ(cfg.get(cap + PCI_EXP_SLTCAP, 4), PCI_EXP_SLTCAP_HPC);
}

TEST(ConfigSpace, ResetRestoresAllButStickyBits) {
  ConfigSpace cfg;
  cfg.define(0x40, 4, 0x1, 0xff);
  cfg.set_sticky(0x40, 4, 0xf0);
  cfg.seal();
  cfg.write_dword(0x40, 0xaa, 0xf);
  cfg.reset();
  EXPECT_EQ(cfg.read_dword(0x40), 0xa1u);
}

TEST(ConfigSpace, WriteHooksSeeBeforeAndAfter) {
  ConfigSpace cfg;
  cfg.define(0x50, 2, 0, 0xffff);
  cfg.define(0x52, 2, 0, 0xffff);
  int calls = 0;
  uint32_t seen_before = 0, seen_after = 0;
  cfg.on_write(0x52, 2, [&](uint16_t off, uint32_t b, uint32_t a, uint8_t) {
    ++calls;
    EXPECT_EQ(off, 0x50);
    seen_before = b;
    seen_after = a;
  });
  cfg.write_dword(0x50, 0x1234, 0x3);  // touches only 0x50..0x51: no call
  EXPECT_EQ(calls, 0);
  cfg.write_dword(0x50, 0xbeef0000, 0xc);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(seen_before, 0x1234u);
  EXPECT_EQ(seen_after, 0xbeef1234u);
}

// Write filters: a register whose rule is not masks alone sees the raw data and byte enables
// first (an application's "whole DW if any byte enabled", "bytes not enabled become 0").
TEST(ConfigSpaceFilter, RewritesDataAndByteEnablesBeforeTheMasks) {
  dpusim::pcie::ConfigSpace cfg(256);
  cfg.define(0x28, 4, 0, 0xffffffff);
  cfg.filter_write(0x28, [](uint16_t, uint32_t&, uint8_t& be) { be = (be & 0xf) ? 0xf : 0; });
  cfg.write_dword(0x28, 0x11223344, 0xf);
  cfg.write_dword(0x28, 0x0000ab00, 0x2);
  EXPECT_EQ(cfg.read_dword(0x28), 0x0000ab00u);
  cfg.define(0x2c, 4, 0, 0x0000ffff);  // masks still apply after the filter
  cfg.filter_write(0x2c, [](uint16_t, uint32_t& data, uint8_t& be) { data = ~data; be = 0xf; });
  cfg.write_dword(0x2c, 0x0000ff00, 0x1);
  EXPECT_EQ(cfg.read_dword(0x2c), 0x000000ffu);
  EXPECT_THROW(cfg.filter_write(0x2e, [](uint16_t, uint32_t&, uint8_t&) {}), dpusim::pcie::ConfigLayoutError);
}
