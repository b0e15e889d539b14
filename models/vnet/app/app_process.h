// One process of the DOCA vnet_pci_dev application: its threads and what they share
// (app_state.h), composed of one component per concern:
//
//   app/pe1.h             PE1, the main thread's TLP server: config, MMIO, BDF cache, the dummy
//   app/status_machine.h  each PF's lifecycle in the shared virtio function
//                         (virtio/virtio_function.h): reset, FEATURES_OK, DRIVER_OK, the reset
//                         hold, DEVICE_NEEDS_RESET
//   app/work_items.h      the config worker's items on the offload engine
//   app/cleanup.h         CONTROLLER_CLEANUP and the full teardown
//   app/cvq_handler.h     the PFs' control virtqueue requests
//   app/mq_start.h        the MQ-start threads
//   switch/slots.h        the downstream ports' hot-plug slots, plug, unplug, destroy, timeout
//   switch/dsp_msi.h      the DSPs' MSIs over ACG credits and their retries
//   app/command.h         the stdin commands
//   sriov/sriov.h         SR-IOV (with --total-vfs): VF slots, VFE fan-out, per-VF FLR
//                         (sriov_cap.h, vf_image.h: the PF's capabilities and the VFs' config
//                         images; vf_function.h: each VF's virtio function and datapath)
//   lu/live_update.h      the live update roles (active, standby; vnet_pci_dev_lu.c)
//
// The platform's first process is built at elaboration. A live update's standby is a second
// process of the same application (the DOCA guide §7.9: "live update is implemented inside the
// same executable through --lu-mode"), started beside the active: it shares what lives on the
// DPU outside a process (AppShared: the switch's link to the host, the TLP channel, the
// endpoints' firmware engines and links, the live-update rendezvous) and has its own copy of
// everything else (config images, register files, controllers, workqueue). A process exists
// before its application is built: a standby builds it only once the active's export told it
// its configuration (build()).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tlm/link.h"
#include "tlm/sim_context.h"
#include "tlm/timed_queue.h"
#include "vnet/switch/acg.h"
#include "vnet/app/app_invariants.h"
#include "vnet/app/app_state.h"
#include "vnet/app/tlp_channel.h"
#include "vnet/virtio/vnet_endpoint.h"
#include "vnet/app/vnet_options.h"

namespace dpusim::vnet {

class AppProcess;
class Cleanup;
class Console;
class CvqHandler;
class DspMsi;
class LiveUpdate;
class LuRendezvous;
class MqStart;
class Pe1;
class Slots;
class Sriov;
class StatusMachine;
class WorkItems;

// What the processes of the application share on the DPU.
struct AppShared {
  AppShared(pcie::SimContext& c, pcie::TimedQueue& q, std::string p, std::function<void(pcie::Tlp*)> up)
      : ctx(c), later(q), path(std::move(p)), send_up(std::move(up)) {}
  pcie::SimContext& ctx;
  pcie::TimedQueue& later;
  std::string path;                              // the switch's component path ("switch")
  std::function<void(pcie::Tlp*)> send_up;       // a TLP up the DPU's link to the host
  TlpChannel channel;
  std::vector<VnetEndpoint*> engines;            // endpoint i's firmware (offload engine)
  std::vector<pcie::Link*> links;                // endpoint i's link
  std::vector<AppProcess*> engine_owner;         // the process driving endpoint i's engine
  AppProcess* serving = nullptr;                 // the process whose channel is (was last) primary
  std::function<LuRendezvous&()> rendezvous;     // the live-update socket, lock and SHM
  std::function<AppProcess&(unsigned pid)> process;
};

class AppProcess {
 public:
  AppProcess(AppShared& shared, unsigned pid, const AcgSpec& acg);
  ~AppProcess();

  // The startup banner (vnet_pci_dev.c: "Starting DOCA VirtIO Net PCI Device application").
  static void log_banner(AppLog& log, const VnetOptions& options);
  // Builds the application: topology, images, controllers, threads. `channel_setup` false: a
  // standby skips the TLP channel and the ACG queue that comes with it (live_update.h).
  void build(const VnetOptions& options, bool channel_setup);
  bool built() const { return app_ != nullptr; }

  unsigned pid() const { return pid_; }
  AppLog& log() { return log_; }
  AppShared& shared() { return shared_; }
  LiveUpdate& lu() { return *lu_; }

  // The application's parts (built() only).
  AppState& state() { return *app_; }
  Pe1& pe1() { return *pe1_; }
  StatusMachine& status() { return *status_; }
  Slots& slots() { return *slots_; }
  DspMsi& msi() { return *msi_; }
  MqStart& mq_start() { return *mq_; }
  Cleanup& cleanup() { return *cleanup_; }
  CvqHandler& cvq() { return *cvq_; }
  AppInvariants& invariants() { return *invariants_; }
  Sriov* sriov() { return sriov_.get(); }  // nullptr without --total-vfs

  // Endpoint i's engine and link are the shared ones.
  void attach(unsigned i);
  // Static mode: every endpoint created at startup; `links` false leaves the links as they are
  // (a standby reattaches to functions the host already sees).
  void create_static_devices(bool links);
  bool submit_work(WorkType type, int ep, uint32_t arg, uint32_t arg2);
  uint64_t command(const std::string& line);
  // The application's shutdown at the end of a run (shutdown.cpp).
  void shutdown(const std::function<void(const std::function<bool()>&)>& run_until);

 private:
  AppShared& shared_;
  const unsigned pid_;
  const AcgSpec acg_;
  AppLog log_;
  std::unique_ptr<AppState> app_;
  std::unique_ptr<AppInvariants> invariants_;
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
  std::unique_ptr<LiveUpdate> lu_;
};

}  // namespace dpusim::vnet
