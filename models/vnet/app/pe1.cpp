#include "vnet/app/pe1.h"

#include "tlm/completer.h"
#include "tlm/pci_regs.h"
#include "vnet/switch/bridge_image.h"
#include "vnet/sriov/sriov.h"
#include "vnet/app/status_machine.h"
#include "vnet/virtio/vnet_layout.h"
#include "vnet/app/vnet_timing.h"

namespace dpusim::vnet {

using namespace dpusim::pci;
using namespace dpusim::virtio;
using pcie::Tlp;

Pe1::Pe1(AppEnv& env, AppPorts& ports, AppDevices& devs, StatusMachine& status,
         std::function<void(pcie::Tlp*)> send_up)
    : env_(env),
      ports_(ports),
      devs_(devs),
      status_(status),
      send_up_(std::move(send_up)),
      dummy_path_(env.path + ".dummy"),
      recorded_bdf_(2 * devs.num_ep() + 2, 0),
      ep_pf_bus_(devs.num_ep(), -1) {}

void Pe1::enqueue(Tlp& t, uint64_t arrival_ps, bool handover) {
  const tlp::Type type = pcie::hdr(t).type;
  const pcie::TimingParam& cost_id = type == tlp::Type::MRd   ? timing::pe1_mmio_read_ps
                                     : type == tlp::Type::MWr ? timing::pe1_mmio_write_ps
                                                              : timing::pe1_config_ps;
  fifo_.push_back(Entry{&t, arrival_ps, env_.ctx.timing.get(cost_id), &cost_id, handover || hold_});
  trace_queue = uint32_t(fifo_.size());
  if (hold_) ++held_;
  else schedule(fifo_.back());
}

void Pe1::schedule(const Entry& e) {
  env_.main_thread.then(env_.cost(*e.cost_id), [this] { serve(); });
}

void Pe1::hold_for_handover(bool hold) {
  hold_ = hold;
  if (hold) return;
  for (size_t k = fifo_.size() - held_; k < fifo_.size(); ++k) schedule(fifo_[k]);
  held_ = 0;
}

void Pe1::serve() {
  const Entry e = fifo_.front();
  fifo_.pop_front();
  trace_queue = uint32_t(fifo_.size());
  Tlp& t = *e.tlp;
  const tlp::Header h = pcie::hdr(t);
  const uint64_t serial = pcie::ext(t).serial;
  // For the trace: PE1 spent the handler's cost on this TLP, up to now.
  env_.ctx.sink_event(env_.log.thread_path(kMainThread), "pe1_service")
      .str("type", tlp::type_name(h.type))
      .u64("tlp", serial)
      .u64("arrival_ps", e.arrival_ps)
      .u64("from_ps", env_.ctx.now_ps() - e.cost_ps);
  if (tlp::is_config(h.type)) {
    service_config(t);
  } else if (h.type == tlp::Type::MRd || h.type == tlp::Type::MWr) {
    service_memory(t);
  } else {
    // I/O, messages, atomics: INVALID, routed to the dummy.
    t.release();
    dummy_ur(h, recorded_bdf_.back());
  }
  if (after_service) after_service();
  // The bound covers queueing and any wait the handler had (a reset barrier).
  env_.main_thread.then([this, e, h, serial] {
    const uint64_t took = env_.ctx.now_ps() - e.arrival_ps, bound = env_.ctx.timing.get(vnet::timing::pe1_bound_ps);
    if (e.handover) {
      // Not PE1 blocking in its loop: the process had left it for a live update's handover.
      env_.ctx.event(env_.log.thread_path(kMainThread), "lu_tlp_wait")
          .str("type", tlp::type_name(h.type)).u64("tlp", serial).u64("wait_ps", took);
    } else if (took > bound)
      env_.ctx.checker.violation(env_.ctx.now_ps(), kMainThread, "pe1_service_bound",
                             std::string(tlp::type_name(h.type)) + " #" + std::to_string(serial) + " took " +
                                 std::to_string(took) + " ps from arrival to completion, over the bound of " +
                                 std::to_string(bound) + " ps");
  });
}

// find_device_by_bdf: the cache first (an EP entry counts only while the EP is present), then the slow path.
Pe1::Target Pe1::find_device_by_bdf(bool type1, uint16_t bdf) {
  const uint32_t key = uint32_t(type1 ? 5 : 4) << 16 | bdf;
  if (auto it = bdf_cache_.find(key); it != bdf_cache_.end()) {
    const Target t = it->second;
    if (t.kind != Kind::EP || devs_.controllers[t.index].device_present) return t;
  }
  const uint8_t bus = uint8_t(bdf >> 8), dev = uint8_t((bdf >> 3) & 0x1f), fn = uint8_t(bdf & 7);
  std::optional<Target> found;
  if (!type1) {
    if (dev == 0 && fn == 0) found = Target{Kind::USP, 0};  // at any bus number
  } else if (ports_.usp->secondary() != 0 && bus == ports_.usp->secondary() && fn == 0 && dev < devs_.num_ep()) {
    found = Target{Kind::DSP, dev};
  } else {
    for (unsigned i = 0; i < devs_.num_ep() && !found; ++i) {
      if (ports_.dsps[i]->secondary() != 0 && bus == ports_.dsps[i]->secondary() && dev == 0 && fn == 0 &&
          devs_.controllers[i].device_present) {
        env_.log.info(kMainThread, "find_device_by_bdf: matched EP[%u] for bus 0x%02x", i, bus);
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

// A started VF of a present PF at (PF bus, ARI function): functions above 7 only through a DSP
// with ARI Forwarding Enable (a DSP forwards device 0's functions 0..7 only, otherwise).
VfSlot* Pe1::find_vf(uint16_t bdf) {
  const uint8_t bus = uint8_t(bdf >> 8), devfn = uint8_t(bdf);
  for (unsigned i = 0; i < devs_.num_ep(); ++i) {
    if (ports_.dsps[i]->secondary() == 0 || ports_.dsps[i]->secondary() != bus) continue;
    if (!devs_.controllers[i].device_present || (devfn > 7 && !ports_.dsps[i]->ari_forwarding())) return nullptr;
    return devs_.sriov->route(i, devfn);
  }
  return nullptr;
}

void Pe1::record_bdf(Target t, uint16_t bdf) {
  const unsigned n = devs_.num_ep();
  const size_t slot = t.kind == Kind::USP ? 0 : t.kind == Kind::DSP ? 1 + t.index : t.kind == Kind::EP ? 1 + n + t.index : 2 * n + 1;
  uint16_t& rec = recorded_bdf_[slot];
  if (rec != 0 && rec != bdf) env_.log.debug(kMainThread, "Device BDF renumbered: 0x%04x -> 0x%04x", rec, bdf);
  rec = bdf;
}

void Pe1::on_bus_config(int dsp, uint32_t before, uint32_t after) {
  log_bus_config(env_.log, dsp < 0 ? std::string("USP") : "DSP[" + std::to_string(dsp) + "]", before, after);
  const uint8_t old_sec = uint8_t(before >> 8), sec = uint8_t(after >> 8);
  if (dsp >= 0 && old_sec != 0 && old_sec != sec) {
    env_.log.info(kMainThread, "Invalidating BDF cache for EP on old bus 0x%02x", old_sec);
    bdf_cache_.erase(uint32_t(5) << 16 | uint32_t(old_sec) << 8);
  }
}

void Pe1::dummy_ur(const tlp::Header& h, uint16_t completer) {
  env_.ctx.event(dummy_path_, "unsupported_request").str("type", tlp::type_name(h.type));
  // The application completes a posted write's UR as if non-posted; the completion stays in
  // the application (no TLP reaches the host for a posted request).
  if (!tlp::is_non_posted(h.type)) {
    env_.ctx.event(dummy_path_, "posted_ur_completed_internally").str("type", tlp::type_name(h.type));
    return;
  }
  // Byte count 4 whatever the request asked for: the dummy's completion is a fixed one.
  if (tlp::is_config(h.type)) return send_up_(pcie::make_error_completion(env_.ctx.pool, h, completer, tlp::CplStatus::UR));
  send_up_(pcie::make_completion(env_.ctx.pool, h, completer, tlp::CplStatus::UR, nullptr, 0, 4,
                                 uint8_t(pcie::request_first_byte(h) & 0x7f)));
}

void Pe1::service_config(Tlp& t) {
  const tlp::Header h = pcie::hdr(t);
  const bool write = h.type == tlp::Type::CfgWr0 || h.type == tlp::Type::CfgWr1;
  const bool type1 = h.type == tlp::Type::CfgRd1 || h.type == tlp::Type::CfgWr1;
  const uint32_t data = write ? get_le32(pcie::data(t)) : 0;
  t.release();
  if (VfSlot* vf = type1 && devs_.sriov ? find_vf(h.target_id) : nullptr) {
    if (!write) return send_up_(pcie::make_config_completion(env_.ctx.pool, h, h.target_id, tlp::CplStatus::SC,
                                                            devs_.sriov->config_read(*vf, h.register_offset, h.first_be)));
    devs_.sriov->config_write(*vf, h.register_offset, data, h.first_be, h.target_id);
    return send_up_(pcie::make_config_completion(env_.ctx.pool, h, h.target_id, tlp::CplStatus::SC, 0));
  }
  const Target target = find_device_by_bdf(type1, h.target_id);
  record_bdf(target, h.target_id);
  auto complete = [&](uint32_t value) {
    send_up_(pcie::make_config_completion(env_.ctx.pool, h, h.target_id, tlp::CplStatus::SC, value));
  };
  switch (target.kind) {
    case Kind::USP:
    case Kind::DSP: {
      sw::Bridge& fn = target.kind == Kind::USP ? *ports_.usp : *ports_.dsps[target.index];
      if (!write) return complete(fn.config_read(h.register_offset));
      fn.config_write(h.register_offset, data, h.first_be, h.target_id);
      return complete(0);
    }
    case Kind::EP: {
      const unsigned i = target.index;
      // VirtIO-side enumeration: bind the PF to the BDF it is first probed at.
      const uint8_t bus = uint8_t(h.target_id >> 8);
      if (ep_pf_bus_[i] < 0) {
        env_.log.debug(kMainThread, "VNet pf_index=%u: first probed at %s (transient)", i, tlp::bdf_str(h.target_id).c_str());
      } else if (ep_pf_bus_[i] != bus) {
        env_.log.info(kMainThread, "VNet pf_index=%u: BDF reassigned %s -> %s", i,
                  tlp::bdf_str(uint16_t(ep_pf_bus_[i] << 8)).c_str(), tlp::bdf_str(h.target_id).c_str());
      }
      ep_pf_bus_[i] = bus;
      EpImages& img = devs_.devices[i]->images;
      if (!write) return complete(img.read(h.register_offset, h.first_be));
      img.write(h.register_offset, data, h.first_be, h.target_id);
      return complete(0);
    }
    case Kind::DUMMY:
      return dummy_ur(h, h.target_id);
  }
}

void Pe1::service_memory(Tlp& t) {
  const auto [h, payload] = pcie::take_request(t);
  if (devs_.sriov && devs_.sriov->serve_memory(h, payload.data(), send_up_)) return;
  // BAR routing: the internal image's BAR of each present EP, in order; then the VirtIO images' BARs.
  for (unsigned i = 0; i < devs_.num_ep(); ++i) {
    if (!devs_.controllers[i].device_present) continue;
    const uint64_t base = devs_.devices[i]->images.routing_bar0();
    if (base != 0 && h.address >= base && h.address - base < VNET_BAR0_SIZE) {
      if (h.type == tlp::Type::MRd) return ep_mmio_read(i, h);
      return ep_mmio_write(i, h, payload.data());
    }
  }
  for (unsigned i = 0; i < devs_.num_ep(); ++i) {
    const uint64_t base = devs_.devices[i]->images.virtio_bar0();
    if (base != 0 && h.address >= base && h.address - base < VNET_BAR0_SIZE && !devs_.controllers[i].device_present) {
      env_.log.debug(kMainThread, "Fallback BAR match for destroyed device at 0x%lx, returning dummy",
                 static_cast<unsigned long>(h.address));
      break;
    }
  }
  dummy_ur(h, recorded_bdf_.back());
}

void Pe1::ep_mmio_read(unsigned i, const tlp::Header& h) {
  VirtioPciDevice& dev = *devs_.devices[i];
  const uint16_t completer = dev.images.virtio().id();
  const uint64_t base = dev.images.virtio_bar0();
  auto ur = [&] { send_up_(pcie::make_error_completion(env_.ctx.pool, h, completer, tlp::CplStatus::UR)); };
  if (base == 0 || h.address < base || h.address - base >= VNET_BAR0_SIZE) {
    env_.log.debug(kMainThread, "invalid mmio address 0x%lx for endpoint bus=0x%02x", static_cast<unsigned long>(h.address),
               unsigned(ports_.dsps[i]->secondary()));
    return ur();
  }
  // The raw 10-bit length: 1024 DW is encoded 0.
  const unsigned raw_len = h.length_dw == 1024 ? 0 : h.length_dw;
  if (raw_len == 0) {
    env_.log.error(kMainThread, "zero read %d", 0);
    return send_up_(pcie::make_completion(env_.ctx.pool, h, completer, tlp::CplStatus::SC, nullptr, 0, 4, 0));
  }
  if (raw_len > 2) {
    env_.log.error(kMainThread, "unsupported read length %d", int(raw_len));
    return ur();
  }
  auto read_dw = [&](unsigned k, uint8_t be) {
    const uint64_t dw_off = h.address - base + 4 * k;
    const uint64_t off = dw_off + (k == 0 ? tlp::first_enabled_byte(be) : 0);
    if (dw_off < VIRTIO_PCI_COMMON_CFG_SIZE) {
      status_.release_reset_hold(i);  // every common-config read first releases a pending hold
      return dev.common(uint16_t(dw_off), 4);
    }
    if (dw_off >= VNET_BAR0_DEVICE_CFG && dw_off < VNET_BAR0_DEVICE_CFG + VIRTIO_NET_CFG_SIZE) {
      if (off - VNET_BAR0_DEVICE_CFG + 4 <= VIRTIO_NET_CFG_SIZE) return get_le32(dev.net_config() + (dw_off - VNET_BAR0_DEVICE_CFG));
      env_.log.error(kMainThread, "mmio read - offset 0x%lx + 4 bytes (1DW) exceeds struct boundary (size: %zu)",
                     static_cast<unsigned long>(off), size_t(VIRTIO_NET_CFG_SIZE));
    } else {
      env_.log.error(kMainThread, "mmio read - unsupported virtio bar offset 0x%lx", static_cast<unsigned long>(off));
    }
    return VNET_MMIO_UNSUPPORTED_PATTERN;
  };
  pcie::complete_register_read(env_.ctx.pool, h, completer, dev.images.virtio().max_payload_size(),
                               dev.images.virtio().read_completion_boundary(), read_dw, send_up_);
}

void Pe1::ep_mmio_write(unsigned i, const tlp::Header& h, const uint8_t* data) {
  VirtioPciDevice& dev = *devs_.devices[i];
  const uint64_t base = dev.images.virtio_bar0();
  if (h.length_dw > 2) {
    env_.log.error(kMainThread, "unsupported write length %d", int(h.length_dw));
    return;
  }
  for (unsigned k = 0; k < h.length_dw; ++k) {
    const uint8_t be = k == 0 ? h.first_be : h.last_be;
    const uint64_t dw_off = h.address - base + 4 * k;
    if (dw_off < VIRTIO_PCI_COMMON_CFG_SIZE) {
      status_.common_write(i, uint16_t(dw_off), get_le32(data + 4 * k), be);
    } else if (dw_off >= VNET_BAR0_DEVICE_CFG && dw_off < VNET_BAR0_DEVICE_CFG + VNET_BAR0_DEVICE_CFG_LEN) {
      // Device-config writes are accepted and ignored (read-only).
    } else {
      env_.log.error(kMainThread, "mmio write drop - unsupported virtio bar offset 0x%lx", static_cast<unsigned long>(dw_off));
    }
  }
}

}  // namespace dpusim::vnet
