// The DOCA vnet_pci_dev application's fixed layout (pci_spec_tlp.h, vnet_pci_device.h): PCI identities, the
// endpoint's BAR0 regions, topology and queue limits. The names are the application's own
// where it has them (pci_spec_tlp.h, vnet_pci_device.h, virtio_pci_spec.h).
#pragma once

#include <cstdint>

namespace dpusim::vnet {

// PCI identities (virtio_pci_spec.h, pci_spec_tlp.h).
inline constexpr uint16_t VIRTIO_PCI_VENDOR_ID = 0x1af4;
inline constexpr uint16_t VIRTIO_PCI_DEVICE_ID_BASE = 0x1040;
inline constexpr uint16_t VIRTIO_ID_NET = 1;
inline constexpr uint16_t TLP_BRIDGE_DEVICE_ID = 0x10f1;   // USP and every DSP
inline constexpr uint16_t TLP_EP_INTERNAL_DEVICE_ID = 0x10f0;  // the EP's internal switch image
inline constexpr uint32_t PCI_CLASS_BRIDGE_PCI = 0x060400;
inline constexpr uint32_t PCI_CLASS_NETWORK_ETHERNET = 0x020000;

// Topology limits (pci_spec_tlp.h).
inline constexpr unsigned MAX_NUM_DSP = 32;
inline constexpr unsigned MAX_NUM_EP = 32;

// Endpoint BAR0: 64-bit prefetchable, 32 KiB (VNET_VIRTIO_BAR_LOG_SIZE 15).
inline constexpr unsigned VNET_VIRTIO_BAR_LOG_SIZE = 15;
inline constexpr uint64_t VNET_BAR0_SIZE = uint64_t(1) << VNET_VIRTIO_BAR_LOG_SIZE;
inline constexpr uint32_t VNET_BAR0_COMMON_CFG = 0x0000, VNET_BAR0_COMMON_CFG_LEN = 0x100;
inline constexpr uint32_t VNET_BAR0_ISR = 0x0100, VNET_BAR0_ISR_LEN = 1;
inline constexpr uint32_t VNET_BAR0_DEVICE_CFG = 0x0200, VNET_BAR0_DEVICE_CFG_LEN = 0x100;
inline constexpr uint32_t VNET_BAR0_MSIX_TABLE = 0x2000, VNET_BAR0_MSIX_TABLE_LEN = 0x1000;
inline constexpr uint32_t VNET_BAR0_MSIX_PBA = 0x3000, VNET_BAR0_MSIX_PBA_LEN = 0x1000;
inline constexpr uint32_t VNET_BAR0_DOORBELL = 0x4000, VNET_BAR0_DOORBELL_LEN = 0x1000;
inline constexpr uint32_t VNET_PCI_DEV_DB_STRIDE_LOG = 3;  // doorbell stride 8 B
inline constexpr uint32_t VNET_NOTIFY_OFF_MULTIPLIER = 1u << VNET_PCI_DEV_DB_STRIDE_LOG;
inline constexpr unsigned VNET_PCI_DEV_NUM_DB = 256;
inline constexpr unsigned VNET_PCI_DEV_NUM_MSIX = 256;
static_assert(VNET_BAR0_MSIX_TABLE + VNET_BAR0_MSIX_TABLE_LEN == VNET_BAR0_MSIX_PBA, "table and PBA abut");
static_assert(VNET_BAR0_MSIX_PBA + VNET_BAR0_MSIX_PBA_LEN == VNET_BAR0_DOORBELL, "PBA and doorbells abut");
static_assert(VNET_BAR0_DOORBELL + VNET_BAR0_DOORBELL_LEN <= VNET_BAR0_SIZE, "doorbells inside BAR0");
static_assert((VNET_PCI_DEV_NUM_DB << VNET_PCI_DEV_DB_STRIDE_LOG) <= VNET_BAR0_DOORBELL_LEN, "256 doorbells fit");

// What the application emulates in software: common config below 0x40, the net config's 24
// bytes; any other offset it sees reads 0xFAFAFAFA (vnet_pci_device.c's BAR routing).
inline constexpr uint32_t VNET_MMIO_UNSUPPORTED_PATTERN = 0xfafafafa;

// Queues (virtio 1.2 §5.1.2): RX = 2·qp, TX = 2·qp+1, CVQ = 2·max_qp.
inline constexpr unsigned VNET_MAX_QUEUE_PAIRS = 127;
inline constexpr unsigned VNET_TOTAL_VQS(unsigned qps) { return 2 * qps + 1; }
inline constexpr unsigned VNET_MIN_QUEUE_SIZE = 16, VNET_MAX_QUEUE_SIZE = 4096;

// Workqueue and MQ start (vnet_pci_device.h).
inline constexpr unsigned PCI_CFG_WORK_POOL_SIZE = 1024;
inline constexpr unsigned MQ_START_MAX_CONCURRENT = 2;
inline constexpr unsigned WORKER_PE_PROGRESS_PER_ITEM = 100;

}  // namespace dpusim::vnet
