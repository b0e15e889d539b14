// The configuration images of the application's upstream and downstream ports (pci_spec_tlp.h,
// vnet_pci_device.c's type-1 emulation and its write masks), on the foundation's config engine: reset values as
// constexpr tables, write rules as masks, and the application's own quirks as write filters
// (whole-DW writes, 16-bit halves taken whole) and hooks (the log lines, the slot's power).
//
// The USP's chain is Express @0x60 -> PM @0x40; a DSP's is Express @0x60 -> MSI @0x50 -> PM
// @0x40. The MSI capability's window runs to 0x67, but the application matches the Express
// window (0x60..0x9B) first, so MSI's mask and pending DWs are never reached: the MSI
// capability is laid out as its first 16 bytes. Nothing exists at 0x100 or above. With
// --total-vfs a DSP also has ARI Forwarding (Device Capabilities 2 / Device Control 2).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "vnet/app/app_log.h"
#include "switch/bridge.h"

namespace dpusim::vnet {

// Capability offsets (pci_spec_tlp.h).
inline constexpr uint16_t TLP_BRIDGE_PM_CAP = 0x40;
inline constexpr uint16_t TLP_BRIDGE_MSI_CAP = 0x50;
inline constexpr uint16_t TLP_BRIDGE_EXP_CAP = 0x60;
inline constexpr uint16_t TLP_BRIDGE_EXP_CAP_LEN = 0x3c;  // 0x60..0x9B
inline constexpr uint16_t TLP_BRIDGE_MSI_CAP_LEN = 0x10;  // what the Express window leaves

// Reset values.
inline constexpr uint32_t TLP_BRIDGE_ID = uint32_t(0x10f1) << 16 | 0x1af4;
inline constexpr uint16_t TLP_BRIDGE_COMMAND_RESET = 0x0400;  // INTx Disable (the source says "BME")
inline constexpr uint16_t TLP_BRIDGE_STATUS_RESET = 0x0010;
inline constexpr uint16_t TLP_USP_EXP_FLAGS = 0x0052;  // v2, upstream port
inline constexpr uint16_t TLP_DSP_EXP_FLAGS = 0x0162;  // v2, downstream port, slot implemented
inline constexpr uint32_t TLP_BRIDGE_DEVCAP = 0x00008001;
inline constexpr uint32_t TLP_USP_LNKCAP = 0x00500104;
inline constexpr uint32_t TLP_DSP_LNKCAP = 0x01500104;
inline constexpr uint16_t TLP_BRIDGE_LNKSTA = 0x1104;
inline constexpr uint32_t TLP_DSP_SLTCAP = 0x00001062;  // PCP, HPS, HPC, power limit 32, slot 0
inline constexpr uint16_t TLP_DSP_SLTCTL_RESET = 0x0400;  // power off
inline constexpr uint16_t TLP_BRIDGE_PM_PMC = 0xc803;
inline constexpr uint16_t TLP_BRIDGE_PM_PMCSR = 0x0008;
inline constexpr uint16_t TLP_DSP_MSI_FLAGS = 0x0080;  // 64-bit capable, one vector
inline constexpr uint16_t TLP_BRIDGE_CTL_MASK = 0x0041;  // parity error response, SBR

// A DSP's slot as the application runs it (docs/vnet.md, "Hot-plug"): what its Slot Control writes do.
struct SlotEvents {
  std::function<void(bool on)> power;  // a bit10 edge: true = power on (1 -> 0)
  std::function<void()> command;       // any Slot Control write: Command Completed
};

// Lays out the USP's image.
void init_usp_image(sw::Bridge& usp, AppLog& log);
// Lays out DSP `index`'s image (slot powered off, empty). `ari_forwarding` (with --total-vfs):
// Device Capabilities 2 advertises ARI Forwarding Supported and Device Control 2's ARI
// Forwarding Enable is writable, so that VFs above function 7 route (PCIe r5.0 §6.13).
void init_dsp_image(sw::Bridge& dsp, unsigned index, AppLog& log, SlotEvents events, bool ari_forwarding = false);
// Static mode: after the EP is created the slot is powered, present, link active.
void dsp_static_power_on(sw::Bridge& dsp, unsigned index, AppLog& log);

// The bus-number DW (0x18) changed: returns the log line the application prints, if any.
// `name` is "DSP[i]" or "USP".
void log_bus_config(AppLog& log, const std::string& name, uint32_t before, uint32_t after);

}  // namespace dpusim::vnet
