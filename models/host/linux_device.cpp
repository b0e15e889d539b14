// One endpoint function as the user-mode kernel sees it (linux_device.h).
#include "host/linux_device.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>

namespace dpusim::host::uml {

LinuxDevice::LinuxDevice(LinuxDeviceSpec spec, LinuxDeviceHost host, uint64_t msi_address)
    : spec_(std::move(spec)), host_(std::move(host)), msi_address_(msi_address) {}

void LinuxDevice::bad(const std::string& what) {
  if (host_.bad_request) host_.bad_request(spec_.name, what);
}

std::vector<uint8_t> LinuxDevice::on_message(const uint8_t* bytes, size_t len, std::vector<int> fds) {
  VhostUserMsg m;
  std::string error;
  bool ok = parse_vhost_user_header(bytes, len, &m.hdr, &error) &&
            parse_vhost_user_payload(&m, bytes + kVhostUserHeaderBytes, len - kVhostUserHeaderBytes, &error);
  uint64_t value = 0;
  if (!ok) {
    bad(error);
  } else if (m.hdr.request == VHOST_USER_GET_CONFIG) {
    // virt-pci has no device config space of its own: zeros, as many bytes as asked.
    std::vector<uint8_t> out(kVhostUserHeaderBytes + 12 + m.cfg_size, 0);
    put_le32(out.data(), m.hdr.request);
    put_le32(out.data() + 4, VHOST_USER_VERSION | VHOST_USER_FLAG_REPLY);
    put_le32(out.data() + 8, 12 + m.cfg_size);
    put_le32(out.data() + 12, m.cfg_offset);
    put_le32(out.data() + 16, m.cfg_size);
    for (int fd : fds) close(fd);
    return out;
  } else {
    value = vhost(m, fds, &ok);
  }
  for (int fd : fds) close(fd);  // those vhost() did not take
  const bool get = ok && (m.hdr.request == VHOST_USER_GET_FEATURES ||
                          m.hdr.request == VHOST_USER_GET_PROTOCOL_FEATURES ||
                          m.hdr.request == VHOST_USER_GET_QUEUE_NUM);
  if (get) return vhost_user_reply_u64(m.hdr.request, value);
  if (m.hdr.flags & VHOST_USER_FLAG_NEED_REPLY) return vhost_user_reply_u64(m.hdr.request, ok ? 0 : 1);
  return {};
}

uint64_t LinuxDevice::vhost(const VhostUserMsg& m, std::vector<int>& fds, bool* ok) {
  const auto ring = [&]() -> DeviceRing* {
    if (m.index < 2) return &rings_[m.index];
    bad("vhost-user request " + std::to_string(m.hdr.request) + ": queue " + std::to_string(m.index) +
        " (virt-pci has queues 0 and 1)");
    *ok = false;
    return nullptr;
  };
  switch (m.hdr.request) {
    case VHOST_USER_GET_FEATURES:
      return 1ull << VIRTIO_F_VERSION_1 | 1ull << VHOST_USER_F_PROTOCOL_FEATURES;
    case VHOST_USER_GET_PROTOCOL_FEATURES:
      return 1ull << VHOST_USER_PROTOCOL_F_REPLY_ACK | 1ull << VHOST_USER_PROTOCOL_F_SLAVE_REQ |
             1ull << VHOST_USER_PROTOCOL_F_CONFIG | 1ull << VHOST_USER_PROTOCOL_F_INBAND_NOTIFICATIONS;
    case VHOST_USER_GET_QUEUE_NUM:
      return 2;
    case VHOST_USER_SET_FEATURES:
      features_ = m.u64;
      return 0;
    case VHOST_USER_SET_PROTOCOL_FEATURES:
      protocol_features_ = m.u64;
      return 0;
    case VHOST_USER_SET_OWNER:
    case VHOST_USER_RESET_OWNER:
    case VHOST_USER_SET_CONFIG:  // nothing to set: virt-pci has no device config
      return 0;
    case VHOST_USER_SET_SLAVE_REQ_FD:
      if (fds.size() != 1) {
        bad("SET_SLAVE_REQ_FD with " + std::to_string(fds.size()) + " file descriptors, 1 expected");
        *ok = false;
        return 0;
      }
      if (slave_fd_ >= 0) close(slave_fd_);
      slave_fd_ = fds[0];
      fds.clear();
      return 0;
    case VHOST_USER_SET_MEM_TABLE: {
      std::string error;
      ++generation_;
      if (host_.detach_memory) host_.detach_memory();
      if (!memory_.set(m.regions, fds, &error)) {
        fds.clear();
        bad(error);
        *ok = false;
        return 0;
      }
      fds.clear();
      for (const KernelMemory::Map& map : memory_.maps())
        if (host_.attach_memory) host_.attach_memory(map.guest, map.size, map.data);
      return 0;
    }
    case VHOST_USER_SET_VRING_NUM:
      if (DeviceRing* r = ring()) r->set_num(m.num);
      return 0;
    case VHOST_USER_SET_VRING_BASE:
      if (DeviceRing* r = ring()) r->set_base(uint16_t(m.num));
      return 0;
    case VHOST_USER_SET_VRING_ADDR:
      // virtio_uml gives user_addr = guest_addr (the kernel's physical addresses) in its
      // memory table, so ring addresses translate as kernel physical addresses.
      if (DeviceRing* r = ring()) r->set_addr(m.desc, m.avail, m.used);
      return 0;
    case VHOST_USER_SET_VRING_ENABLE:
      if (DeviceRing* r = ring()) r->set_enabled(m.num != 0);
      return 0;
    case VHOST_USER_SET_VRING_KICK:
    case VHOST_USER_SET_VRING_CALL:
    case VHOST_USER_SET_VRING_ERR:
      return 0;  // in-band notifications: no eventfds are used (fds, if any, are closed)
    case VHOST_USER_VRING_KICK:
      if (ring()) kick(m.index);
      return 0;
    default:
      bad("vhost-user request " + std::to_string(m.hdr.request) + " is not supported");
      *ok = false;
      return 0;
  }
}

void LinuxDevice::kick(uint32_t index) {
  if (index != kCmdQueue) return;  // the interrupt queue's new buffers wait for flush_msis()
  std::string error;
  if (!rings_[kCmdQueue].ready(memory_, &error)) {
    bad("command queue kicked before it is set up: " + error);
    return;
  }
  for (;;) {
    Chain c;
    const int got = rings_[kCmdQueue].pop(memory_, &c, &error);
    if (got == 0) return;
    if (got < 0) {
      // The chain is returned empty, so the kernel's wait for it ends (virt-pci then sees a
      // read of all ones: the buffer it gave is left as it was, 0xff-filled by virt-pci).
      bad("command queue: " + error);
      if (c.head < rings_[kCmdQueue].num()) rings_[kCmdQueue].push(memory_, c.head, 0);
      continue;
    }
    PcidevMsg m;
    if (!parse_pcidev_msg(c.out.data(), c.out.size(), &m, &error)) {
      bad(error);
      complete_ones(c, c.in_len());
      continue;
    }
    run_command(c, m);
  }
}

void LinuxDevice::run_command(const Chain& c, const PcidevMsg& m) {
  switch (m.op) {
    case VIRTIO_PCIDEV_OP_CFG_READ:
      config_read(c, m);
      return;
    case VIRTIO_PCIDEV_OP_CFG_WRITE:
      config_write(m);
      complete(c, nullptr, 0);
      ++posted_unreaped_;
      return;
    default:
      mmio(c, m);
      return;
  }
}

uint32_t LinuxDevice::bar_view_dword(unsigned reg) const {
  if (reg >= 6) return 0;  // no expansion ROM
  for (const LinuxBar& b : spec_.bars) {
    const uint64_t mask = ~(b.size - 1);
    if (b.index == reg)
      return (bar_regs_[reg] & uint32_t(mask) & ~0xFu) | (b.is64 ? 0x4u : 0u) | (b.prefetch ? 0x8u : 0u);
    if (b.is64 && b.index + 1 == reg) return bar_regs_[reg] & uint32_t(mask >> 32);
  }
  return 0;
}

const LinuxBar* LinuxDevice::bar(unsigned index) const {
  for (const LinuxBar& b : spec_.bars)
    if (b.index == index) return &b;
  return nullptr;
}

void LinuxDevice::config_read(const Chain& c, const PcidevMsg& m) {
  const uint64_t off = m.addr;
  if (off + m.size > 4096 || m.size > 4 || (off & 3) + m.size > 4) {
    bad("config read of " + std::to_string(m.size) + " bytes at " + std::to_string(off) +
        (off + m.size > 4096 ? ": past the 4 KiB config space" : ": not within one dword"));
    complete_ones(c, m.size);
    return;
  }
  if (is_bar_register(off)) {
    const unsigned reg = off >= 0x30 ? 6 : unsigned(off - 0x10) / 4;
    const uint32_t v = bar_view_dword(reg) >> (8 * (off & 3));
    uint8_t bytes[4];
    put_le32(bytes, v);
    complete(c, bytes, m.size);
    return;
  }
  const uint64_t gen = generation_;
  host_.config_read(spec_.bdf, uint16_t(off), m.size, [this, c, gen, off, n = m.size](pcie::Result&& r) {
    if (gen != generation_) return;
    r.data.resize(n, 0xff);
    clip_msix_table_size(off, r.data.data(), n);
    vf_ids(off, r.data.data(), n);
    complete(c, r.data.data(), n);
  });
}

void LinuxDevice::clip_msix_table_size(uint64_t off, uint8_t* data, unsigned n) const {
  // Message Control (capability + 2), Table Size in bits 10:0: the kernel's view holds at most
  // kMaxMsixEntries entries (linux_device.h).
  const uint64_t ctrl = spec_.msix_cap + 2u;
  if (!spec_.msix_cap || spec_.msix_entries <= kMaxMsixEntries || off > ctrl || off + n < ctrl + 2) return;
  uint8_t* p = data + (ctrl - off);
  const uint16_t v = uint16_t(p[0] | p[1] << 8);
  const uint16_t clipped = uint16_t((v & ~0x7ffu) | (kMaxMsixEntries - 1));
  p[0] = uint8_t(clipped);
  p[1] = uint8_t(clipped >> 8);
}

void LinuxDevice::vf_ids(uint64_t off, uint8_t* data, unsigned n) const {
  if (!spec_.ids) return;
  for (uint64_t b = off; b < off + n && b < 4; ++b) data[b - off] = uint8_t(spec_.ids >> (8 * b));
}

void LinuxDevice::config_write(const PcidevMsg& m) {
  const uint64_t off = m.addr;
  if (off + m.size > 4096 || m.size > 4 || (off & 3) + m.size > 4) {
    bad("config write of " + std::to_string(m.size) + " bytes at " + std::to_string(off) +
        (off + m.size > 4096 ? ": past the 4 KiB config space, dropped" : ": not within one dword, dropped"));
    return;
  }
  uint32_t value = 0;
  for (unsigned i = 0; i < m.size; ++i) value |= uint32_t(m.data[i]) << (8 * i);
  if (is_bar_register(off)) {
    const unsigned reg = off >= 0x30 ? 6 : unsigned(off - 0x10) / 4;
    const unsigned shift = 8 * unsigned(off & 3);
    const uint32_t mask = (m.size == 4 ? 0xffffffffu : ((1u << (8 * m.size)) - 1)) << shift;
    bar_regs_[reg] = (bar_regs_[reg] & ~mask) | ((value << shift) & mask);
    return;
  }
  host_.config_write(spec_.bdf, uint16_t(off), m.size, value);
}

void LinuxDevice::mmio(const Chain& c, const PcidevMsg& m) {
  const LinuxBar* b = bar(m.bar);
  const bool read = m.op == VIRTIO_PCIDEV_OP_MMIO_READ;
  if (!b || m.addr >= b->size || m.size > b->size - m.addr) {
    bad(std::string("MMIO ") + (read ? "read" : "write") + " of " + std::to_string(m.size) + " bytes at BAR " +
        std::to_string(m.bar) + " offset " + std::to_string(m.addr) +
        (b ? ": beyond the BAR's " + std::to_string(b->size) + " bytes" : ": the function has no such BAR"));
    if (read) complete_ones(c, m.size);
    else complete(c, nullptr, 0);
    return;
  }
  // The MSI-X table's Message Address (low dword) of an entry: virt-pci's address becomes the
  // root complex's MSI window and back, so messages return to the bridge (linux_device.h).
  const bool table = int(m.bar) == spec_.msix_bar && m.addr >= spec_.msix_offset &&
                     m.addr < spec_.msix_offset + 16ull * spec_.msix_entries && (m.addr - spec_.msix_offset) % 16 == 0 &&
                     m.size >= 4;
  const uint64_t addr = b->base + m.addr;
  if (read) {
    const uint64_t gen = generation_;
    host_.mem_read(addr, m.size, [this, c, gen, table, n = m.size](pcie::Result&& r) {
      if (gen != generation_) return;
      r.data.resize(n, 0xff);
      if (table && le32(r.data.data()) == uint32_t(msi_address_)) put_le32(r.data.data(), uint32_t(kUmlMsiAddress));
      complete(c, r.data.data(), n);
    });
    return;
  }
  std::vector<uint8_t> bytes = m.op == VIRTIO_PCIDEV_OP_MMIO_MEMSET ? std::vector<uint8_t>(m.size, m.data[0]) : m.data;
  if (table && le32(bytes.data()) == uint32_t(kUmlMsiAddress)) put_le32(bytes.data(), uint32_t(msi_address_));
  host_.mem_write(addr, std::move(bytes));
  if (std::find(spec_.held_writes.begin(), spec_.held_writes.end(), addr) != spec_.held_writes.end()) hold_ = true;
  complete(c, nullptr, 0);
  ++posted_unreaped_;
}

void LinuxDevice::complete(const Chain& c, const uint8_t* data, uint32_t n) {
  const uint32_t written = data ? c.write(data, n) : 0;
  rings_[kCmdQueue].push(memory_, c.head, written);
}

void LinuxDevice::complete_ones(const Chain& c, uint32_t n) {
  std::vector<uint8_t> ones(n, 0xff);
  complete(c, ones.data(), n);
}

bool LinuxDevice::queue_msi(uint32_t data) {
  msis_.push_back(data);
  return flush_msis();
}

bool LinuxDevice::flush_msis() {
  bool moved = false;
  std::string error;
  while (!msis_.empty() && rings_[kIrqQueue].ready(memory_, &error)) {
    Chain c;
    const int got = rings_[kIrqQueue].pop(memory_, &c, &error);
    if (got == 0) break;  // no buffer: the MSI waits for the kernel to recycle one
    if (got < 0) {
      bad("interrupt queue: " + error);
      break;
    }
    const std::vector<uint8_t> msg = pcidev_msi(msis_.front());
    msis_.pop_front();
    rings_[kIrqQueue].push(memory_, c.head, c.write(msg.data(), uint32_t(msg.size())));
    moved = true;
  }
  return moved;
}

}  // namespace dpusim::host::uml
