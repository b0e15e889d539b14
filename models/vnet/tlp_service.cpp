// PE1's handlers (vnet-app.md §3): config requests to the switch's functions and the
// endpoints, memory requests to the endpoints' application-emulated BAR0 regions, the dummy.
#include "tlm/completer.h"
#include "tlm/pci_regs.h"
#include "vnet/bridge_image.h"
#include "vnet/vnet_app.h"
#include "vnet/vnet_layout.h"

namespace dpusim::vnet {

using namespace dpusim::pci;
using namespace dpusim::virtio;
using pcie::Tlp;

namespace {
uint32_t le_dw(const uint8_t* p) { return le32(p); }
unsigned first_byte(uint8_t be) { return be & 0xf ? unsigned(__builtin_ctz(be & 0xf)) : 0; }
uint32_t be_mask(uint8_t be) {
  uint32_t m = 0;
  for (unsigned i = 0; i < 4; ++i)
    if (be & (1u << i)) m |= 0xffu << (8 * i);
  return m;
}
std::string bdf3(uint16_t id) {
  char b[16];
  std::snprintf(b, sizeof b, "%02x:%02x.%x", id >> 8, (id >> 3) & 0x1f, id & 7);
  return b;
}
}  // namespace

std::string VnetApp::bdf_of(unsigned ep) const { return bdf3(devices_[ep]->images.virtio().id()); }

// §3.2: the cache first (an EP entry counts only while the EP is present), then the slow path.
VnetApp::Target VnetApp::find_device_by_bdf(bool type1, uint16_t bdf) {
  const uint32_t key = uint32_t(type1 ? 5 : 4) << 16 | bdf;
  if (auto it = bdf_cache_.find(key); it != bdf_cache_.end()) {
    const Target t = it->second;
    if (t.kind != Kind::EP || controllers_[t.index].device_present) return t;
  }
  const uint8_t bus = uint8_t(bdf >> 8), dev = uint8_t((bdf >> 3) & 0x1f), fn = uint8_t(bdf & 7);
  std::optional<Target> found;
  if (!type1) {
    if (dev == 0 && fn == 0) found = Target{Kind::USP, 0};  // at any bus number
  } else if (usp_->secondary() != 0 && bus == usp_->secondary() && fn == 0 && dev < num_ep()) {
    found = Target{Kind::DSP, dev};
  } else {
    for (unsigned i = 0; i < num_ep() && !found; ++i) {
      if (dsps_[i]->secondary() != 0 && bus == dsps_[i]->secondary() && dev == 0 && fn == 0 &&
          controllers_[i].device_present) {
        log_.info(kMainThread, "find_device_by_bdf: matched EP[%u] for bus 0x%02x", i, bus);
        found = Target{Kind::EP, i};
      }
    }
  }
  if (!found) return Target{Kind::DUMMY, 0};  // never cached
  // One cache entry per device: re-mapping a device moves it.
  for (auto it = bdf_cache_.begin(); it != bdf_cache_.end();) {
    if (it->second.kind == found->kind && it->second.index == found->index) it = bdf_cache_.erase(it);
    else ++it;
  }
  bdf_cache_[key] = *found;
  return *found;
}

void VnetApp::record_bdf(Target t, uint16_t bdf) {
  const unsigned n = num_ep();
  const size_t slot = t.kind == Kind::USP ? 0 : t.kind == Kind::DSP ? 1 + t.index : t.kind == Kind::EP ? 1 + n + t.index : 2 * n + 1;
  uint16_t& rec = recorded_bdf_[slot];
  if (rec != 0 && rec != bdf) log_.debug(kMainThread, "Device BDF renumbered: 0x%04x -> 0x%04x", rec, bdf);
  rec = bdf;
}

void VnetApp::on_bus_config(int dsp, uint32_t before, uint32_t after) {
  log_bus_config(log_, dsp < 0 ? std::string("USP") : "DSP[" + std::to_string(dsp) + "]", before, after);
  const uint8_t old_sec = uint8_t(before >> 8), sec = uint8_t(after >> 8);
  if (dsp >= 0 && old_sec != 0 && old_sec != sec) {
    log_.info(kMainThread, "Invalidating BDF cache for EP on old bus 0x%02x", old_sec);
    bdf_cache_.erase(uint32_t(5) << 16 | uint32_t(old_sec) << 8);
  }
}

void VnetApp::dummy_ur(const tlp::Header& h, uint16_t completer) {
  ctx_.event(dummy_path_, "unsupported_request").str("type", tlp::type_name(h.type));
  // The application completes a posted write's UR as if non-posted; the completion stays in
  // the application (no TLP reaches the host for a posted request).
  if (!tlp::is_non_posted(h.type)) {
    ctx_.event(dummy_path_, "posted_ur_completed_internally").str("type", tlp::type_name(h.type));
    return;
  }
  send_up(pcie::make_error_completion(ctx_.pool, h, completer, tlp::CplStatus::UR));
}

void VnetApp::service_config(Tlp& t) {
  const tlp::Header h = pcie::hdr(t);
  const bool write = h.type == tlp::Type::CfgWr0 || h.type == tlp::Type::CfgWr1;
  const bool type1 = h.type == tlp::Type::CfgRd1 || h.type == tlp::Type::CfgWr1;
  const uint32_t data = write ? le_dw(pcie::data(t)) : 0;
  t.release();
  const Target target = find_device_by_bdf(type1, h.target_id);
  record_bdf(target, h.target_id);
  auto complete = [&](uint32_t value) {
    send_up(pcie::make_config_completion(ctx_.pool, h, h.target_id, tlp::CplStatus::SC, value));
  };
  switch (target.kind) {
    case Kind::USP:
    case Kind::DSP: {
      sw::Bridge& fn = target.kind == Kind::USP ? *usp_ : *dsps_[target.index];
      if (!write) return complete(fn.config_read(h.register_offset));
      fn.config_write(h.register_offset, data, h.first_be, h.target_id);
      return complete(0);
    }
    case Kind::EP: {
      const unsigned i = target.index;
      // VirtIO-side enumeration: bind the PF to the BDF it is first probed at.
      const uint8_t bus = uint8_t(h.target_id >> 8);
      if (ep_pf_bus_[i] < 0) {
        log_.debug(kMainThread, "VNet pf_index=%u: first probed at %s (transient)", i, bdf3(h.target_id).c_str());
      } else if (ep_pf_bus_[i] != bus) {
        log_.info(kMainThread, "VNet pf_index=%u: BDF reassigned %s -> %s", i,
                  bdf3(uint16_t(ep_pf_bus_[i] << 8)).c_str(), bdf3(h.target_id).c_str());
      }
      ep_pf_bus_[i] = bus;
      EpImages& img = devices_[i]->images;
      if (!write) return complete(img.read(h.register_offset, h.first_be));
      img.write(h.register_offset, data, h.first_be, h.target_id);
      return complete(0);
    }
    case Kind::DUMMY:
      return dummy_ur(h, h.target_id);
  }
}

void VnetApp::service_memory(Tlp& t) {
  const auto [h, payload] = pcie::take_request(t);
  // §3.4: the internal image's BAR of each present EP, in order; then the VirtIO images' BARs.
  for (unsigned i = 0; i < num_ep(); ++i) {
    if (!controllers_[i].device_present) continue;
    const uint64_t base = devices_[i]->images.routing_bar0();
    if (base != 0 && h.address >= base && h.address - base < VNET_BAR0_SIZE) {
      if (h.type == tlp::Type::MRd) return ep_mmio_read(i, h);
      return ep_mmio_write(i, h, payload.data());
    }
  }
  for (unsigned i = 0; i < num_ep(); ++i) {
    const uint64_t base = devices_[i]->images.virtio_bar0();
    if (base != 0 && h.address >= base && h.address - base < VNET_BAR0_SIZE && !controllers_[i].device_present) {
      log_.debug(kMainThread, "Fallback BAR match for destroyed device at 0x%lx, returning dummy",
                 static_cast<unsigned long>(h.address));
      break;
    }
  }
  dummy_ur(h, recorded_bdf_.back());
}

void VnetApp::ep_mmio_read(unsigned i, const tlp::Header& h) {
  VirtioPciDevice& dev = *devices_[i];
  const uint16_t completer = dev.images.virtio().id();
  const uint64_t base = dev.images.virtio_bar0();
  auto ur = [&] { send_up(pcie::make_error_completion(ctx_.pool, h, completer, tlp::CplStatus::UR)); };
  if (base == 0 || h.address < base || h.address - base >= VNET_BAR0_SIZE) {
    log_.debug(kMainThread, "invalid mmio address 0x%lx for endpoint bus=0x%02x", static_cast<unsigned long>(h.address),
               unsigned(dsps_[i]->secondary()));
    return ur();
  }
  // The raw 10-bit length: 1024 DW is encoded 0.
  const unsigned raw_len = h.length_dw == 1024 ? 0 : h.length_dw;
  if (raw_len == 0) {
    log_.error(kMainThread, "zero read %d", 0);
    return send_up(pcie::make_completion(ctx_.pool, h, completer, tlp::CplStatus::SC, nullptr, 0, 4, 0));
  }
  if (raw_len > 2) {
    log_.error(kMainThread, "unsupported read length %d", int(raw_len));
    return ur();
  }
  std::vector<uint8_t> bytes(4 * raw_len, 0);
  for (unsigned k = 0; k < raw_len; ++k) {
    const uint8_t be = k == 0 ? h.first_be : h.last_be;
    const uint64_t dw_off = h.address - base + 4 * k;
    const uint64_t off = dw_off + (k == 0 ? first_byte(be) : 0);
    uint32_t value = VNET_MMIO_UNSUPPORTED_PATTERN;
    if (dw_off < VIRTIO_PCI_COMMON_CFG_SIZE) {
      release_reset_hold(i);  // every common-config read first releases a pending hold
      value = dev.common(uint16_t(dw_off), 4);
    } else if (dw_off >= VNET_BAR0_DEVICE_CFG && dw_off < VNET_BAR0_DEVICE_CFG + VIRTIO_NET_CFG_SIZE) {
      if (off - VNET_BAR0_DEVICE_CFG + 4 > VIRTIO_NET_CFG_SIZE) {
        log_.error(kMainThread, "mmio read - offset 0x%lx + 4 bytes (1DW) exceeds struct boundary (size: %zu)",
                   static_cast<unsigned long>(off), size_t(VIRTIO_NET_CFG_SIZE));
      } else {
        value = le32(dev.net_config() + (dw_off - VNET_BAR0_DEVICE_CFG));
      }
    } else {
      log_.error(kMainThread, "mmio read - unsupported virtio bar offset 0x%lx", static_cast<unsigned long>(off));
    }
    put_le32(&bytes[4 * k], value & be_mask(be));
  }
  pcie::complete_memory_read(ctx_.pool, h, completer, bytes.data() + first_byte(h.first_be),
                             dev.images.virtio().max_payload_size(), dev.images.virtio().read_completion_boundary(),
                             [this](Tlp* c) { send_up(c); });
}

void VnetApp::ep_mmio_write(unsigned i, const tlp::Header& h, const uint8_t* data) {
  VirtioPciDevice& dev = *devices_[i];
  const uint64_t base = dev.images.virtio_bar0();
  if (h.length_dw > 2) {
    log_.error(kMainThread, "unsupported write length %d", int(h.length_dw));
    return;
  }
  for (unsigned k = 0; k < h.length_dw; ++k) {
    const uint8_t be = k == 0 ? h.first_be : h.last_be;
    const uint64_t dw_off = h.address - base + 4 * k;
    if (dw_off < VIRTIO_PCI_COMMON_CFG_SIZE) {
      common_write(i, uint16_t(dw_off), le32(data + 4 * k), be);
    } else if (dw_off >= VNET_BAR0_DEVICE_CFG && dw_off < VNET_BAR0_DEVICE_CFG + VNET_BAR0_DEVICE_CFG_LEN) {
      // Device-config writes are accepted and ignored (read-only).
    } else {
      log_.error(kMainThread, "mmio write drop - unsupported virtio bar offset 0x%lx", static_cast<unsigned long>(dw_off));
    }
  }
}

}  // namespace dpusim::vnet
