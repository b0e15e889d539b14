// One endpoint function as the user-mode kernel sees it: the vhost-user backend of one
// virtio_uml device whose driver is virt-pci (arch/um/drivers/virt-pci.c), turning the
// kernel's config and BAR accesses into requests of the root complex and the function's
// MSI-X messages into VIRTIO_PCIDEV_OP_MSI (docs/linux.md, "Protocol mapping").
//
// What the kernel sees is the function's own config space through configuration TLPs, except
// the six BAR registers and the expansion ROM register, which the device keeps as the kernel's
// view: the kernel sizes and assigns BARs in its own window (virt-pci's 0xf0000000..), while the
// function keeps the addresses dpusim's enumeration gave it, and an MMIO access at (BAR,
// offset) becomes a memory TLP at that BAR's dpusim address plus the offset. The kernel's
// MSI-X address (virt-pci's 0xa0000, um_pci_compose_msi_msg) is written to the table as the
// root complex's MSI window, so the message comes back to the bridge as an MSI.
//
// Bad input is answered as PCIe would and logged (event "bad_request"): a config access
// past 4 KiB reads all ones and drops writes, an MMIO access to a BAR the function does not
// have reads all ones (as an Unsupported Request does), a malformed vhost-user or virt-pci
// message gets an error status or an all-ones read.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "host/linux_vring.h"
#include "host/linux_wire.h"
#include "tlm/requester.h"

namespace dpusim::host::uml {

struct LinuxBar {
  unsigned index = 0;
  uint64_t base = 0, size = 0;  // dpusim's assignment; size a power of two
  bool is64 = false, prefetch = false;
};

struct LinuxDeviceSpec {
  std::string name;  // "ep0"
  uint16_t bdf = 0;  // the function's routing ID in dpusim's enumeration
  std::vector<LinuxBar> bars;
  int msix_bar = -1;  // the MSI-X table's BAR (-1: no MSI-X)
  uint32_t msix_offset = 0;
  unsigned msix_entries = 0;  // the function's Table Size + 1
  uint16_t msix_cap = 0;      // config offset of the MSI-X capability (0: none)
  // Addresses (dpusim's) of registers the kernel's driver busy-waits after writing, reading
  // only memory (virtio_net's control-queue notify: virtnet_send_command_reply spins with
  // cpu_relax()). A write there holds the kernel until the device has answered (linux_bridge.h).
  std::vector<uint64_t> held_writes;
  // A VF's Vendor ID | Device ID << 16 (0 for a PF). A VF reads FFFFh in both (PCIe r6.0
  // §9.3.4.1.1, §9.3.4.1.2): Linux takes the PF's Vendor ID and the VF Device ID of the PF's
  // SR-IOV capability (drivers/pci/iov.c, pci_iov_add_virtfn), but virt-pci's slot is a
  // function of its own to the kernel, so the device answers them.
  uint32_t ids = 0;
};

// What a device asks of the bridge: root-complex requests and the bridge's event log.
struct LinuxDeviceHost {
  using Done = pcie::Requester::Done;
  std::function<void(uint16_t bdf, uint16_t off, unsigned size, Done)> config_read;
  std::function<void(uint16_t bdf, uint16_t off, unsigned size, uint32_t value)> config_write;
  std::function<void(uint64_t addr, size_t len, Done)> mem_read;
  std::function<void(uint64_t addr, std::vector<uint8_t> bytes)> mem_write;
  std::function<void(const std::string& device, const std::string& what)> bad_request;
  std::function<void(uint64_t base, uint64_t size, uint8_t* data)> attach_memory;
  std::function<void()> detach_memory;
};

class LinuxDevice {
 public:
  static constexpr uint64_t kUmlMsiAddress = 0xa0000;  // um_pci_compose_msi_msg
  // The most MSI-X table entries the kernel is shown (Message Control's Table Size field):
  // msix_capability_init (drivers/pci/msi/msi.c) masks every entry with back-to-back posted
  // writes (msix_mask_all), each one descriptor of virt-pci's 256-entry command ring
  // (MAX_SUPPORTED_QUEUE_SIZE, arch/um/drivers/virtio_uml.c), which the kernel reaps only when
  // a read polls or when the ring's interrupt runs, and in time-travel mode an interrupt runs
  // only once the kernel's clock advances. A table of 256 entries (the vnet application's)
  // overflows the ring; the writes past it are lost and every later access fails (the probe's
  // -ENOMEM). The entries beyond stay masked, as they are from reset (docs/linux.md).
  static constexpr unsigned kMaxMsixEntries = 64;
  static constexpr uint16_t kCmdQueue = 0, kIrqQueue = 1;

