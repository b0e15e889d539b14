#include "tlm/capabilities.h"

#include "tlm/pci_regs.h"

namespace dpusim::pcie {

using namespace dpusim::pci;

void init_type0_header(ConfigSpace& cfg, const Type0Identity& id) {
  cfg.define(PCI_VENDOR_ID, 2, id.vendor_id);
  cfg.define(PCI_DEVICE_ID, 2, id.device_id);
  cfg.define(PCI_COMMAND, 2, 0,
             PCI_COMMAND_IO | PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER | PCI_COMMAND_PARITY | PCI_COMMAND_SERR |
                 PCI_COMMAND_INTX_DISABLE);
  cfg.define(PCI_STATUS, 2, cfg.get(PCI_STATUS, 2) & PCI_STATUS_CAP_LIST, 0, PCI_STATUS_ERROR_BITS);
  cfg.define(PCI_CLASS_REVISION, 4, id.class_code << 8 | id.revision);
  cfg.define(PCI_CACHE_LINE_SIZE, 1, 0, 0xff);
  cfg.define(PCI_LATENCY_TIMER, 1, 0);
  cfg.define(PCI_HEADER_TYPE, 1, PCI_HEADER_TYPE_NORMAL);
  cfg.define(PCI_SUBSYSTEM_VENDOR_ID, 2, id.subsystem_vendor_id);
  cfg.define(PCI_SUBSYSTEM_ID, 2, id.subsystem_id);
  cfg.define(PCI_INTERRUPT_LINE, 1, 0, 0xff);
  cfg.define(PCI_INTERRUPT_PIN, 1, id.interrupt_pin);
}

void init_type1_header(ConfigSpace& cfg, const Type1Identity& id) {
  cfg.define(PCI_VENDOR_ID, 2, id.vendor_id);
  cfg.define(PCI_DEVICE_ID, 2, id.device_id);
  cfg.define(PCI_COMMAND, 2, 0,
             PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER | PCI_COMMAND_PARITY | PCI_COMMAND_SERR |
                 PCI_COMMAND_INTX_DISABLE);
  cfg.define(PCI_STATUS, 2, cfg.get(PCI_STATUS, 2) & PCI_STATUS_CAP_LIST, 0, PCI_STATUS_ERROR_BITS);
  cfg.define(PCI_CLASS_REVISION, 4, 0x060400u << 8 | id.revision);
  cfg.define(PCI_CACHE_LINE_SIZE, 1, 0, 0xff);
  cfg.define(PCI_HEADER_TYPE, 1, PCI_HEADER_TYPE_BRIDGE);
  cfg.define(PCI_PRIMARY_BUS, 1, 0, 0xff);
  cfg.define(PCI_SECONDARY_BUS, 1, 0, 0xff);
  cfg.define(PCI_SUBORDINATE_BUS, 1, 0, 0xff);
  cfg.define(PCI_SEC_LATENCY_TIMER, 1, 0);
  // No I/O window: I/O Base/Limit read 0 (PCIe §7.5.1.3.6 allows it).
  cfg.define(PCI_SEC_STATUS, 2, 0, 0, PCI_STATUS_ERROR_BITS);
  // Memory Base/Limit: [15:4] = address [31:20], [3:0] RO 0.
  cfg.define(PCI_MEMORY_BASE, 2, 0, 0xfff0);
  cfg.define(PCI_MEMORY_LIMIT, 2, 0, 0xfff0);
  // Prefetchable Base/Limit: [3:0] = 1, 64-bit addressing; upper 32 bits in their own DWs.
  cfg.define(PCI_PREF_MEMORY_BASE, 2, PCI_PREF_RANGE_TYPE_64, 0xfff0);
  cfg.define(PCI_PREF_MEMORY_LIMIT, 2, PCI_PREF_RANGE_TYPE_64, 0xfff0);
  cfg.define(PCI_PREF_BASE_UPPER32, 4, 0, 0xffffffff);
  cfg.define(PCI_PREF_LIMIT_UPPER32, 4, 0, 0xffffffff);
  cfg.define(PCI_INTERRUPT_LINE, 1, 0, 0xff);
  cfg.define(PCI_BRIDGE_CONTROL, 2, 0, PCI_BRIDGE_CTL_PARITY | PCI_BRIDGE_CTL_SERR | PCI_BRIDGE_CTL_BUS_RESET);
}

void define_memory_bar(ConfigSpace& cfg, unsigned index, uint64_t size, bool is_64bit, bool prefetchable) {
  if (size < 16 || (size & (size - 1)) || index > 5 || (is_64bit && index > 4) ||
      (!is_64bit && size > (1ull << 31)))
    throw ConfigLayoutError("BAR" + std::to_string(index) + " of size " + std::to_string(size) +
                            " is not a valid memory BAR");
  const uint16_t off = uint16_t(PCI_BASE_ADDRESS_0 + 4 * index);
  const uint32_t flags = (is_64bit ? PCI_BASE_ADDRESS_MEM_TYPE_64 : 0) | (prefetchable ? PCI_BASE_ADDRESS_MEM_PREFETCH : 0);
  const uint64_t mask = ~(size - 1);
  cfg.define(off, 4, flags, uint32_t(mask) & PCI_BASE_ADDRESS_MEM_MASK);
  if (is_64bit) cfg.define(uint16_t(off + 4), 4, 0, uint32_t(mask >> 32));
}

uint16_t add_pm_cap(ConfigSpace& cfg, uint16_t pmc, uint16_t at) {
  const uint16_t off = cfg.add_capability(PCI_CAP_ID_PM, PCI_PM_SIZEOF, at);
  cfg.define(off + PCI_PM_PMC, 2, pmc);
  cfg.define(off + PCI_PM_CTRL, 2, 0x0008 /* No_Soft_Reset */, 0x0003 /* PowerState */);
  return off;
}

uint16_t add_pcie_cap(ConfigSpace& cfg, const PcieCapSpec& s, uint16_t at) {
  const bool port = s.port_type == PCI_EXP_TYPE_DOWNSTREAM || s.port_type == PCI_EXP_TYPE_UPSTREAM;
  const bool downstream = s.port_type == PCI_EXP_TYPE_DOWNSTREAM;
  const uint16_t off = cfg.add_capability(PCI_CAP_ID_EXP, PCI_CAP_EXP_SIZEOF_V2, at);
  cfg.define(off + PCI_EXP_FLAGS, 2,
             2u | uint32_t(s.port_type) << 4 | (s.slot_implemented ? PCI_EXP_FLAGS_SLOT : 0) |
                 uint32_t(s.interrupt_message & 0x1f) << 9);
  cfg.define(off + PCI_EXP_DEVCAP, 4, s.devcap);
  // Device Control: every field RW (PCIe §7.5.3.4); Initiate FLR (bit 15) reads 0 and acts
  // through a write hook of the device; on bridges bit 15 is Bridge Config Retry Enable.
  cfg.define(off + PCI_EXP_DEVCTL, 2, s.devctl, port ? 0xffff : 0x7fff);
  cfg.define(off + PCI_EXP_DEVSTA, 2, 0, 0,
             PCI_EXP_DEVSTA_CED | PCI_EXP_DEVSTA_NFED | PCI_EXP_DEVSTA_FED | PCI_EXP_DEVSTA_URD);
  cfg.define(off + PCI_EXP_LNKCAP, 4, s.linkcap);
  // Link Control: Link Disable and Retrain Link exist on downstream ports only; RCB is RO on
  // switch ports (PCIe §7.5.3.7).
  cfg.define(off + PCI_EXP_LNKCTL, 2, s.linkctl, downstream ? 0x0fd3 : (port ? 0x0fc3 : 0x0fcb));
  cfg.define(off + PCI_EXP_LNKSTA, 2, s.linksta, 0, PCI_EXP_LNKSTA_LBMS | PCI_EXP_LNKSTA_LABS);
  cfg.define(off + PCI_EXP_SLTCAP, 4, s.slot_implemented ? s.slotcap : 0);
  cfg.define(off + PCI_EXP_SLTCTL, 2, s.slotctl, s.slot_implemented ? 0x1fff : 0);
  cfg.define(off + PCI_EXP_SLTSTA, 2, s.slotsta, 0, s.slot_implemented ? PCI_EXP_SLTSTA_EVENTS : 0);
  cfg.define(off + PCI_EXP_RTCTL, 2, 0);
  cfg.define(off + PCI_EXP_DEVCAP2, 4, s.devcap2);
  cfg.define(off + PCI_EXP_DEVCTL2, 2, 0,
             PCI_EXP_DEVCTL2_COMP_TIMEOUT | 0x0010 |
                 ((s.devcap2 & PCI_EXP_DEVCAP2_ARI) ? PCI_EXP_DEVCTL2_ARI : 0));
  cfg.define(off + PCI_EXP_LNKCAP2, 4, s.linkcap2);
  cfg.define(off + PCI_EXP_LNKCTL2, 2, s.linkctl2, 0x000f);
  cfg.define(off + PCI_EXP_LNKSTA2, 2, 0);
  return off;
}

uint16_t add_msi_cap(ConfigSpace& cfg, unsigned log2_vectors, bool per_vector_mask, uint16_t at) {
  const uint16_t size = per_vector_mask ? 24 : 14;
  const uint16_t off = cfg.add_capability(PCI_CAP_ID_MSI, size, at);
  cfg.define(off + PCI_MSI_FLAGS, 2,
             PCI_MSI_FLAGS_64BIT | (per_vector_mask ? PCI_MSI_FLAGS_MASKBIT : 0) | uint32_t(log2_vectors & 7) << 1,
             PCI_MSI_FLAGS_ENABLE | PCI_MSI_FLAGS_QSIZE);
  cfg.define(off + PCI_MSI_ADDRESS_LO, 4, 0, 0xfffffffc);
  cfg.define(off + PCI_MSI_ADDRESS_HI, 4, 0, 0xffffffff);
  cfg.define(off + PCI_MSI_DATA_64, 2, 0, 0xffff);
  if (per_vector_mask) {
    const unsigned n = 1u << (log2_vectors & 7);
    cfg.define(off + PCI_MSI_MASK_64, 4, 0, n >= 32 ? 0xffffffff : (1u << n) - 1);
    cfg.define(off + PCI_MSI_PENDING_64, 4, 0);
  }
  return off;
}

uint16_t add_msix_cap(ConfigSpace& cfg, unsigned table_size, unsigned table_bir, uint32_t table_offset,
                      unsigned pba_bir, uint32_t pba_offset, uint16_t at) {
  if (table_size == 0 || table_size > 2048 || table_bir > 5 || pba_bir > 5 || (table_offset & 7) || (pba_offset & 7))
    throw ConfigLayoutError("MSI-X capability with " + std::to_string(table_size) + " vectors is invalid");
  const uint16_t off = cfg.add_capability(PCI_CAP_ID_MSIX, PCI_MSIX_CAP_SIZEOF, at);
  cfg.define(off + PCI_MSIX_FLAGS, 2, table_size - 1, PCI_MSIX_FLAGS_ENABLE | PCI_MSIX_FLAGS_MASKALL);
  cfg.define(off + PCI_MSIX_TABLE, 4, table_offset | table_bir);
  cfg.define(off + PCI_MSIX_PBA, 4, pba_offset | pba_bir);
  return off;
}

uint16_t add_vendor_cap(ConfigSpace& cfg, const std::vector<uint8_t>& body, uint16_t at) {
  const uint16_t len = uint16_t(3 + body.size());
  const uint16_t off = cfg.add_capability(PCI_CAP_ID_VNDR, len, at);
  cfg.define(off + PCI_CAP_VNDR_LEN, 1, len);
  for (size_t i = 0; i < body.size(); ++i) cfg.define(uint16_t(off + 3 + i), 1, body[i]);
  return off;
}

uint16_t add_vendor_ext_cap(ConfigSpace& cfg, uint16_t vsec_id, uint8_t vsec_rev, const std::vector<uint8_t>& body,
                            uint16_t at) {
  const uint16_t len = uint16_t(8 + body.size());
  const uint16_t off = cfg.add_ext_capability(PCI_EXT_CAP_ID_VNDR, 1, len, at);
  cfg.define(off + 4, 4, uint32_t(vsec_id) | uint32_t(vsec_rev & 0xf) << 16 | uint32_t(len) << 20);
  for (size_t i = 0; i < body.size(); ++i) cfg.define(uint16_t(off + 8 + i), 1, body[i]);
  return off;
}

uint16_t add_ari_cap(ConfigSpace& cfg, uint8_t next_function, uint16_t at) {
  const uint16_t off = cfg.add_ext_capability(PCI_EXT_CAP_ID_ARI, 1, PCI_EXT_CAP_ARI_SIZEOF, at);
  cfg.define(off + PCI_ARI_CAP, 2, uint32_t(next_function) << 8);
  cfg.define(off + PCI_ARI_CTRL, 2, 0);
  return off;
}

uint16_t add_acs_cap(ConfigSpace& cfg, uint16_t capabilities, uint16_t at) {
  // Egress Control would need its vector (PCIe §7.7.8.4), which this 8-byte layout has not.
  const uint16_t supported = PCI_ACS_SV | PCI_ACS_TB | PCI_ACS_RR | PCI_ACS_CR | PCI_ACS_UF | PCI_ACS_DT;
  if (capabilities & ~supported)
    throw ConfigLayoutError("ACS capability " + std::to_string(capabilities) +
                            " sets a control other than SV, TB, RR, CR, UF, DT (no Egress Control vector)");
  const uint16_t off = cfg.add_ext_capability(PCI_EXT_CAP_ID_ACS, 1, PCI_EXT_CAP_ACS_SIZEOF, at);
  cfg.define(off + PCI_ACS_CAP, 2, capabilities);
  cfg.define(off + PCI_ACS_CTRL, 2, 0, capabilities);
  return off;
}

// Encodings 6 and 7 are reserved (PCIe §7.5.3.4); a function programmed with one behaves as
// with the largest defined size, 4096 bytes.
unsigned devctl_max_payload(uint16_t devctl) {
  const unsigned enc = (devctl & PCI_EXP_DEVCTL_PAYLOAD) >> 5;
  return 128u << (enc > 5 ? 5 : enc);
}
unsigned devctl_max_read_request(uint16_t devctl) {
  const unsigned enc = (devctl & PCI_EXP_DEVCTL_READRQ) >> 12;
  return 128u << (enc > 5 ? 5 : enc);
}

}  // namespace dpusim::pcie
