// One emulated virtio-net endpoint's firmware side (a PF): the offload engine (vnet_engine.h)
// behind the PF's own port on its DSP link, with the regions of BAR0 the application's switch
// forwards here without the application seeing them (endpoint base, tlm/endpoint_base.h, over
// the function whose config space the application serves): the MSI-X table and PBA
// (functional, tlm/msix.h) and the doorbells at 0x4000 + 8·q. Its requester also carries the
// DMA of the PF's SR-IOV VFs, which have no link of their own (sriov.h).
#pragma once

#include <systemc>

#include <functional>
#include <string>

#include "net/net_end.h"
#include "tlm/endpoint_base.h"
#include "tlm/function.h"
#include "tlm/sim_context.h"
#include "vnet/virtio/vnet_engine.h"

namespace dpusim::vnet {

class VnetEndpoint : public pcie::EndpointBase, public net::NetEnd, public VnetEngine {
 public:
  // `fn` is the endpoint's host-visible function (its config space holds the MSI-X capability
  // at `msix_cap`, Command.BME and the captured BDF); `speed_mbps` reads the link speed the
  // device config reports (the line rate of the endpoint's port).
  VnetEndpoint(sc_core::sc_module_name name, pcie::SimContext& ctx, unsigned index, unsigned num_vqs,
               pcie::Function& fn, uint16_t msix_cap, std::function<uint64_t()> speed_mbps);

  using sc_core::sc_object::name;
  pcie::Requester& requester() { return dma(); }
  const char* raise_msix(uint16_t vector) { return VnetEngine::raise_msix(vector); }

  // The network port.
  void frame_arrived(net::Frame frame) override { VnetEngine::frame_arrived(std::move(frame)); }
  uint64_t line_rate_mbps() const override { return speed_mbps_(); }
  std::string end_name() const override { return "ep" + std::to_string(index()); }

  void trace(sc_core::sc_trace_file* vcd);

  // The firmware regions of the PF's SR-IOV VFs (sriov.h), which the application's switch
  // forwards here like the PF's own: `at` maps an address to (VF, offset in its 32 KiB slice)
  // when it lies in an active VF's firmware regions; `read`/`write` serve it.
  struct VfFirmware {
    std::function<std::optional<std::pair<unsigned, uint64_t>>(uint64_t address)> at;
    std::function<void(unsigned vf, uint64_t off, uint8_t* out, size_t n)> read;
    std::function<void(unsigned vf, uint64_t off, const uint8_t* in, size_t n)> write;
    std::function<uint16_t(unsigned vf)> rid;  // the VF's Routing ID, its completions' Completer ID
  };
  void serve_vf_firmware(VfFirmware f);

 private:
  // The application's switch forwards what lies in BAR0 as the host programmed it (its Memory
  // Space Enable is the application's to check, not firmware's).
  std::optional<pcie::BarHit> decode(uint64_t address) const override;
  uint64_t bar_size(unsigned bar) const override;  // BAR0's, which the application emulates
  uint16_t completer_id(const pcie::BarHit& hit) const override;  // a VF's slice: the VF's

  std::function<uint64_t()> speed_mbps_;
  VfFirmware vf_;
};

}  // namespace dpusim::vnet
