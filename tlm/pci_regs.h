// PCI/PCIe configuration-space register layout, named as Linux include/uapi/linux/pci_regs.h
// names it (PCIe Base Specification r5.0 §7.5), so a reader holding either finds each register.
// Offsets of capability registers are relative to the capability's start.
#pragma once

#include <cstdint>

namespace dpusim::pci {

// Common header (PCIe §7.5.1.1).
inline constexpr uint16_t PCI_VENDOR_ID = 0x00;
inline constexpr uint16_t PCI_DEVICE_ID = 0x02;
inline constexpr uint16_t PCI_COMMAND = 0x04;
inline constexpr uint16_t PCI_STATUS = 0x06;
inline constexpr uint16_t PCI_CLASS_REVISION = 0x08;
inline constexpr uint16_t PCI_REVISION_ID = 0x08;
inline constexpr uint16_t PCI_CLASS_PROG = 0x09;
inline constexpr uint16_t PCI_CLASS_DEVICE = 0x0a;
inline constexpr uint16_t PCI_CACHE_LINE_SIZE = 0x0c;
inline constexpr uint16_t PCI_LATENCY_TIMER = 0x0d;
inline constexpr uint16_t PCI_HEADER_TYPE = 0x0e;
inline constexpr uint16_t PCI_BIST = 0x0f;
inline constexpr uint16_t PCI_BASE_ADDRESS_0 = 0x10;
inline constexpr uint16_t PCI_CAPABILITY_LIST = 0x34;
inline constexpr uint16_t PCI_INTERRUPT_LINE = 0x3c;
inline constexpr uint16_t PCI_INTERRUPT_PIN = 0x3d;

// Type 0 header.
inline constexpr uint16_t PCI_SUBSYSTEM_VENDOR_ID = 0x2c;
inline constexpr uint16_t PCI_SUBSYSTEM_ID = 0x2e;
inline constexpr uint16_t PCI_ROM_ADDRESS = 0x30;

// Type 1 header (PCIe §7.5.1.3).
inline constexpr uint16_t PCI_PRIMARY_BUS = 0x18;
inline constexpr uint16_t PCI_SECONDARY_BUS = 0x19;
inline constexpr uint16_t PCI_SUBORDINATE_BUS = 0x1a;
inline constexpr uint16_t PCI_SEC_LATENCY_TIMER = 0x1b;
inline constexpr uint16_t PCI_IO_BASE = 0x1c;
inline constexpr uint16_t PCI_IO_LIMIT = 0x1d;
inline constexpr uint16_t PCI_SEC_STATUS = 0x1e;
inline constexpr uint16_t PCI_MEMORY_BASE = 0x20;
inline constexpr uint16_t PCI_MEMORY_LIMIT = 0x22;
inline constexpr uint16_t PCI_PREF_MEMORY_BASE = 0x24;
inline constexpr uint16_t PCI_PREF_MEMORY_LIMIT = 0x26;
inline constexpr uint16_t PCI_PREF_BASE_UPPER32 = 0x28;
inline constexpr uint16_t PCI_PREF_LIMIT_UPPER32 = 0x2c;
inline constexpr uint16_t PCI_IO_BASE_UPPER16 = 0x30;
inline constexpr uint16_t PCI_IO_LIMIT_UPPER16 = 0x32;
inline constexpr uint16_t PCI_ROM_ADDRESS1 = 0x38;
inline constexpr uint16_t PCI_BRIDGE_CONTROL = 0x3e;

inline constexpr uint8_t PCI_HEADER_TYPE_NORMAL = 0;
inline constexpr uint8_t PCI_HEADER_TYPE_BRIDGE = 1;

inline constexpr uint16_t PCI_COMMAND_IO = 0x0001;
inline constexpr uint16_t PCI_COMMAND_MEMORY = 0x0002;
inline constexpr uint16_t PCI_COMMAND_MASTER = 0x0004;
inline constexpr uint16_t PCI_COMMAND_PARITY = 0x0040;
inline constexpr uint16_t PCI_COMMAND_SERR = 0x0100;
inline constexpr uint16_t PCI_COMMAND_INTX_DISABLE = 0x0400;

inline constexpr uint16_t PCI_STATUS_IMM_READY = 0x0001;
inline constexpr uint16_t PCI_STATUS_INTERRUPT = 0x0008;
inline constexpr uint16_t PCI_STATUS_CAP_LIST = 0x0010;
inline constexpr uint16_t PCI_STATUS_PARITY = 0x0100;
inline constexpr uint16_t PCI_STATUS_SIG_TARGET_ABORT = 0x0800;
inline constexpr uint16_t PCI_STATUS_REC_TARGET_ABORT = 0x1000;
inline constexpr uint16_t PCI_STATUS_REC_MASTER_ABORT = 0x2000;
inline constexpr uint16_t PCI_STATUS_SIG_SYSTEM_ERROR = 0x4000;
inline constexpr uint16_t PCI_STATUS_DETECTED_PARITY = 0x8000;
// The error bits a function reports: write-1-to-clear.
inline constexpr uint16_t PCI_STATUS_ERROR_BITS = 0xf900;

inline constexpr uint32_t PCI_BASE_ADDRESS_SPACE_IO = 0x01;
inline constexpr uint32_t PCI_BASE_ADDRESS_MEM_TYPE_64 = 0x04;
inline constexpr uint32_t PCI_BASE_ADDRESS_MEM_PREFETCH = 0x08;
inline constexpr uint32_t PCI_BASE_ADDRESS_MEM_MASK = ~0x0fu;

inline constexpr uint16_t PCI_PREF_RANGE_TYPE_64 = 0x01;
inline constexpr uint16_t PCI_BRIDGE_CTL_PARITY = 0x01;
inline constexpr uint16_t PCI_BRIDGE_CTL_SERR = 0x02;
inline constexpr uint16_t PCI_BRIDGE_CTL_BUS_RESET = 0x40;

// Capability IDs.
inline constexpr uint8_t PCI_CAP_ID_PM = 0x01;
inline constexpr uint8_t PCI_CAP_ID_MSI = 0x05;
inline constexpr uint8_t PCI_CAP_ID_VNDR = 0x09;
inline constexpr uint8_t PCI_CAP_ID_EXP = 0x10;
inline constexpr uint8_t PCI_CAP_ID_MSIX = 0x11;
inline constexpr uint16_t PCI_CAP_LIST_ID = 0;
inline constexpr uint16_t PCI_CAP_LIST_NEXT = 1;

// Extended capabilities (config space 0x100..0xfff).
inline constexpr uint16_t PCI_CFG_SPACE_SIZE = 256;
inline constexpr uint16_t PCI_CFG_SPACE_EXP_SIZE = 4096;
inline constexpr uint16_t PCI_EXT_CAP_ID_VNDR = 0x0b;
inline constexpr uint16_t PCI_EXT_CAP_ID_DSN = 0x03;
inline constexpr uint16_t PCI_EXT_CAP_ID_ACS = 0x0d;
inline constexpr uint16_t PCI_EXT_CAP_ID_ARI = 0x0e;
inline constexpr uint16_t PCI_EXT_CAP_ID_SRIOV = 0x10;

// Single Root I/O Virtualization (PCIe r5.0 §9.3.3, Linux pci_regs.h PCI_SRIOV_*).
inline constexpr uint16_t PCI_SRIOV_CAP = 0x04;
inline constexpr uint16_t PCI_SRIOV_CTRL = 0x08;
inline constexpr uint16_t PCI_SRIOV_CTRL_VFE = 0x01;
inline constexpr uint16_t PCI_SRIOV_CTRL_VFM = 0x02;
inline constexpr uint16_t PCI_SRIOV_CTRL_INTR = 0x04;
inline constexpr uint16_t PCI_SRIOV_CTRL_MSE = 0x08;
inline constexpr uint16_t PCI_SRIOV_CTRL_ARI = 0x10;
inline constexpr uint16_t PCI_SRIOV_STATUS = 0x0a;
inline constexpr uint16_t PCI_SRIOV_INITIAL_VF = 0x0c;
inline constexpr uint16_t PCI_SRIOV_TOTAL_VF = 0x0e;
inline constexpr uint16_t PCI_SRIOV_NUM_VF = 0x10;
inline constexpr uint16_t PCI_SRIOV_FUNC_LINK = 0x12;
inline constexpr uint16_t PCI_SRIOV_VF_OFFSET = 0x14;
inline constexpr uint16_t PCI_SRIOV_VF_STRIDE = 0x16;
inline constexpr uint16_t PCI_SRIOV_VF_DID = 0x1a;
inline constexpr uint16_t PCI_SRIOV_SUP_PGSIZE = 0x1c;
inline constexpr uint16_t PCI_SRIOV_SYS_PGSIZE = 0x20;
inline constexpr uint16_t PCI_SRIOV_BAR = 0x24;
inline constexpr uint16_t PCI_SRIOV_NUM_BARS = 6;
inline constexpr uint16_t PCI_SRIOV_VFM = 0x3c;
inline constexpr uint16_t PCI_EXT_CAP_SRIOV_SIZEOF = 0x40;

// Alternative Routing-ID Interpretation (PCIe r5.0 §7.8.8, PCI_ARI_*).
inline constexpr uint16_t PCI_ARI_CAP = 0x04;
inline constexpr uint16_t PCI_ARI_CTRL = 0x06;
inline constexpr uint16_t PCI_EXT_CAP_ARI_SIZEOF = 8;

// Access Control Services (PCIe r5.0 §7.7.8, PCI_ACS_*).
inline constexpr uint16_t PCI_ACS_CAP = 0x04;
inline constexpr uint16_t PCI_ACS_SV = 0x0001;
inline constexpr uint16_t PCI_ACS_TB = 0x0002;
inline constexpr uint16_t PCI_ACS_RR = 0x0004;
inline constexpr uint16_t PCI_ACS_CR = 0x0008;
inline constexpr uint16_t PCI_ACS_UF = 0x0010;
inline constexpr uint16_t PCI_ACS_EC = 0x0020;
inline constexpr uint16_t PCI_ACS_DT = 0x0040;
inline constexpr uint16_t PCI_ACS_CTRL = 0x06;
inline constexpr uint16_t PCI_EXT_CAP_ACS_SIZEOF = 8;

// Power management capability.
inline constexpr uint16_t PCI_PM_PMC = 2;
inline constexpr uint16_t PCI_PM_CTRL = 4;
inline constexpr uint16_t PCI_PM_SIZEOF = 8;

// MSI capability.
inline constexpr uint16_t PCI_MSI_FLAGS = 2;
inline constexpr uint16_t PCI_MSI_FLAGS_ENABLE = 0x0001;
inline constexpr uint16_t PCI_MSI_FLAGS_QMASK = 0x000e;
inline constexpr uint16_t PCI_MSI_FLAGS_QSIZE = 0x0070;
inline constexpr uint16_t PCI_MSI_FLAGS_64BIT = 0x0080;
inline constexpr uint16_t PCI_MSI_FLAGS_MASKBIT = 0x0100;
inline constexpr uint16_t PCI_MSI_ADDRESS_LO = 4;
inline constexpr uint16_t PCI_MSI_ADDRESS_HI = 8;
inline constexpr uint16_t PCI_MSI_DATA_32 = 8;
inline constexpr uint16_t PCI_MSI_DATA_64 = 12;
inline constexpr uint16_t PCI_MSI_MASK_64 = 16;
inline constexpr uint16_t PCI_MSI_PENDING_64 = 20;

// MSI-X capability (PCIe §7.7.2).
inline constexpr uint16_t PCI_MSIX_FLAGS = 2;
inline constexpr uint16_t PCI_MSIX_FLAGS_QSIZE = 0x07ff;
inline constexpr uint16_t PCI_MSIX_FLAGS_MASKALL = 0x4000;
inline constexpr uint16_t PCI_MSIX_FLAGS_ENABLE = 0x8000;
inline constexpr uint16_t PCI_MSIX_TABLE = 4;
inline constexpr uint16_t PCI_MSIX_PBA = 8;
inline constexpr uint32_t PCI_MSIX_TABLE_BIR = 0x7;
inline constexpr uint32_t PCI_MSIX_TABLE_OFFSET = 0xfffffff8;
inline constexpr uint16_t PCI_MSIX_CAP_SIZEOF = 12;
inline constexpr uint16_t PCI_MSIX_ENTRY_SIZE = 16;
inline constexpr uint16_t PCI_MSIX_ENTRY_LOWER_ADDR = 0;
inline constexpr uint16_t PCI_MSIX_ENTRY_UPPER_ADDR = 4;
inline constexpr uint16_t PCI_MSIX_ENTRY_DATA = 8;
inline constexpr uint16_t PCI_MSIX_ENTRY_VECTOR_CTRL = 12;
inline constexpr uint32_t PCI_MSIX_ENTRY_CTRL_MASKBIT = 0x1;

// PCI Express capability (PCIe §7.5.3).
inline constexpr uint16_t PCI_EXP_FLAGS = 0x02;
inline constexpr uint16_t PCI_EXP_FLAGS_VERS = 0x000f;
inline constexpr uint16_t PCI_EXP_FLAGS_TYPE = 0x00f0;
inline constexpr uint16_t PCI_EXP_FLAGS_SLOT = 0x0100;
inline constexpr uint16_t PCI_EXP_FLAGS_IRQ = 0x3e00;
inline constexpr uint8_t PCI_EXP_TYPE_ENDPOINT = 0x0;
inline constexpr uint8_t PCI_EXP_TYPE_UPSTREAM = 0x5;
inline constexpr uint8_t PCI_EXP_TYPE_DOWNSTREAM = 0x6;
inline constexpr uint16_t PCI_EXP_DEVCAP = 0x04;
inline constexpr uint32_t PCI_EXP_DEVCAP_PAYLOAD = 0x00000007;
inline constexpr uint32_t PCI_EXP_DEVCAP_EXT_TAG = 0x00000020;
inline constexpr uint32_t PCI_EXP_DEVCAP_FLR = 0x10000000;
inline constexpr uint16_t PCI_EXP_DEVCTL = 0x08;
inline constexpr uint16_t PCI_EXP_DEVCTL_CERE = 0x0001;
inline constexpr uint16_t PCI_EXP_DEVCTL_NFERE = 0x0002;
inline constexpr uint16_t PCI_EXP_DEVCTL_FERE = 0x0004;
inline constexpr uint16_t PCI_EXP_DEVCTL_URRE = 0x0008;
inline constexpr uint16_t PCI_EXP_DEVCTL_RELAX_EN = 0x0010;
inline constexpr uint16_t PCI_EXP_DEVCTL_PAYLOAD = 0x00e0;
inline constexpr uint16_t PCI_EXP_DEVCTL_EXT_TAG = 0x0100;
inline constexpr uint16_t PCI_EXP_DEVCTL_NOSNOOP_EN = 0x0800;
inline constexpr uint16_t PCI_EXP_DEVCTL_READRQ = 0x7000;
inline constexpr uint16_t PCI_EXP_DEVCTL_BCR_FLR = 0x8000;
inline constexpr uint16_t PCI_EXP_DEVSTA = 0x0a;
inline constexpr uint16_t PCI_EXP_DEVSTA_CED = 0x0001;
inline constexpr uint16_t PCI_EXP_DEVSTA_NFED = 0x0002;
inline constexpr uint16_t PCI_EXP_DEVSTA_FED = 0x0004;
inline constexpr uint16_t PCI_EXP_DEVSTA_URD = 0x0008;
inline constexpr uint16_t PCI_EXP_DEVSTA_TRPND = 0x0020;
inline constexpr uint16_t PCI_EXP_LNKCAP = 0x0c;
inline constexpr uint32_t PCI_EXP_LNKCAP_SLS = 0x0000000f;
inline constexpr uint32_t PCI_EXP_LNKCAP_MLW = 0x000003f0;
inline constexpr uint32_t PCI_EXP_LNKCAP_DLLLARC = 0x00100000;
inline constexpr uint16_t PCI_EXP_LNKCTL = 0x10;
inline constexpr uint16_t PCI_EXP_LNKCTL_RCB = 0x0008;
inline constexpr uint16_t PCI_EXP_LNKCTL_LD = 0x0010;
inline constexpr uint16_t PCI_EXP_LNKCTL_RL = 0x0020;
inline constexpr uint16_t PCI_EXP_LNKSTA = 0x12;
inline constexpr uint16_t PCI_EXP_LNKSTA_CLS = 0x000f;
inline constexpr uint16_t PCI_EXP_LNKSTA_NLW = 0x03f0;
inline constexpr uint16_t PCI_EXP_LNKSTA_NLW_SHIFT = 4;
inline constexpr uint16_t PCI_EXP_LNKSTA_LT = 0x0800;
inline constexpr uint16_t PCI_EXP_LNKSTA_SLC = 0x1000;
inline constexpr uint16_t PCI_EXP_LNKSTA_DLLLA = 0x2000;
inline constexpr uint16_t PCI_EXP_LNKSTA_LBMS = 0x4000;
inline constexpr uint16_t PCI_EXP_LNKSTA_LABS = 0x8000;
inline constexpr uint16_t PCI_EXP_SLTCAP = 0x14;
inline constexpr uint32_t PCI_EXP_SLTCAP_ABP = 0x00000001;
inline constexpr uint32_t PCI_EXP_SLTCAP_PCP = 0x00000002;
inline constexpr uint32_t PCI_EXP_SLTCAP_MRLSP = 0x00000004;
inline constexpr uint32_t PCI_EXP_SLTCAP_AIP = 0x00000008;
inline constexpr uint32_t PCI_EXP_SLTCAP_PIP = 0x00000010;
inline constexpr uint32_t PCI_EXP_SLTCAP_HPS = 0x00000020;
inline constexpr uint32_t PCI_EXP_SLTCAP_HPC = 0x00000040;
inline constexpr uint32_t PCI_EXP_SLTCAP_SPLV = 0x00007f80;
inline constexpr uint32_t PCI_EXP_SLTCAP_SPLS = 0x00018000;
inline constexpr uint32_t PCI_EXP_SLTCAP_EIP = 0x00020000;
inline constexpr uint32_t PCI_EXP_SLTCAP_NCCS = 0x00040000;
inline constexpr uint32_t PCI_EXP_SLTCAP_PSN = 0xfff80000;
inline constexpr uint16_t PCI_EXP_SLTCTL = 0x18;
inline constexpr uint16_t PCI_EXP_SLTCTL_ABPE = 0x0001;
inline constexpr uint16_t PCI_EXP_SLTCTL_PFDE = 0x0002;
inline constexpr uint16_t PCI_EXP_SLTCTL_MRLSCE = 0x0004;
inline constexpr uint16_t PCI_EXP_SLTCTL_PDCE = 0x0008;
inline constexpr uint16_t PCI_EXP_SLTCTL_CCIE = 0x0010;
inline constexpr uint16_t PCI_EXP_SLTCTL_HPIE = 0x0020;
inline constexpr uint16_t PCI_EXP_SLTCTL_AIC = 0x00c0;
inline constexpr uint16_t PCI_EXP_SLTCTL_PIC = 0x0300;
inline constexpr uint16_t PCI_EXP_SLTCTL_PCC = 0x0400;
inline constexpr uint16_t PCI_EXP_SLTCTL_PWR_OFF = 0x0400;
inline constexpr uint16_t PCI_EXP_SLTCTL_EIC = 0x0800;
inline constexpr uint16_t PCI_EXP_SLTCTL_DLLSCE = 0x1000;
inline constexpr uint16_t PCI_EXP_SLTSTA = 0x1a;
inline constexpr uint16_t PCI_EXP_SLTSTA_ABP = 0x0001;
inline constexpr uint16_t PCI_EXP_SLTSTA_PFD = 0x0002;
inline constexpr uint16_t PCI_EXP_SLTSTA_MRLSC = 0x0004;
inline constexpr uint16_t PCI_EXP_SLTSTA_PDC = 0x0008;
inline constexpr uint16_t PCI_EXP_SLTSTA_CC = 0x0010;
inline constexpr uint16_t PCI_EXP_SLTSTA_MRLSS = 0x0020;
inline constexpr uint16_t PCI_EXP_SLTSTA_PDS = 0x0040;
inline constexpr uint16_t PCI_EXP_SLTSTA_EIS = 0x0080;
inline constexpr uint16_t PCI_EXP_SLTSTA_DLLSC = 0x0100;
// Slot Status event bits: write-1-to-clear (PCIe §7.5.3.11).
inline constexpr uint16_t PCI_EXP_SLTSTA_EVENTS = 0x011f;
inline constexpr uint16_t PCI_EXP_RTCTL = 0x1c;
inline constexpr uint16_t PCI_EXP_DEVCAP2 = 0x24;
inline constexpr uint32_t PCI_EXP_DEVCAP2_ARI = 0x00000020;
inline constexpr uint16_t PCI_EXP_DEVCTL2 = 0x28;
inline constexpr uint16_t PCI_EXP_DEVCTL2_COMP_TIMEOUT = 0x000f;
inline constexpr uint16_t PCI_EXP_DEVCTL2_ARI = 0x0020;
inline constexpr uint16_t PCI_EXP_LNKCAP2 = 0x2c;
inline constexpr uint16_t PCI_EXP_LNKCTL2 = 0x30;
inline constexpr uint16_t PCI_EXP_LNKSTA2 = 0x32;
inline constexpr uint16_t PCI_EXP_SLTCAP2 = 0x34;
inline constexpr uint16_t PCI_EXP_SLTCTL2 = 0x38;
// Version 2 capability of a port with a link and a slot: 0x3c bytes.
inline constexpr uint16_t PCI_CAP_EXP_SIZEOF_V2 = 0x3c;
// Version 2 capability of an endpoint with a link: ends before the slot registers.
inline constexpr uint16_t PCI_CAP_EXP_ENDPOINT_SIZEOF_V2 = 0x3c;

// Vendor-specific capability: ID, next, length, then vendor data.
inline constexpr uint16_t PCI_CAP_VNDR_LEN = 2;

}  // namespace dpusim::pci