  LinuxDevice(LinuxDeviceSpec spec, LinuxDeviceHost host, uint64_t msi_address);
  const LinuxDeviceSpec& spec() const { return spec_; }

  // One message from the kernel's vhost-user socket (header and payload read, fds received).
  // Returns the bytes to send back (empty: none).
  std::vector<uint8_t> on_message(const uint8_t* bytes, size_t len, std::vector<int> fds);
  int slave_fd() const { return slave_fd_; }

  // An MSI from the function: queued as an interrupt-queue message. Returns true when a
  // message is ready in the interrupt queue's used ring and the kernel should be called.
  bool queue_msi(uint32_t data);
  // Moves queued MSIs into the interrupt queue while it has buffers; true if any moved.
  bool flush_msis();
  // Posted commands completed since the last call of the command queue's callback.
  unsigned posted_unreaped() const { return posted_unreaped_; }
  void reaped() { posted_unreaped_ = 0; }
  bool connected() const { return !memory_.empty(); }
  // True once after a command queue kick wrote one of spec().held_writes.
  bool take_hold() {
    const bool h = hold_;
    hold_ = false;
    return h;
  }

 private:
  // The value of a vhost-user request the kernel awaits (GET_*), or the REPLY_ACK status.
  uint64_t vhost(const VhostUserMsg& m, std::vector<int>& fds, bool* ok);
  void kick(uint32_t index);
  void run_command(const Chain& c, const PcidevMsg& m);
  void config_read(const Chain& c, const PcidevMsg& m);
  void config_write(const PcidevMsg& m);
  void mmio(const Chain& c, const PcidevMsg& m);
  // Completes chain `c` with `n` bytes (the read data, or nothing for a write).
  void complete(const Chain& c, const uint8_t* data, uint32_t n);
  void complete_ones(const Chain& c, uint32_t n);
  const LinuxBar* bar(unsigned index) const;
  // The BAR registers (0x10..0x27) and the expansion ROM register (0x30) as the kernel sees them.
  static bool is_bar_register(uint64_t off) { return (off >= 0x10 && off < 0x28) || (off >= 0x30 && off < 0x34); }
  uint32_t bar_view_dword(unsigned reg) const;
  // A config read's bytes `data` (n of them, at offset `off`) as the kernel sees them: the
  // MSI-X Table Size no larger than kMaxMsixEntries.
  void clip_msix_table_size(uint64_t off, uint8_t* data, unsigned n) const;
  // The same bytes with a VF's Vendor and Device ID (spec().ids) at 0x00..0x03.
  void vf_ids(uint64_t off, uint8_t* data, unsigned n) const;
  void bad(const std::string& what);

  LinuxDeviceSpec spec_;
  LinuxDeviceHost host_;
  uint64_t msi_address_;
  uint64_t features_ = 0, protocol_features_ = 0;
  KernelMemory memory_;
  DeviceRing rings_[2];
  int slave_fd_ = -1;
  uint32_t bar_regs_[7] = {};  // what the kernel last wrote to BAR0..5 and the ROM register
  std::deque<uint32_t> msis_;
  unsigned posted_unreaped_ = 0;
  uint64_t generation_ = 0;  // a new memory table or reset: reads in flight are dropped
  bool hold_ = false;
};

}  // namespace dpusim::host::uml
