#include "vnet/switch/bridge_image.h"

#include "tlm/pci_regs.h"

namespace dpusim::vnet {

using namespace dpusim::pci;
using pcie::ConfigSpace;

namespace {

// Filters for the application's write rules.
void whole_dw_if_any(uint16_t, uint32_t&, uint8_t& be) { be = (be & 0xf) ? 0xf : 0; }
// "take the whole low 16 bits when any low byte is enabled"; the high half is left alone.
void low_half_whole(uint16_t, uint32_t&, uint8_t& be) { be = uint8_t(((be & 3) ? 3 : 0) | (be & 0xc)); }

void init_bridge_header(ConfigSpace& cfg, AppLog& log) {
  cfg.define(PCI_VENDOR_ID, 4, TLP_BRIDGE_ID);
  cfg.define(PCI_COMMAND, 2, TLP_BRIDGE_COMMAND_RESET,
             PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER | PCI_COMMAND_PARITY | PCI_COMMAND_SERR |
                 PCI_COMMAND_INTX_DISABLE);
  cfg.define(PCI_STATUS, 2, TLP_BRIDGE_STATUS_RESET, 0, PCI_STATUS_ERROR_BITS);
  cfg.define(PCI_CLASS_REVISION, 4, 0x06040000);
  cfg.define(PCI_CACHE_LINE_SIZE, 2, 0, 0xffff);  // Cache Line Size and Latency Timer
  cfg.define(PCI_HEADER_TYPE, 1, PCI_HEADER_TYPE_BRIDGE);
  cfg.define(PCI_PRIMARY_BUS, 4, 0, 0xffffffff);  // all four bytes, 0xFF accepted
  cfg.define(PCI_MEMORY_BASE, 4, 0, 0xfff0fff0);
  // Stored masked to 0xFFF0; a read ORs 0x0001 into each half (64-bit capable).
  cfg.define(PCI_PREF_MEMORY_BASE, 4, 0x00010001, 0xfff0fff0);
  cfg.define(PCI_PREF_BASE_UPPER32, 4, 0, 0xffffffff);
  cfg.define(PCI_PREF_LIMIT_UPPER32, 4, 0, 0xffffffff);
  cfg.filter_write(PCI_PREF_BASE_UPPER32, whole_dw_if_any);
  cfg.filter_write(PCI_PREF_LIMIT_UPPER32, whole_dw_if_any);
  // Interrupt Line and Pin both writable; Bridge Control: parity error response and SBR only.
  cfg.define(PCI_INTERRUPT_LINE, 4, 0, 0xffffu | uint32_t(TLP_BRIDGE_CTL_MASK) << 16);
  cfg.on_write(PCI_BRIDGE_CONTROL, 2, [&log](uint16_t, uint32_t before, uint32_t after, uint8_t) {
    if (!((before >> 16) & PCI_BRIDGE_CTL_BUS_RESET) && ((after >> 16) & PCI_BRIDGE_CTL_BUS_RESET))
      log.debug(kMainThread, "BR_CTL: Secondary Bus Reset 0->1");  // and no other effect
  });
}

// The Express capability's registers and write rules, common to both port types.
// `ari`: ARI Forwarding Supported, with Device Control 2's ARI Forwarding Enable writable.
void init_express(ConfigSpace& cfg, uint16_t flags, uint32_t lnkcap, AppLog& log, bool ari = false) {
  const uint16_t x = TLP_BRIDGE_EXP_CAP;
  cfg.add_capability(PCI_CAP_ID_EXP, TLP_BRIDGE_EXP_CAP_LEN, x);
  cfg.define(x + PCI_EXP_FLAGS, 2, flags);
  cfg.define(x + PCI_EXP_DEVCAP, 4, TLP_BRIDGE_DEVCAP);
  cfg.define(x + PCI_EXP_DEVCTL, 2, 0, 0xffff);
  cfg.filter_write(x + PCI_EXP_DEVCTL, low_half_whole);
  cfg.define(x + PCI_EXP_LNKCAP, 4, lnkcap);
  cfg.define(x + PCI_EXP_LNKCTL, 2, 0, 0xffff);
  cfg.filter_write(x + PCI_EXP_LNKCTL, low_half_whole);
  cfg.define(x + PCI_EXP_LNKSTA, 2, TLP_BRIDGE_LNKSTA);
  cfg.define(x + PCI_EXP_SLTCTL, 2, 0, 0xffff);
  cfg.define(x + PCI_EXP_SLTSTA, 2, 0, 0, 0xffff);
  cfg.filter_write(x + PCI_EXP_SLTCTL, low_half_whole);
  cfg.on_write(x + PCI_EXP_SLTSTA, 2, [&log](uint16_t, uint32_t before, uint32_t after, uint8_t) {
    const uint16_t cleared = uint16_t((before >> 16) & ~(after >> 16));
    log.debug(kMainThread, "Slot Status W1C: cleared bits 0x%04X, new status=0x%04X", cleared, after >> 16);
  });
  if (ari) {
    cfg.define(x + PCI_EXP_DEVCAP2, 4, PCI_EXP_DEVCAP2_ARI);
    cfg.define(x + PCI_EXP_DEVCTL2, 2, 0, PCI_EXP_DEVCTL2_ARI);
  }
  // Every other Express DW is ignored.
  for (uint16_t dw = 0; dw < TLP_BRIDGE_EXP_CAP_LEN; dw += 4) {
    if (dw == PCI_EXP_DEVCTL || dw == PCI_EXP_LNKCTL || dw == PCI_EXP_SLTCTL) continue;
    if (ari && dw == PCI_EXP_DEVCTL2) continue;
    cfg.on_write(uint16_t(x + dw), 4, [&log, dw](uint16_t, uint32_t, uint32_t, uint8_t) {
      log.debug(kMainThread, "Express cap write to offset %u (ignored)", unsigned(dw));
    });
  }
}

void init_pm(ConfigSpace& cfg) {
  cfg.add_capability(PCI_CAP_ID_PM, PCI_PM_SIZEOF, TLP_BRIDGE_PM_CAP);
  cfg.define(TLP_BRIDGE_PM_CAP + PCI_PM_PMC, 2, TLP_BRIDGE_PM_PMC);
  cfg.define(TLP_BRIDGE_PM_CAP + PCI_PM_CTRL, 2, TLP_BRIDGE_PM_PMCSR);
}

}  // namespace

void log_bus_config(AppLog& log, const std::string& name, uint32_t before, uint32_t after) {
  const uint8_t pri = uint8_t(after), sec = uint8_t(after >> 8), sub = uint8_t(after >> 16);
  const uint8_t old_sec = uint8_t(before >> 8), old_sub = uint8_t(before >> 16);
  if ((sec != old_sec && sec != 0) || (sub != old_sub && sub != 0 && sub != 0xff))
    log.info(kMainThread, "%s bus config: P=%02x S=%02x Sub=%02x (was: S=%02x Sub=%02x)", name.c_str(), pri, sec, sub,
             old_sec, old_sub);
}

void init_usp_image(sw::Bridge& usp, AppLog& log) {
  ConfigSpace& cfg = usp.cfg;
  init_bridge_header(cfg, log);
  init_express(cfg, TLP_USP_EXP_FLAGS, TLP_USP_LNKCAP, log);
  init_pm(cfg);
  usp.set_pcie_cap(TLP_BRIDGE_EXP_CAP);
  cfg.seal();
}

void init_dsp_image(sw::Bridge& dsp, unsigned index, AppLog& log, SlotEvents events, bool ari_forwarding) {
  ConfigSpace& cfg = dsp.cfg;
  init_bridge_header(cfg, log);
  init_express(cfg, TLP_DSP_EXP_FLAGS, TLP_DSP_LNKCAP, log, ari_forwarding);
  const uint16_t x = TLP_BRIDGE_EXP_CAP;
  cfg.define(x + PCI_EXP_SLTCAP, 4, TLP_DSP_SLTCAP);
  cfg.set(x + PCI_EXP_SLTCTL, 2, TLP_DSP_SLTCTL_RESET);
  // MSI: Message Control all 16 bits writable; the address DWs whole whatever the byte
  // enables; the data written only if byte 0 or 1 is enabled (then all 16 bits).
  const uint16_t m = TLP_BRIDGE_MSI_CAP;
  cfg.add_capability(PCI_CAP_ID_MSI, TLP_BRIDGE_MSI_CAP_LEN, m);
  cfg.define(m + PCI_MSI_FLAGS, 2, TLP_DSP_MSI_FLAGS, 0xffff);
  cfg.define(m + PCI_MSI_ADDRESS_LO, 4, 0, 0xffffffff);
  cfg.define(m + PCI_MSI_ADDRESS_HI, 4, 0, 0xffffffff);
  cfg.define(m + PCI_MSI_DATA_64, 2, 0, 0xffff);
  cfg.filter_write(m + PCI_MSI_ADDRESS_LO, whole_dw_if_any);
  cfg.filter_write(m + PCI_MSI_ADDRESS_HI, whole_dw_if_any);
  cfg.filter_write(m + PCI_MSI_DATA_64, [](uint16_t, uint32_t&, uint8_t& be) { be = (be & 3) ? 3 : 0; });
  init_pm(cfg);
  dsp.set_pcie_cap(x);
  cfg.on_write(x + PCI_EXP_SLTCTL, 2, [events](uint16_t, uint32_t before, uint32_t after, uint8_t be) {
    if (!(be & 3)) return;
    const bool was_off = before & PCI_EXP_SLTCTL_PCC, now_off = after & PCI_EXP_SLTCTL_PCC;
    if (was_off != now_off) events.power(!now_off);
    events.command();
  });
  cfg.seal();
  (void)index;
}

void dsp_static_power_on(sw::Bridge& dsp, unsigned index, AppLog& log) {
  ConfigSpace& cfg = dsp.cfg;
  const uint16_t x = TLP_BRIDGE_EXP_CAP;
  cfg.clear_bits(x + PCI_EXP_SLTCTL, 2, PCI_EXP_SLTCTL_PCC);
  cfg.set_bits(x + PCI_EXP_SLTSTA, 2, PCI_EXP_SLTSTA_PDS);
  cfg.set_bits(x + PCI_EXP_LNKSTA, 2, PCI_EXP_LNKSTA_DLLLA);
  cfg.seal();
  log.debug(kMainThread, "Static Mode: DSP[%u] initialized with Power ON (bit10=0), PDS=1, DLActive=1", index);
}

}  // namespace dpusim::vnet
