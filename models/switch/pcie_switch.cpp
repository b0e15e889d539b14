#include "tlm/timing.h"
#include "switch/pcie_switch.h"

#include "tlm/bytes.h"
#include "tlm/completer.h"
#include "tlm/dma.h"
#include "tlm/pci_regs.h"

namespace dpusim::sw {

using namespace sc_core;
using namespace dpusim::pci;
using pcie::Tlp;

namespace {

pcie::PcieCapSpec port_cap(uint8_t type, unsigned gen, unsigned width, unsigned port_number) {
  pcie::PcieCapSpec s;
  s.port_type = type;
  s.devcap = 2 | PCI_EXP_DEVCAP_EXT_TAG;  // Max_Payload_Size Supported 512 B
  s.linkcap = gen | width << 4 | uint32_t(port_number) << 24;
  s.linksta = uint16_t(gen | width << PCI_EXP_LNKSTA_NLW_SHIFT);
  s.linkcap2 = ((1u << gen) - 1) << 1;  // Supported Link Speeds Vector up to `gen`
  s.linkctl2 = uint16_t(gen);
  return s;
}

}  // namespace

PcieSwitch::PcieSwitch(sc_module_name name, pcie::SimContext& ctx, const SwitchSpec& spec,
                       const std::vector<pcie::Link*>& dsp_links)
    : sc_module(name), up("up"), ctx_(ctx), later_("later"), dummy_path_(std::string(this->name()) + ".dummy") {
  const std::string base = this->name();
  // Upstream port: device 0 function 0 on the root bus.
  usp_ = std::make_unique<Bridge>(base + ".usp", ctx);
  pcie::init_type1_header(usp_->cfg, {spec.vendor_id, spec.usp_device_id, 1});
  usp_->set_pcie_cap(pcie::add_pcie_cap(
      usp_->cfg, port_cap(PCI_EXP_TYPE_UPSTREAM, unsigned(ctx.timing.get(pcie::timing::link_host_gen)),
                          unsigned(ctx.timing.get(pcie::timing::link_host_width)), 0)));
  pcie::add_pm_cap(usp_->cfg, 0x0003);
  usp_->cfg.seal();
  up.set_receiver([this](Tlp& t) { receive(kUp, t); });
  up.set_invalidate_handler([this](uint64_t start, uint64_t end) {
    for (auto& d : down) d->invalidate_dmi(start, end + 1);
  });

  for (unsigned i = 0; i < dsp_links.size(); ++i) {
    down.push_back(std::make_unique<pcie::Port>(("down" + std::to_string(i)).c_str()));
    auto dsp = std::make_unique<DownstreamPort>(base + ".dsp" + std::to_string(i), ctx, i, *dsp_links[i], later_,
                                                [this, i](uint64_t a, uint32_t d) { send_dsp_msi(i, a, d); });
    pcie::init_type1_header(dsp->cfg, {spec.vendor_id, spec.dsp_device_id, 1});
    pcie::PcieCapSpec cap = port_cap(PCI_EXP_TYPE_DOWNSTREAM, dsp_links[i]->gen(), dsp_links[i]->width(), i + 1);
    cap.slot_implemented = true;
    cap.linkcap |= PCI_EXP_LNKCAP_DLLLARC;  // pciehp needs Data Link Layer Link Active Reporting
    cap.linksta = 0;
    cap.slotcap = PCI_EXP_SLTCAP_PCP | PCI_EXP_SLTCAP_PIP | PCI_EXP_SLTCAP_HPS | PCI_EXP_SLTCAP_HPC |
                  uint32_t(i + 1) << 19;  // Physical Slot Number
    cap.devcap2 = PCI_EXP_DEVCAP2_ARI;
    dsp->set_pcie_cap(pcie::add_pcie_cap(dsp->cfg, cap));
    pcie::add_msi_cap(dsp->cfg, 0, false);
    pcie::add_pm_cap(dsp->cfg, 0x0003);
    dsp->init_slot(i < spec.occupied.size() && spec.occupied[i]);
    down.back()->set_receiver([this, i](Tlp& t) { receive(int(i), t); });
    down.back()->set_dmi_handler(
        [this, i](tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi) { return dmi_from_below(i, gp, dmi); });
    down.back()->set_transport_handler([this, i](tlm::tlm_generic_payload& gp, sc_time& delay) {
      if (!upstream_from(i, gp.get_address())) return gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      delay += traversal();
      up.transport(gp, delay);
    });
    dsps_.push_back(std::move(dsp));
  }
}

void PcieSwitch::receive(int ingress, Tlp& t) {
  const tlp::Header& h = pcie::hdr(t);
  if (tlp::is_completion(h.type)) {
    route_completion(ingress, t);
  } else if (tlp::is_config(h.type)) {
    route_config(ingress, t);
  } else if (tlp::is_memory(h.type)) {
    route_memory(ingress, t);
  } else {
    unsupported(ingress, t, "no route for this request type");
  }
}

void PcieSwitch::forward(int egress, Tlp& t) { port(egress).send(t, traversal()); }

void PcieSwitch::complete_config(int ingress, Tlp& t, Bridge& fn) {
  const tlp::Header& h = pcie::hdr(t);
  uint32_t value = 0;
  if (h.type == tlp::Type::CfgWr0) {
    const uint8_t* d = pcie::data(t);
    fn.config_write(h.register_offset, uint32_t(d[0]) | uint32_t(d[1]) << 8 | uint32_t(d[2]) << 16 | uint32_t(d[3]) << 24,
                    h.first_be, h.target_id);
  } else {
    value = fn.config_read(h.register_offset);
  }
  Tlp* cpl = pcie::make_config_completion(ctx_.pool, h, h.target_id, tlp::CplStatus::SC, value);
  t.release();
  port(ingress).send(*cpl, traversal());
  // Bus Master Enable and the windows decide where DMA goes: grants made under the old values
  // are withdrawn (conservatively, on every write to a bridge).
  if (h.type == tlp::Type::CfgWr0)
    for (auto& d : down) d->invalidate_dmi(0, ~uint64_t(0));
}

bool PcieSwitch::dmi_from_below(unsigned ingress, tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi) {
  // Granted only where a memory request would go upstream (route_memory): not into a window
  // of any downstream port (peer-to-peer stays TLPs), with Bus Master Enable on both ports.
  pcie::DmiRoute* route = gp.get_extension<pcie::DmiRoute>();
  if (!route || route->hops.size() >= pcie::DmiRoute::kMaxHops || !upstream_from(ingress, gp.get_address())) return false;
  route->hops.push_back(pcie::DmiHop{nullptr, &sw::timing::switch_traversal_ps});
  return up.get_dmi(gp, dmi);
}

bool PcieSwitch::upstream_from(unsigned ingress, uint64_t addr) const {
  if (!dsps_[ingress]->bus_master() || !usp_->bus_master()) return false;
  for (const auto& dsp : dsps_)
    if (dsp->in_windows(addr)) return false;
  return true;
}

void PcieSwitch::route_config(int ingress, Tlp& t) {
  tlp::Header& h = pcie::hdr(t);
  if (ingress != kUp) return unsupported(ingress, t, "config request from below");
  const uint8_t bus = uint8_t(h.target_id >> 8), dev = uint8_t((h.target_id >> 3) & 0x1f), fn = uint8_t(h.target_id & 7);
  const bool type0 = h.type == tlp::Type::CfgRd0 || h.type == tlp::Type::CfgWr0;
  if (type0) {
    // A Type 0 request on the upstream link is for the device on it: the USP is device 0.
    if (dev == 0 && fn == 0) return complete_config(ingress, t, *usp_);
    return unsupported(ingress, t, "no function at this device/function on the upstream link");
  }
  const uint8_t usp_sec = usp_->secondary();
  if (usp_sec != 0 && bus == usp_sec) {
    // The switch's internal bus: downstream port i is device i, function 0.
    if (fn == 0 && dev < dsps_.size()) {
      h.type = h.type == tlp::Type::CfgRd1 ? tlp::Type::CfgRd0 : tlp::Type::CfgWr0;
      pcie::ext(t).converted = true;
      return complete_config(ingress, t, *dsps_[dev]);
    }
    return unsupported(ingress, t, "no function at this device/function on the internal bus");
  }
  if (!usp_->covers_bus(bus)) return unsupported(ingress, t, "bus outside the switch's bus range");
  for (unsigned i = 0; i < dsps_.size(); ++i) {
    DownstreamPort& dsp = *dsps_[i];
    if (!dsp.covers_bus(bus)) continue;
    if (bus == dsp.secondary()) {
      // Only device 0 exists below a downstream port unless ARI Forwarding is on.
      if (dev != 0 && !dsp.ari_forwarding())
        return unsupported(ingress, t, "device number other than 0 below a downstream port");
      if (!dsp.link_up()) return unsupported(ingress, t, "link down below the downstream port");
      h.type = h.type == tlp::Type::CfgRd1 ? tlp::Type::CfgRd0 : tlp::Type::CfgWr0;
      pcie::ext(t).converted = true;
    } else if (!dsp.link_up()) {
      return unsupported(ingress, t, "link down below the downstream port");
    }
    return forward(int(i), t);
  }
  unsupported(ingress, t, "no downstream port covers the bus");
}

void PcieSwitch::route_memory(int ingress, Tlp& t) {
  const tlp::Header& h = pcie::hdr(t);
  const uint64_t addr = h.address;
  if (ingress == kUp) {
    if (!usp_->memory_enabled()) return unsupported(ingress, t, "memory space disabled on the upstream port");
    for (unsigned i = 0; i < dsps_.size(); ++i) {
      DownstreamPort& dsp = *dsps_[i];
      if (!dsp.in_windows(addr)) continue;
      if (!dsp.memory_enabled()) return unsupported(ingress, t, "memory space disabled on the downstream port");
      if (!dsp.link_up()) return unsupported(ingress, t, "link down below the downstream port");
      return forward(int(i), t);
    }
    return unsupported(ingress, t, "address in no downstream port's window");
  }
  DownstreamPort& from = *dsps_[size_t(ingress)];
  if (!from.bus_master()) return unsupported(ingress, t, "bus master disabled on the ingress downstream port");
  if (from.in_windows(addr)) return unsupported(ingress, t, "address inside the ingress port's own window");
  for (unsigned i = 0; i < dsps_.size(); ++i) {
    DownstreamPort& peer = *dsps_[i];
    if (int(i) == ingress || !peer.in_windows(addr)) continue;
    if (!usp_->memory_enabled() || !peer.memory_enabled())
      return unsupported(ingress, t, "memory space disabled on the peer's path");
    if (!peer.link_up()) return unsupported(ingress, t, "link down below the peer downstream port");
    return forward(int(i), t);
  }
  if (!usp_->bus_master()) return unsupported(ingress, t, "bus master disabled on the upstream port");
  forward(kUp, t);
}

void PcieSwitch::route_completion(int ingress, Tlp& t) {
  const tlp::Header& h = pcie::hdr(t);
  const uint8_t bus = uint8_t(h.requester_id >> 8);
  const char* unexpected = nullptr;
  int egress = kUp;
  for (unsigned i = 0; i < dsps_.size(); ++i) {
    if (!dsps_[i]->covers_bus(bus)) continue;
    egress = int(i);
    if (egress == ingress) unexpected = "requester below the port the completion came from";
    else if (!dsps_[i]->link_up()) unexpected = "link down below the requester's downstream port";
    break;
  }
  if (egress == kUp) {
    if (ingress == kUp) unexpected = "requester bus below no downstream port";
    else if (usp_->secondary() != 0 && bus == usp_->secondary()) unexpected = "the switch's own functions issue no requests";
  }
  if (!unexpected) return forward(egress, t);
  // An Unexpected Completion (PCIe §2.3.2): dropped.
  ctx_.event(dummy_path_, "unexpected_completion")
      .u64("tlp", pcie::ext(t).serial)
      .str("requester", tlp::bdf_str(h.requester_id))
      .u64("tag", h.tag)
      .str("reason", unexpected);
  t.release();
}

void PcieSwitch::unsupported(int ingress, Tlp& t, const char* reason) {
  const tlp::Header& h = pcie::hdr(t);
  ++unsupported_requests;
  if (tlp::is_non_posted(h.type)) {
    ctx_.event(dummy_path_, "unsupported_request")
        .str("type", tlp::type_name(h.type))
        .u64("tlp", pcie::ext(t).serial)
        .str("reason", reason);
    // The completer ID of a config UR is the target's ID; for others, the USP's own ID.
    const uint16_t completer = tlp::is_config(h.type) ? h.target_id : usp_->id();
    Tlp* cpl = pcie::make_error_completion(ctx_.pool, h, completer, tlp::CplStatus::UR);
    t.release();
    port(ingress).send(*cpl, traversal());
    return;
  }
  ++posted_dropped;
  ctx_.event(dummy_path_, "posted_dropped")
      .str("type", tlp::type_name(h.type))
      .u64("tlp", pcie::ext(t).serial)
      .str("reason", reason);
  t.release();
}

void PcieSwitch::send_dsp_msi(unsigned i, uint64_t addr, uint32_t data) {
  // The port's MSI is a DW memory write from its own ID, going up through the USP.
  tlp::Header h;
  h.type = tlp::Type::MWr;
  h.requester_id = dsps_[i]->id();
  h.address = addr & ~3ull;
  h.length_dw = 1;
  h.first_be = 0xf;
  Tlp* t = ctx_.pool.alloc(h, 4);
  bytes::put_le32(pcie::data(*t), data);
  ctx_.event(dsps_[i]->path(), "msi_send").hex("addr", addr).hex("data", data);
  if (!usp_->bus_master()) {
    ++posted_dropped;
    ctx_.event(dummy_path_, "posted_dropped").str("type", "MWr").u64("tlp", pcie::ext(*t).serial)
        .str("reason", "bus master disabled on the upstream port");
    t->release();
    return;
  }
  forward(kUp, *t);
}

}  // namespace dpusim::sw
