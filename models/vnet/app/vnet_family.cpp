#include "tlm/timing.h"
#include "vnet/app/vnet_family.h"

#include "device/doc_error.h"
#include "switch/switch_timing.h"
#include "vnet/virtio/ep_image.h"
#include "vnet/virtio/virtio_spec.h"
#include "vnet/app/vnet_trace.h"

namespace dpusim::vnet {

std::unique_ptr<platform::FamilyInstance> VnetConfig::build(const platform::FamilyBuild& b) const {
  return std::make_unique<VnetInstance>(b.ctx, options, acg);
}

VnetInstance::VnetInstance(pcie::SimContext& ctx, const VnetOptions& options, const AcgSpec& acg) {
  add_trace_rules(ctx.trace_rules);
  // SystemC modules live until the process exits (the kernel keeps pointers to them).
  app_ = new VnetApp("switch", ctx, options, acg);
  for (unsigned i = 0; i < unsigned(options.num_ep); ++i) {
    const std::string n = std::to_string(i);
    auto* link = new pcie::Link(("link_dsp" + n).c_str(), ctx, pcie::timing::link_dsp_gen,
                                pcie::timing::link_dsp_width, [this, i] { return int(app_->dsp(i).secondary()); });
    VirtioPciDevice& dev = *app_->primary().state().devices[i];
    auto* ep = new VnetEndpoint(("ep" + n).c_str(), ctx, i, dev.num_queues(), dev.images.virtio(), VNET_EP_MSIX_CAP,
                                [this, i] {
                                  // The speed of the process serving the host (a live update moves it).
                                  const VirtioPciDevice& d = *app_->primary().state().devices[i];
                                  return uint64_t(virtio::get_le32(d.net_config() + virtio::VIRTIO_NET_CFG_SPEED));
                                });
    const int id = int(ctx.checker.register_requester("ep" + n));
    ep->requester().checker_id = id;
    link->connect(*app_->down[i], ep->port, -1, id);
    app_->attach(i, ep, link);
    links_.push_back(link);
    eps_.push_back(ep);
  }
  if (options.static_mode()) app_->create_static_devices();
  // The application sends endpoint DMA up the DPU's link as it is, after the switch traversal
  // and without checking its bridges (VnetApp::receive_down): direct memory requests and loosely
  // timed writes (tlm/dma.h) take the same way, and invalidations from the host come back to
  // every endpoint.
  for (unsigned i = 0; i < eps_.size(); ++i) {
    app_->down[i]->set_dmi_handler([this](tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi) {
      pcie::DmiRoute* route = gp.get_extension<pcie::DmiRoute>();
      if (!route || route->hops.size() >= pcie::DmiRoute::kMaxHops) return false;
      route->hops.push_back(pcie::DmiHop{nullptr, &sw::timing::switch_traversal_ps});
      return app_->up.get_dmi(gp, dmi);
    });
    app_->down[i]->set_transport_handler([this, &ctx](tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
      delay += ctx.ps(sw::timing::switch_traversal_ps);
      app_->up.transport(gp, delay);
    });
  }
  app_->up.set_invalidate_handler([this](uint64_t start, uint64_t end) {
    for (unsigned i = 0; i < eps_.size(); ++i) app_->down[i]->invalidate_dmi(start, end + 1);
  });
}

pcie::EndpointBase* VnetInstance::endpoint(const std::string& path) {
  for (VnetEndpoint* ep : eps_)
    if (path == ep->name()) return ep;
  return nullptr;
}

pcie::Function* VnetInstance::function(const std::string& path) {
  auto index = [&](size_t prefix) -> int {
    const std::string rest = path.substr(prefix);
    if (rest.empty() || rest.find_first_not_of("0123456789") != std::string::npos || rest.size() > 3) return -1;
    const unsigned i = unsigned(std::stoul(rest));
    return i < eps_.size() ? int(i) : -1;
  };
  if (path == "switch.usp") return &app_->usp();
  if (path.rfind("switch.dsp", 0) == 0) {
    const int i = index(10);
    return i < 0 ? nullptr : &app_->dsp(unsigned(i));
  }
  if (path.rfind("ep", 0) == 0) {
    const int i = index(2);
    return i < 0 ? nullptr : &app_->primary().state().devices[unsigned(i)]->images.virtio();
  }
  return nullptr;
}

void VnetInstance::trace(sc_core::sc_trace_file* vcd) {
  for (pcie::Link* l : links_) {
    const std::string n = l->name();
    sc_core::sc_trace(vcd, l->trace_up, n + ".up");
    sc_core::sc_trace(vcd, l->trace_tlps_down, n + ".tlps_down", 32);
    sc_core::sc_trace(vcd, l->trace_tlps_up, n + ".tlps_up", 32);
  }
  app_->trace(vcd);
  for (VnetEndpoint* ep : eps_) ep->trace(vcd);
}

void VnetInstance::shutdown(const std::function<void(const std::function<bool()>&)>& run_until) {
  app_->shutdown(run_until);
}

uint64_t VnetInstance::frames_in_flight() const {
  uint64_t n = 0;
  for (const VnetEndpoint* ep : eps_) n += ep->frames_in_flight();
  if (const Sriov* s = app_->primary().sriov()) n += s->frames_in_flight();
  return n;
}

net::NetEnd* VnetInstance::vf_network_port(unsigned ep, unsigned vf) {
  Sriov* s = app_->primary().sriov();
  return s ? s->network_port(ep, vf) : nullptr;
}

platform::DeviceFamily vnet_family() {
  return platform::DeviceFamily{
      "vnet", "the DOCA vnet_pci_dev application: its software switch and virtio-net endpoints",
      [](const nlohmann::json& options, const nlohmann::json& firmware,
         const std::string& path) -> std::shared_ptr<const platform::FamilyConfig> {
        VnetOptions o = parse_vnet_options(options, path + ".options");
        if (o.lu_mode == "standby")
          throw platform::DocError(path + ".options.lu-mode",
                                   "'standby' needs an active process to restore from: run the platform's "
                                   "process as 'active' and start the standby from the scenario "
                                   "(sim.start_standby)");
        return std::make_shared<VnetConfig>(std::move(o), parse_firmware_spec(firmware, path + ".firmware"));
      }};
}

}  // namespace dpusim::vnet
