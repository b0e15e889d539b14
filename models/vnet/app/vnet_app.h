// The DOCA vnet_pci_dev application on simulated time as the host sees it: the software PCIe
// switch it emulates (upstream port, one downstream port per endpoint, the endpoints' config
// and common-config images, the dummy function) below the host link, served by the
// application's processes (app_process.h: the threads and their components). One process
// serves the host at a time: the one whose TLP channel is primary (tlp_channel.h). A live update
// (live_update.h) starts a second process, the standby, beside it and hands it the endpoints
// and then the channel; the host sees one switch and one set of endpoints throughout.
//
// The endpoints' firmware (doorbells, MSI-X table and PBA, the datapath) is VnetEndpoint,
// behind link_dsp<i>; memory requests for those BAR0 regions and the completions of the
// endpoints' DMA pass the switch without PE1 (the switch traversal latency only), as on the
// device where firmware, not the application, serves them.
//
// The application drives its emulated functions through DOCA's DevEmu API, not through
// TLPs: here that API is the direct calls the components make on VnetEndpoint (the offload
// engine) and on the function images; everything the host sees crosses a port as a TLP.
#pragma once

#include <systemc>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tlm/link.h"
#include "tlm/port.h"
#include "tlm/sim_context.h"
#include "tlm/timed_queue.h"
#include "vnet/switch/acg.h"
#include "vnet/app/app_process.h"
#include "vnet/app/cleanup.h"
#include "vnet/app/command.h"
#include "vnet/app/cvq_handler.h"
#include "vnet/switch/dsp_msi.h"
#include "vnet/lu/live_update.h"
#include "vnet/app/mq_start.h"
#include "vnet/app/pe1.h"
#include "vnet/switch/slots.h"
#include "vnet/sriov/sriov.h"
#include "vnet/app/status_machine.h"
#include "vnet/app/work_items.h"
#include "vnet/virtio/vnet_endpoint.h"
#include "vnet/app/vnet_options.h"

namespace dpusim::vnet {

class VnetApp : public sc_core::sc_module {
 public:
  VnetApp(sc_core::sc_module_name name, pcie::SimContext& ctx, const VnetOptions& options, const AcgSpec& acg);
  ~VnetApp() override;

  pcie::Port up;                                  // to the host link
  std::vector<std::unique_ptr<pcie::Port>> down;  // to endpoint i's link

  // The family hands over endpoint i's firmware and link (its DLActive follows the slot).
  void attach(unsigned i, VnetEndpoint* engine, pcie::Link* link);
  // Static mode: every endpoint created at startup (the DOCA guide's "static mode").
  void create_static_devices();

  // The process serving the host: the channel's primary, else the last one that was.
  AppProcess& primary();
  AppProcess& process(unsigned pid) { return *rendezvous_->processes().at(pid - 1); }
  unsigned processes() const { return unsigned(rendezvous_->processes().size()); }
  // The live update's rendezvous: signals, standbys (live_update.h).
  LuRendezvous& lu() { return *rendezvous_; }

  // The switch's port images as the serving process holds them (its state and components:
  // primary()).
  sw::Bridge& usp() { return *primary().state().usp; }
  sw::Bridge& dsp(unsigned i) { return *primary().state().dsps[i]; }
  unsigned num_ep() const { return unsigned(shared_.engines.size()); }
  const VnetOptions& options() const { return options_; }

  // Submits a work item as the application's own code would (the device's current generation
  // for controller-scoped types): how a test reaches DEVICE_RESET, which the application
  // defines and handles but never submits.
  bool submit_work(WorkType type, int ep, uint32_t arg = 0, uint32_t arg2 = 0) {
    return primary().submit_work(type, ep, arg, arg2);
  }
  // A line on the serving process's stdin: "plug <i>", "unplug <i>", "speed <i> <mbps>"
  // (command.h). Returns the command's number; its outcome is the event "command" with that id.
  uint64_t command(const std::string& line) { return primary().command(line); }
  // ACG credits cached now (a view for tests).
  unsigned acg_credits();
  // The serving process's shutdown at the end of a run (the DOCA guide's "Graceful shutdown").
  void shutdown(const std::function<void(const std::function<bool()>&)>& run_until);
  void trace(sc_core::sc_trace_file* vcd);

 private:
  void start_of_simulation() override;
  void receive_up(pcie::Tlp& t);
  void receive_down(pcie::Tlp& t);
  int firmware_target(const tlp::Header& h);  // endpoint whose firmware serves it, or -1
  sc_core::sc_time traversal() const;

  pcie::TimedQueue later_;
  const VnetOptions options_;
  AppShared shared_;
  std::unique_ptr<LuRendezvous> rendezvous_;
};

}  // namespace dpusim::vnet
