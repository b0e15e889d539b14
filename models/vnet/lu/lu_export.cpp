#include "vnet/lu/lu_export.h"

#include <cstdio>

namespace dpusim::vnet {

namespace {

struct Writer {
  std::vector<uint8_t>& out;
  void u8(uint8_t v) { out.push_back(v); }
  void u16(uint16_t v) { u8(uint8_t(v)), u8(uint8_t(v >> 8)); }
  void u32(uint32_t v) { u16(uint16_t(v)), u16(uint16_t(v >> 16)); }
  void u64(uint64_t v) { u32(uint32_t(v)), u32(uint32_t(v >> 32)); }
  void mac(const std::array<uint8_t, 6>& m) { out.insert(out.end(), m.begin(), m.end()); }
  void pad_to(size_t n) { out.resize(n, 0); }
};

struct Reader {
  const std::vector<uint8_t>& in;
  size_t at;
  uint8_t u8() { return in[at++]; }
  uint16_t u16() { const uint16_t lo = u8(); return uint16_t(lo | u8() << 8); }
  uint32_t u32() { const uint32_t lo = u16(); return lo | uint32_t(u16()) << 16; }
  uint64_t u64() { const uint64_t lo = u32(); return lo | uint64_t(u32()) << 32; }
  std::array<uint8_t, 6> mac() {
    std::array<uint8_t, 6> m{};
    for (auto& b : m) b = u8();
    return m;
  }
};

std::string fmt(const char* f, unsigned long a, unsigned long b = 0, unsigned long c = 0) {
  char buf[160];
  std::snprintf(buf, sizeof buf, f, a, b, c);
  return buf;
}

}  // namespace

std::vector<uint8_t> lu_export_write(const LuExport& e) {
  std::vector<uint8_t> out;
  Writer w{out};
  const size_t blobs_at = kLuHeaderBytes + e.devices.size() * kLuDeviceBytes;
  w.u32(e.state);
  w.u32(uint32_t(e.devices.size()));
  w.u32(uint32_t(blobs_at));
  w.u32(e.populated_slots);
  w.u32(e.presence_bitmap);
  w.mac(e.base_mac);
  w.pad_to(kLuHeaderBytes);
  size_t blob_off = blobs_at;
  for (const LuDeviceRecord& d : e.devices) {
    const size_t start = out.size();
    w.u32(d.magic);
    w.u32(d.vhca_id);
    w.mac(d.mac);
    w.u16(d.mtu);
    w.u64(d.features);
    w.u16(d.max_qps);
    w.u16(d.active_qps);
    w.u16(d.queue_size);
    w.u8(d.mq ? 1 : 0);
    w.u8(0);
    w.u16(uint16_t(d.vqs.size()));
    w.u32(uint32_t(blob_off));
    w.u32(uint32_t(d.blob.size()));
    w.pad_to(start + 48);
    for (const LuVqRecord& q : d.vqs) {
      w.u16(q.number);
      w.u16(q.size);
      w.u16(q.msix);
      w.u8(q.enabled ? 1 : 0);
      w.u8(0);
      w.u64(q.desc);
      w.u64(q.driver);
      w.u64(q.device);
    }
    w.pad_to(start + kLuDeviceBytes);
    blob_off += d.blob.size();
  }
  for (const LuDeviceRecord& d : e.devices) out.insert(out.end(), d.blob.begin(), d.blob.end());
  return out;
}

bool lu_export_read(const std::vector<uint8_t>& shm, LuExport& out, std::string* error) {
  if (shm.size() < kLuHeaderBytes) {
    *error = fmt("SHM size %lu below the header's %lu bytes", shm.size(), kLuHeaderBytes);
    return false;
  }
  Reader r{shm, 0};
  out = LuExport{};
  out.state = r.u32();
  const uint32_t n = r.u32(), blobs_at = r.u32();
  out.populated_slots = r.u32();
  out.presence_bitmap = r.u32();
  out.base_mac = r.mac();
  if (n < 1 || n > VNET_LU_MAX_DEVICES) {
    *error = fmt("num_devices %lu outside 1..%lu", n, VNET_LU_MAX_DEVICES);
    return false;
  }
  if (shm.size() < kLuHeaderBytes + n * kLuDeviceBytes || blobs_at != kLuHeaderBytes + n * kLuDeviceBytes) {
    *error = fmt("SHM size %lu too small for %lu devices (blob data at %lu)", shm.size(), n, blobs_at);
    return false;
  }
  for (uint32_t k = 0; k < n; ++k) {
    r.at = kLuHeaderBytes + k * kLuDeviceBytes;
    LuDeviceRecord d;
    d.magic = r.u32();
    if (d.magic != VNET_LU_MAGIC) {
      *error = fmt("device %lu: bad magic 0x%08lx (expected 0x%08lx)", k, d.magic, VNET_LU_MAGIC);
      return false;
    }
    d.vhca_id = r.u32();
    d.mac = r.mac();
    d.mtu = r.u16();
    d.features = r.u64();
    d.max_qps = r.u16();
    d.active_qps = r.u16();
    d.queue_size = r.u16();
    d.mq = r.u8() != 0;
    r.u8();
    const uint16_t vqs = r.u16();
    const uint32_t boff = r.u32(), blen = r.u32();
    if (vqs > VNET_LU_MAX_VQS) {
      *error = fmt("device %lu: %lu VQs (max %lu)", k, vqs, VNET_LU_MAX_VQS);
      return false;
    }
    if (boff < blobs_at || boff > shm.size() || blen > shm.size() - boff) {
      *error = fmt("device %lu: blob [%lu, +%lu) outside the segment", k, boff, blen);
      return false;
    }
    r.at = kLuHeaderBytes + k * kLuDeviceBytes + 48;
    for (uint16_t q = 0; q < vqs; ++q) {
      LuVqRecord v;
      v.number = r.u16();
      v.size = r.u16();
      v.msix = r.u16();
      v.enabled = r.u8() != 0;
      r.u8();
      v.desc = r.u64();
      v.driver = r.u64();
      v.device = r.u64();
      d.vqs.push_back(v);
    }
    d.blob.assign(shm.begin() + long(boff), shm.begin() + long(boff + blen));
    out.devices.push_back(std::move(d));
  }
  return true;
}

std::vector<uint8_t> lu_engine_blob_write(const LuEngineBlob& b) {
  std::vector<uint8_t> out;
  Writer w{out};
  w.u32(b.vhca_id);
  w.u16(b.mtu);
  w.u16(b.num_queues);
  w.mac(b.mac);
  w.u16(0);
  w.u64(b.features);
  return out;
}

bool lu_engine_blob_read(const std::vector<uint8_t>& bytes, LuEngineBlob& out) {
  if (bytes.size() != 24) return false;
  Reader r{bytes, 0};
  out.vhca_id = r.u32();
  out.mtu = r.u16();
  out.num_queues = r.u16();
  out.mac = r.mac();
  r.u16();
  out.features = r.u64();
  return true;
}

}  // namespace dpusim::vnet
