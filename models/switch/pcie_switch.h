// A PCIe switch (PCIe r5.0 §7.3.3 routing, §7.5.1.3 bridges): one upstream port, one
// downstream port per slot (1..32), and a dummy function that answers Unsupported Request for
// whatever nothing else claims.
//
// Routing, decided when a TLP has fully arrived (store-and-forward) and applied after the
// profile's traversal latency:
//  - config Type 0 from above: the upstream port's own function (device 0, function 0);
//  - config Type 1: bus == USP secondary -> the downstream port of that device number;
//    inside a downstream port's [secondary, subordinate]: converted to Type 0 at its secondary
//    bus (device != 0 is UR unless ARI Forwarding is enabled) or forwarded Type 1 below it;
//  - memory from above: down through the port whose windows claim it, with Command.MSE set on
//    the upstream port and on that port; from below: to a peer's windows, else upstream with
//    Bus Master Enable set on the ingress port and the upstream port;
//  - completions by requester ID bus, down to the port covering it, else up;
//  - non-posted requests that nothing claims get UR from the dummy; posted ones are dropped and
//    counted ("posted_dropped").
// Direct memory requests and loosely timed writes from below (tlm/dma.h) go up where a memory
// request would, and every config write to the switch's functions withdraws the grants below it.
#pragma once

#include <systemc>

#include <memory>
#include <string>
#include <vector>

#include "switch/switch_timing.h"
#include "switch/bridge.h"
#include "switch/downstream_port.h"
#include "tlm/link.h"
#include "tlm/port.h"
#include "tlm/sim_context.h"
#include "tlm/timed_queue.h"

namespace dpusim::sw {

struct SwitchSpec {
  uint16_t vendor_id = 0x1234, usp_device_id = 0x5350, dsp_device_id = 0x5351;
  std::vector<bool> occupied;  // one entry per downstream port
};

class PcieSwitch : public sc_core::sc_module {
 public:
  // `dsp_links[i]` is the link below downstream port i (the platform binds its far end).
  PcieSwitch(sc_core::sc_module_name name, pcie::SimContext& ctx, const SwitchSpec& spec,
             const std::vector<pcie::Link*>& dsp_links);

  pcie::Port up;
  std::vector<std::unique_ptr<pcie::Port>> down;

  Bridge& usp() { return *usp_; }
  DownstreamPort& dsp(unsigned i) { return *dsps_[i]; }
  unsigned ports() const { return unsigned(dsps_.size()); }

  uint64_t posted_dropped = 0;
  uint64_t unsupported_requests = 0;

 private:
  static constexpr int kUp = -1;
  void receive(int ingress, pcie::Tlp& t);
  void route_config(int ingress, pcie::Tlp& t);
  void route_memory(int ingress, pcie::Tlp& t);
  void route_completion(int ingress, pcie::Tlp& t);
  void forward(int egress, pcie::Tlp& t);
  bool dmi_from_below(unsigned ingress, tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi);
  // Whether a memory request from below port `ingress` for `addr` goes upstream (route_memory).
  bool upstream_from(unsigned ingress, uint64_t addr) const;
  void complete_config(int ingress, pcie::Tlp& t, Bridge& fn);
  // The dummy function: UR for a non-posted request, a counted drop for a posted one.
  void unsupported(int ingress, pcie::Tlp& t, const char* reason);
  void send_dsp_msi(unsigned i, uint64_t addr, uint32_t data);
  pcie::Port& port(int index) { return index == kUp ? up : *down[size_t(index)]; }
  sc_core::sc_time traversal() const { return ctx_.ps(sw::timing::switch_traversal_ps); }

  pcie::SimContext& ctx_;
  pcie::TimedQueue later_;
  std::unique_ptr<Bridge> usp_;
  std::vector<std::unique_ptr<DownstreamPort>> dsps_;
  std::string dummy_path_;
};

}  // namespace dpusim::sw
