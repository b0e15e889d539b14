// The "vnet" device family: the DOCA vnet_pci_dev application's switch and its virtio-net
// endpoints, built from the application's own options (vnet_options.h):
//   "topology": {"family": "vnet", "options": {"num-ep": 4, "hotplug-mode": 0, ...},
//                "firmware": {"acg": {...}}}
// (the firmware's ACG credits: acg.h).
// The application (VnetApp) is the switch below the host link; endpoint i's firmware
// (VnetEndpoint "ep<i>") is behind link_dsp<i> and has a network port for a wire. In static
// mode every endpoint exists from the start; in hotplug mode the slots start empty.
#pragma once

#include <memory>
#include <vector>

#include "vnet/switch/acg.h"
#include "device/family.h"
#include "tlm/link.h"
#include "vnet/app/vnet_app.h"
#include "vnet/virtio/vnet_endpoint.h"
#include "vnet/app/vnet_options.h"

namespace dpusim::vnet {

class VnetConfig : public platform::FamilyConfig {
 public:
  VnetConfig(VnetOptions o, AcgSpec a) : options(std::move(o)), acg(std::move(a)) {}
  unsigned endpoints() const override { return unsigned(options.num_ep); }
  bool has_network_port(unsigned) const override { return true; }
  unsigned vfs(unsigned) const override { return unsigned(options.total_vfs); }
  const char* vfs_option() const override { return "topology.options.total-vfs"; }
  std::unique_ptr<platform::FamilyInstance> build(const platform::FamilyBuild& b) const override;
  std::string describe() const override { return options.describe() + " " + acg.describe(); }
  VnetOptions options;
  AcgSpec acg;
};

class VnetInstance : public platform::FamilyInstance {
 public:
  VnetInstance(pcie::SimContext& ctx, const VnetOptions& options, const AcgSpec& acg);
  pcie::Port& upstream_port() override { return app_->up; }
  pcie::Function* function(const std::string& path) override;
  pcie::EndpointBase* endpoint(const std::string& path) override;
  net::NetEnd* network_port(unsigned ep) override { return ep < eps_.size() ? eps_[ep] : nullptr; }
  net::NetEnd* vf_network_port(unsigned ep, unsigned vf) override;
  void trace(sc_core::sc_trace_file* vcd) override;
  void shutdown(const std::function<void(const std::function<bool()>&)>& run_until) override;
  uint64_t frames_in_flight() const override;

  VnetApp& app() { return *app_; }
  VnetEndpoint& endpoint(unsigned i) { return *eps_[i]; }
  unsigned endpoints() const { return unsigned(eps_.size()); }

 private:
  VnetApp* app_;
  std::vector<pcie::Link*> links_;
  std::vector<VnetEndpoint*> eps_;
};

// The family's registration (models/platform/families.cpp).
platform::DeviceFamily vnet_family();

}  // namespace dpusim::vnet
