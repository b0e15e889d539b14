// The DOCA vnet_pci_dev application on simulated time: the software PCIe switch it emulates
// (upstream port, one downstream port per endpoint, the endpoints' config and common-config
// images, the dummy function) and its threads, composed of one component per concern:
//
//   pe1.h             PE1, the main thread's TLP server: config, MMIO, BDF cache, the dummy
//   status_machine.h  each device's status machine: common-config writes, reset, FEATURES_OK,
//                     DRIVER_OK, the reset hold, DEVICE_NEEDS_RESET
//   work_items.h      the config worker's items on the offload engine
//   cleanup.h         CONTROLLER_CLEANUP and the full teardown
//   cvq_handler.h     the control virtqueue's requests
//   mq_start.h        the MQ-start threads
//   slots.h           the downstream ports' hot-plug slots, plug, unplug, destroy, timeout
//   dsp_msi.h         the DSPs' MSIs over ACG credits and their retries
//   command.h         the stdin commands
//   sriov.h           SR-IOV (with --total-vfs): VF slots, VFE fan-out, per-VF FLR (sriov_cap.h,
//                     vf_image.h: the PF's capabilities and the VFs' config images)
// with what they share in app_state.h (the workqueue is workqueue.h). Each thread is a
// pcie::Activity (steps on a TimedQueue), not a SystemC thread.
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
#include "vnet/acg.h"
#include "vnet/app_invariants.h"
#include "vnet/app_state.h"
#include "vnet/cleanup.h"
#include "vnet/command.h"
#include "vnet/cvq_handler.h"
#include "vnet/dsp_msi.h"
#include "vnet/mq_start.h"
#include "vnet/pe1.h"
#include "vnet/slots.h"
#include "vnet/sriov.h"
#include "vnet/status_machine.h"
#include "vnet/vnet_endpoint.h"
#include "vnet/vnet_options.h"
#include "vnet/work_items.h"

namespace dpusim::vnet {

class VnetApp : public sc_core::sc_module {
 public:
  VnetApp(sc_core::sc_module_name name, pcie::SimContext& ctx, const VnetOptions& options, const AcgSpec& acg);

  pcie::Port up;                                  // to the host link
  std::vector<std::unique_ptr<pcie::Port>> down;  // to endpoint i's link

  // The family hands over endpoint i's firmware and link (its DLActive follows the slot).
  void attach(unsigned i, VnetEndpoint* engine, pcie::Link* link);
  // Static mode: every endpoint created at startup (the DOCA guide's "static mode").
  void create_static_devices();

  sw::Bridge& usp() { return *app_.usp; }
  sw::Bridge& dsp(unsigned i) { return *app_.dsps[i]; }
  VirtioPciDevice& device(unsigned i) { return *app_.devices[i]; }
  Controller& controller(unsigned i) { return app_.controllers[i]; }
  ConfigWorkqueue& workqueue() { return app_.wq; }
  unsigned num_ep() const { return app_.num_ep(); }
  const VnetOptions& options() const { return app_.opt; }

  // The components, for tests.
  AppState& state() { return app_; }
  Pe1& pe1() { return *pe1_; }
  StatusMachine& status() { return *status_; }
  Slots& slots() { return *slots_; }
  DspMsi& msi() { return *msi_; }
  MqStart& mq_start() { return *mq_; }
  Sriov* sriov() { return sriov_.get(); }

  // Submits a work item as the application's own code would (the device's current generation
  // for controller-scoped types): how a test reaches DEVICE_RESET, which the application
  // defines and handles but never submits.
  bool submit_work(WorkType type, int ep, uint32_t arg = 0, uint32_t arg2 = 0);
  // A line on the application's stdin: "plug <i>", "unplug <i>", "speed <i> <mbps>"
  // (command.h). Returns the command's number; its outcome is the event "command" with that id.
  uint64_t command(const std::string& line) { return console_->command(line); }
  // ACG credits cached now (a view for tests).
  unsigned acg_credits() const { return msi_->credits(); }
  // The application's shutdown at the end of a run (the DOCA guide's "Graceful shutdown").
  void shutdown(const std::function<void(const std::function<bool()>&)>& run_until);
  void trace(sc_core::sc_trace_file* vcd);

 private:
  void start_of_simulation() override { msi_->start(); }
  void receive_up(pcie::Tlp& t);
  void receive_down(pcie::Tlp& t);
  int firmware_target(const tlp::Header& h) const;  // endpoint whose firmware serves it, or -1
  void send_up(pcie::Tlp* t) { up.send(*t); }
  sc_core::sc_time traversal() const;

  AppState app_;
  AppInvariants invariants_;
  std::unique_ptr<StatusMachine> status_;
  std::unique_ptr<Pe1> pe1_;
  std::unique_ptr<DspMsi> msi_;
  std::unique_ptr<Cleanup> cleanup_;
  std::unique_ptr<Slots> slots_;
  std::unique_ptr<MqStart> mq_;
  std::unique_ptr<CvqHandler> cvq_;
  std::unique_ptr<WorkItems> items_;
  std::unique_ptr<Console> console_;
  std::unique_ptr<Sriov> sriov_;
};

}  // namespace dpusim::vnet
