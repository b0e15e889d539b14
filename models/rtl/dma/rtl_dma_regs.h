// The DMA endpoint's register map (hdl/rtl_dma_pkg.sv, docs/cosim.md) and identity, for the C++
// side: its function's config space, tests, benchmarks. BAR0 (32-bit, 8 KiB): the block's
// registers at 0x0000 (a 4 KiB window), the MSI-X table (one vector) at 0x1000 and its PBA at
// 0x1800, which the hard IP core keeps.
#pragma once

#include <cstdint>

namespace dpusim::rtl::dma {

inline constexpr uint32_t RTL_DMA_ID = 0x00;        // RO: kRtlDmaId
inline constexpr uint32_t RTL_DMA_CTRL = 0x04;      // RW: RTL_DMA_CTRL_IRQ_EN
inline constexpr uint32_t RTL_DMA_SRC_LO = 0x08;    // RW: source host address
inline constexpr uint32_t RTL_DMA_SRC_HI = 0x0c;
inline constexpr uint32_t RTL_DMA_DST_LO = 0x10;    // RW: destination host address
inline constexpr uint32_t RTL_DMA_DST_HI = 0x14;
inline constexpr uint32_t RTL_DMA_LEN = 0x18;       // RW: [23:0] bytes
inline constexpr uint32_t RTL_DMA_DOORBELL = 0x1c;  // WO: RTL_DMA_DOORBELL_START
inline constexpr uint32_t RTL_DMA_STATUS = 0x20;    // RTL_DMA_STATUS_*
inline constexpr uint32_t RTL_DMA_COUNT = 0x24;     // RO: copies completed without error
inline constexpr uint32_t RTL_DMA_PARAMS = 0x28;    // RO: [7:0] tags, [15:8] log2 of the buffer's bytes

inline constexpr uint32_t RTL_DMA_CTRL_IRQ_EN = 1u << 0;  // MSI-X vector 0 when a copy ends
inline constexpr uint32_t RTL_DMA_DOORBELL_START = 1u << 0;
inline constexpr uint32_t RTL_DMA_STATUS_BUSY = 1u << 0;     // RO
inline constexpr uint32_t RTL_DMA_STATUS_DONE = 1u << 1;     // RW1C
inline constexpr uint32_t RTL_DMA_STATUS_ERROR = 1u << 2;    // RW1C
inline constexpr uint32_t RTL_DMA_STATUS_OVERRUN = 1u << 3;  // RW1C: a doorbell while busy, dropped
inline constexpr unsigned RTL_DMA_STATUS_CAUSE_SHIFT = 4;    // [6:4] RO: RTL_DMA_CAUSE_*
inline constexpr unsigned RTL_DMA_STATUS_CPL_SHIFT = 8;      // [10:8] RO: the failing completion's status
inline constexpr uint32_t RTL_DMA_CAUSE_LENGTH = 1;          // DMA_LEN was 0
inline constexpr uint32_t RTL_DMA_CAUSE_BUS_MASTER = 2;      // Bus Master Enable clear
inline constexpr uint32_t RTL_DMA_CAUSE_CPL_STATUS = 3;      // a read completed with UR or CA
inline constexpr uint32_t RTL_DMA_CAUSE_CPL_MALFORMED = 4;   // a completion's byte count or address was wrong
inline constexpr uint32_t kRtlDmaMaxLen = (1u << 24) - 1;

inline constexpr uint32_t kRtlDmaId = 0x444d4131;  // "DMA1"
inline constexpr uint16_t kVendorId = 0x1234, kDeviceId = 0x0d3a;
inline constexpr uint32_t kClassDma = 0x080100;  // system peripheral, DMA controller (PCI Code and ID Assignment)
inline constexpr uint32_t kBar0Size = 8 << 10, kRegsWindow = 4 << 10, kMsixTable = 0x1000, kMsixPba = 0x1800;
inline constexpr unsigned kMsixVectors = 1;
// The block's parameters (hdl/rtl_dma.sv), as RTL_DMA_PARAMS reports them.
inline constexpr unsigned kTags = 8, kBufferLog2 = 13;

}  // namespace dpusim::rtl::dma
