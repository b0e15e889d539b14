// The vhost-user, virt-pci and time-travel wire formats (linux_wire.h).
#include "host/linux_wire.h"

namespace dpusim::host::uml {

uint16_t le16(const uint8_t* p) { return uint16_t(p[0] | p[1] << 8); }
uint32_t le32(const uint8_t* p) { return uint32_t(le16(p)) | uint32_t(le16(p + 2)) << 16; }
uint64_t le64(const uint8_t* p) { return uint64_t(le32(p)) | uint64_t(le32(p + 4)) << 32; }
void put_le16(uint8_t* p, uint16_t v) {
  p[0] = uint8_t(v);
  p[1] = uint8_t(v >> 8);
}
void put_le32(uint8_t* p, uint32_t v) {
  put_le16(p, uint16_t(v));
  put_le16(p + 2, uint16_t(v >> 16));
}
void put_le64(uint8_t* p, uint64_t v) {
  put_le32(p, uint32_t(v));
  put_le32(p + 4, uint32_t(v >> 32));
}

namespace {

bool refuse(std::string* error, std::string text) {
  if (error) *error = std::move(text);
  return false;
}

// The payload size a request needs: exactly `want`, or at least `want` when `at_least`.
bool sized(const VhostUserMsg& m, size_t n, size_t want, bool at_least, std::string* error) {
  if (n == want || (at_least && n > want)) return true;
  return refuse(error, "vhost-user request " + std::to_string(m.hdr.request) + ": payload of " + std::to_string(n) +
                           " bytes, " + (at_least ? "at least " : "") + std::to_string(want) + " expected");
}

}  // namespace

bool parse_vhost_user_header(const uint8_t* p, size_t n, VhostUserHeader* out, std::string* error) {
  if (n < kVhostUserHeaderBytes)
    return refuse(error, "vhost-user header: " + std::to_string(n) + " bytes, 12 expected");
  VhostUserHeader h{le32(p), le32(p + 4), le32(p + 8)};
  if ((h.flags & VHOST_USER_VERSION_MASK) != VHOST_USER_VERSION)
    return refuse(error, "vhost-user header: version " + std::to_string(h.flags & VHOST_USER_VERSION_MASK) +
                             ", only 1 is defined");
  if (h.flags & VHOST_USER_FLAG_REPLY)
    return refuse(error, "vhost-user header: request " + std::to_string(h.request) + " carries the REPLY flag");
  if (h.size > kVhostUserMaxPayload)
    return refuse(error, "vhost-user header: payload size " + std::to_string(h.size) + " above the limit of " +
                             std::to_string(kVhostUserMaxPayload));
  *out = h;
  return true;
}

bool parse_vhost_user_payload(VhostUserMsg* m, const uint8_t* p, size_t n, std::string* error) {
  switch (m->hdr.request) {
    case VHOST_USER_SET_FEATURES:
    case VHOST_USER_SET_PROTOCOL_FEATURES:
    case VHOST_USER_SET_VRING_KICK:
    case VHOST_USER_SET_VRING_CALL:
    case VHOST_USER_SET_VRING_ERR:
      if (!sized(*m, n, 8, false, error)) return false;
      m->u64 = le64(p);
      return true;
    case VHOST_USER_SET_VRING_NUM:
    case VHOST_USER_SET_VRING_BASE:
    case VHOST_USER_GET_VRING_BASE:
    case VHOST_USER_SET_VRING_ENABLE:
    case VHOST_USER_VRING_KICK:
      if (!sized(*m, n, 8, false, error)) return false;
      m->index = le32(p);
      m->num = le32(p + 4);
      return true;
    case VHOST_USER_SET_VRING_ADDR:
      if (!sized(*m, n, 40, false, error)) return false;
      m->index = le32(p);
      m->desc = le64(p + 8);
      m->used = le64(p + 16);
      m->avail = le64(p + 24);
      return true;
    case VHOST_USER_SET_MEM_TABLE: {
      if (!sized(*m, n, 8, true, error)) return false;
      const uint32_t num = le32(p);
      if (num == 0 || num > kMaxMemRegions)
        return refuse(error, "vhost-user SET_MEM_TABLE: " + std::to_string(num) + " regions, 1.." +
                                 std::to_string(kMaxMemRegions) + " allowed");
      if (!sized(*m, n, 8 + 32 * size_t(num), true, error)) return false;
      m->regions.clear();
      for (uint32_t i = 0; i < num; ++i) {
        const uint8_t* r = p + 8 + 32 * i;
        MemRegion region{le64(r), le64(r + 8), le64(r + 16), le64(r + 24)};
        if (region.size == 0 || region.guest_addr + region.size < region.guest_addr)
          return refuse(error, "vhost-user SET_MEM_TABLE: region " + std::to_string(i) + " of size " +
                                   std::to_string(region.size) + " at " + std::to_string(region.guest_addr) +
                                   " is empty or wraps");
        m->regions.push_back(region);
      }
      return true;
    }
    case VHOST_USER_GET_CONFIG:
    case VHOST_USER_SET_CONFIG:
      if (!sized(*m, n, 12, true, error)) return false;
      m->cfg_offset = le32(p);
      m->cfg_size = le32(p + 4);
      if (size_t(m->cfg_size) + 12 > n)
        return refuse(error, "vhost-user config request: size " + std::to_string(m->cfg_size) + " beyond its " +
                                 std::to_string(n) + "-byte payload");
      return true;
    default:
      return true;  // no payload the bridge reads
  }
}

std::vector<uint8_t> vhost_user_reply_u64(uint32_t request, uint64_t value) {
  std::vector<uint8_t> out(kVhostUserHeaderBytes + 8);
  put_le32(out.data(), request);
  put_le32(out.data() + 4, VHOST_USER_VERSION | VHOST_USER_FLAG_REPLY);
  put_le32(out.data() + 8, 8);
  put_le64(out.data() + 12, value);
  return out;
}

std::vector<uint8_t> vhost_user_vring_call(uint32_t index) {
  std::vector<uint8_t> out(kVhostUserHeaderBytes + 8);
  put_le32(out.data(), VHOST_USER_SLAVE_VRING_CALL);
  put_le32(out.data() + 4, VHOST_USER_VERSION | VHOST_USER_FLAG_NEED_REPLY);
  put_le32(out.data() + 8, 8);
  put_le32(out.data() + 12, index);
  put_le32(out.data() + 16, 0);
  return out;
}

bool parse_pcidev_msg(const uint8_t* p, size_t n, PcidevMsg* out, std::string* error) {
  if (n < kPcidevHeaderBytes)
    return refuse(error, "virt-pci message: " + std::to_string(n) + " bytes, at least 16 expected");
  PcidevMsg m;
  m.op = p[0];
  m.bar = p[1];
  m.size = le32(p + 4);
  m.addr = le64(p + 8);
  const std::string what = "virt-pci op " + std::to_string(m.op);
  if (m.op < VIRTIO_PCIDEV_OP_CFG_READ || m.op > VIRTIO_PCIDEV_OP_MMIO_MEMSET)
    return refuse(error, what + ": not a request the kernel sends to a device (1..5)");
  if (m.size == 0 || m.size > kPcidevMaxSize)
    return refuse(error, what + ": size " + std::to_string(m.size) + " outside 1.." + std::to_string(kPcidevMaxSize));
  const bool cfg = m.op == VIRTIO_PCIDEV_OP_CFG_READ || m.op == VIRTIO_PCIDEV_OP_CFG_WRITE;
  if (cfg && m.size != 1 && m.size != 2 && m.size != 4 && m.size != 8)
    return refuse(error, what + ": config access of " + std::to_string(m.size) + " bytes (1, 2, 4 or 8)");
  if (!cfg && m.bar > 5) return refuse(error, what + ": BAR " + std::to_string(m.bar) + " (0..5)");
  const size_t payload = n - kPcidevHeaderBytes;
  size_t need = 0;
  if (m.op == VIRTIO_PCIDEV_OP_CFG_WRITE || m.op == VIRTIO_PCIDEV_OP_MMIO_WRITE) need = m.size;
  if (m.op == VIRTIO_PCIDEV_OP_MMIO_MEMSET) need = 1;
  if (payload < need)
    return refuse(error, what + ": " + std::to_string(payload) + " data bytes, " + std::to_string(need) + " expected");
  m.data.assign(p + kPcidevHeaderBytes, p + kPcidevHeaderBytes + need);
  *out = std::move(m);
  return true;
}

std::vector<uint8_t> pcidev_msi(uint32_t data) {
  std::vector<uint8_t> out(kPcidevHeaderBytes + 4, 0);
  out[0] = VIRTIO_PCIDEV_OP_MSI;
  put_le32(out.data() + 4, 4);
  put_le32(out.data() + kPcidevHeaderBytes, data);
  return out;
}

bool parse_timetravel(const uint8_t* p, size_t n, TimetravelMsg* out, std::string* error) {
  if (n != kTimetravelMsgBytes)
    return refuse(error, "time-travel message: " + std::to_string(n) + " bytes, 16 expected");
  TimetravelMsg m{le32(p), le32(p + 4), le64(p + 8)};
  if (m.op > UM_TIMETRAVEL_BROADCAST)
    return refuse(error, "time-travel message: op " + std::to_string(m.op) + " (0..9)");
  *out = m;
  return true;
}

std::vector<uint8_t> timetravel_bytes(const TimetravelMsg& m) {
  std::vector<uint8_t> out(kTimetravelMsgBytes);
  put_le32(out.data(), m.op);
  put_le32(out.data() + 4, m.seq);
  put_le64(out.data() + 8, m.time);
  return out;
}

}  // namespace dpusim::host::uml
