#include "vnet/lu/lu_channel.h"

#include <cstdio>
#include <cstring>

#include "tlm/bytes.h"

namespace dpusim::vnet {

namespace {

std::vector<uint8_t> image_of(const pcie::ConfigSpace& cfg) {
  std::vector<uint8_t> out(cfg.size());
  for (uint16_t off = 0; off < cfg.size(); ++off) out[off] = uint8_t(cfg.get(off, 1));
  return out;
}

void restore(pcie::ConfigSpace& cfg, const std::vector<uint8_t>& image) {
  for (uint16_t off = 0; off < cfg.size(); ++off) cfg.set(off, 1, image[off]);
}

void put32(std::vector<uint8_t>& out, uint32_t v) {
  out.resize(out.size() + 4);
  bytes::put_le32(&out[out.size() - 4], v);
}

void put_device(std::vector<uint8_t>& out, const LuChannelDevice& d) {
  put32(out, uint32_t(d.bdf) | uint32_t(d.config.size()) << 16);
  out.insert(out.end(), d.config.begin(), d.config.end());
}

struct Cursor {
  const std::vector<uint8_t>& in;
  size_t at = 0;
  bool u32(uint32_t& v) {
    if (in.size() - at < 4) return false;
    v = uint32_t(in[at]) | uint32_t(in[at + 1]) << 8 | uint32_t(in[at + 2]) << 16 | uint32_t(in[at + 3]) << 24;
    at += 4;
    return true;
  }
  bool bytes(size_t n, std::vector<uint8_t>& out) {
    if (in.size() - at < n) return false;
    out.assign(in.begin() + long(at), in.begin() + long(at + n));
    at += n;
    return true;
  }
  bool device(LuChannelDevice& d) {
    uint32_t w = 0;
    if (!u32(w)) return false;
    d.bdf = uint16_t(w);
    return bytes(w >> 16, d.config);
  }
};

std::string fmt(const char* f, unsigned a, unsigned b) {
  char buf[128];
  std::snprintf(buf, sizeof buf, f, a, b);
  return buf;
}

}  // namespace

std::vector<uint8_t> lu_channel_export(const AppDevices& devs) {
  std::vector<uint8_t> out;
  put32(out, 0x43504C54);  // "TLPC"
  put32(out, 2 * devs.num_ep() + 2);
  put32(out, uint32_t(std::strlen(kLuChannelShmDir)));
  out.insert(out.end(), kLuChannelShmDir, kLuChannelShmDir + std::strlen(kLuChannelShmDir));
  return out;
}

LuChannelState lu_channel_snapshot(const AppPorts& ports, const AppDevices& devs) {
  LuChannelState s;
  s.num_ep = devs.num_ep();
  s.num_devices = 2 * s.num_ep + 2;
  s.devices.push_back({ports.usp->id(), image_of(ports.usp->cfg)});
  for (const auto& dsp : ports.dsps) s.devices.push_back({dsp->id(), image_of(dsp->cfg)});
  for (const auto& dev : devs.devices) {
    s.devices.push_back({dev->images.virtio().id(), image_of(dev->images.internal())});
    s.regions.emplace_back(kLuTransactionRegionBytes, 0);
    s.images.push_back({dev->images.virtio().id(), image_of(dev->images.virtio().cfg)});
  }
  s.devices.push_back({0, {}});  // the dummy: no image worth carrying
  return s;
}

std::vector<uint8_t> lu_channel_write(const LuChannelState& s) {
  std::vector<uint8_t> out;
  put32(out, s.num_devices);
  put32(out, s.num_ep);
  put32(out, s.region_size);
  for (const LuChannelDevice& d : s.devices) put_device(out, d);
  for (unsigned i = 0; i < s.regions.size(); ++i) {
    out.insert(out.end(), s.regions[i].begin(), s.regions[i].end());
    put_device(out, s.images[i]);
  }
  return out;
}

bool lu_channel_read(const std::vector<uint8_t>& bytes, LuChannelState& s, std::string* error) {
  Cursor c{bytes};
  const uint32_t own_region = s.region_size;
  if (!c.u32(s.num_devices) || !c.u32(s.num_ep) || !c.u32(s.region_size)) return *error = "config truncated", false;
  if (s.num_devices > kLuChannelMaxDevices)
    return *error = fmt("num_devices %u exceeds %u", s.num_devices, kLuChannelMaxDevices), false;
  if (s.num_ep > 32) return *error = fmt("num_ep %u exceeds %u", s.num_ep, 32), false;
  if (s.region_size != own_region)
    return *error = fmt("transaction region size %u differs from ours (%u)", s.region_size, own_region), false;
  s.devices.assign(s.num_devices, {});
  for (auto& d : s.devices)
    if (!c.device(d)) return *error = "device config truncated", false;
  s.regions.assign(s.num_ep, {});
  s.images.assign(s.num_ep, {});
  for (unsigned i = 0; i < s.num_ep; ++i)
    if (!c.bytes(s.region_size, s.regions[i]) || !c.device(s.images[i])) return *error = "EP image truncated", false;
  return true;
}

bool lu_channel_apply(const LuChannelState& s, AppPorts& ports, AppDevices& devs, std::string* error) {
  const unsigned n = devs.num_ep();
  if (s.num_ep != n || s.devices.size() != 2 * n + 2)
    return *error = fmt("channel has %u EPs, this process %u", s.num_ep, n), false;
  auto apply = [&](pcie::ConfigSpace& cfg, const LuChannelDevice& d) {
    if (d.config.size() != cfg.size()) return false;
    restore(cfg, d.config);
    return true;
  };
  bool ok = apply(ports.usp->cfg, s.devices[0]);
  if (ok) ports.usp->restore_id(s.devices[0].bdf);
  for (unsigned i = 0; ok && i < n; ++i) {
    ok = apply(ports.dsps[i]->cfg, s.devices[1 + i]) && apply(devs.devices[i]->images.internal(), s.devices[1 + n + i]) &&
         apply(devs.devices[i]->images.virtio().cfg, s.images[i]);
    if (!ok) break;
    ports.dsps[i]->restore_id(s.devices[1 + i].bdf);
    devs.devices[i]->images.virtio().restore_id(s.images[i].bdf);
  }
  if (!ok) *error = "an image's size differs from this process's";
  return ok;
}

}  // namespace dpusim::vnet
