// Capability builders: each lays out one capability in a ConfigSpace with its reset values,
// write masks and RW1C masks as the PCIe Base Specification r5.0 defines them (section given
// per builder). A device composes them; the behaviour behind a register is attached by the
// device or by the library: MSI-X delivery (tlm/msix.h), SR-IOV with its VF Enable edges
// (tlm/sriov_cap.h), Function Level Reset (Function::on_flr, tlm/function.h).
#pragma once

#include <cstdint>
#include <vector>

#include "tlm/config_space.h"

namespace dpusim::pcie {

// Type 0 header (PCIe §7.5.1.2): identity registers (RO), Command/Status semantics.
struct Type0Identity {
  uint16_t vendor_id, device_id;
  uint32_t class_code;  // base << 16 | sub << 8 | prog-if
  uint8_t revision;
  uint16_t subsystem_vendor_id = 0, subsystem_id = 0;
  uint8_t interrupt_pin = 0;
};
void init_type0_header(ConfigSpace& cfg, const Type0Identity& id);

// Type 1 header (PCIe §7.5.1.3) of a PCI-PCI bridge (a switch port): bus numbers RW, memory
// window RW in 1 MiB units, 64-bit prefetchable window, no I/O window, Bridge Control.
struct Type1Identity {
  uint16_t vendor_id, device_id;
  uint8_t revision;
};
void init_type1_header(ConfigSpace& cfg, const Type1Identity& id);

// A memory BAR (PCIe §7.5.1.2.1): size a power of two >= 16 (>= 128 recommended); 64-bit BARs
// take two slots. Bits below the size are hard-wired 0, which is what sizing reads back.
void define_memory_bar(ConfigSpace& cfg, unsigned index, uint64_t size, bool is_64bit, bool prefetchable);

// Power Management capability (PCI PM 1.2): PMC RO, PMCSR power state RW.
uint16_t add_pm_cap(ConfigSpace& cfg, uint16_t pmc, uint16_t at = 0);

// PCI Express capability (PCIe §7.5.3), version 2.
struct PcieCapSpec {
  uint8_t port_type = 0;           // PCI_EXP_TYPE_*
  bool slot_implemented = false;
  uint8_t interrupt_message = 0;   // Interrupt Message Number [13:9]
  uint32_t devcap = 0;             // Device Capabilities (RO)
  uint16_t devctl = 0x2000;        // reset: MPS 128 B, MRRS 512 B
  uint32_t linkcap = 0;
  uint16_t linkctl = 0;
  uint16_t linksta = 0;
  uint32_t slotcap = 0;
  uint16_t slotctl = 0;
  uint16_t slotsta = 0;
  uint32_t devcap2 = 0;
  uint32_t linkcap2 = 0;
  uint16_t linkctl2 = 0;
};
uint16_t add_pcie_cap(ConfigSpace& cfg, const PcieCapSpec& spec, uint16_t at = 0);

// MSI capability (PCIe §7.7.1) with a 64-bit address, optionally per-vector masking.
// `log2_vectors` is Multiple Message Capable.
uint16_t add_msi_cap(ConfigSpace& cfg, unsigned log2_vectors, bool per_vector_mask, uint16_t at = 0);

// MSI-X capability (PCIe §7.7.2): Table Size RO, Function Mask and Enable RW.
uint16_t add_msix_cap(ConfigSpace& cfg, unsigned table_size, unsigned table_bir, uint32_t table_offset,
                      unsigned pba_bir, uint32_t pba_offset, uint16_t at = 0);

// Vendor-specific capability (ID 0x09): ID, next, length, then `body` (RO).
uint16_t add_vendor_cap(ConfigSpace& cfg, const std::vector<uint8_t>& body, uint16_t at = 0);

// Vendor-specific extended capability (ID 0x000b, PCIe §7.9.5) carrying `body` after the header.
uint16_t add_vendor_ext_cap(ConfigSpace& cfg, uint16_t vsec_id, uint8_t vsec_rev,
                            const std::vector<uint8_t>& body, uint16_t at = 0);

// ARI extended capability (PCIe r5.0 §7.8.8): ARI Capability RO with the Next Function Number
// (0: the last function of the device's ARI chain; VFs are not in it), no function groups
// (MFVC and ACS Function Groups not supported), so ARI Control has no writable bit.
uint16_t add_ari_cap(ConfigSpace& cfg, uint8_t next_function, uint16_t at = 0);

// ACS extended capability (PCIe r5.0 §7.7.8): ACS Capability RO = `capabilities` (PCI_ACS_*),
// ACS Control writable exactly for the controls the function has. No Egress Control (its vector
// is not laid out): a function asking for it is refused with ConfigLayoutError.
uint16_t add_acs_cap(ConfigSpace& cfg, uint16_t capabilities, uint16_t at = 0);

// Decoded Max_Payload_Size / Max_Read_Request_Size of a Device Control value, in bytes.
unsigned devctl_max_payload(uint16_t devctl);
unsigned devctl_max_read_request(uint16_t devctl);

}  // namespace dpusim::pcie
