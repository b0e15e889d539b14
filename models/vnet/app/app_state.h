// What the application's threads share, in four parts, each given only to the components that
// use it: the context (its options, log, timers, main thread and clock: AppEnv), the switch's
// port images (the upstream and downstream ports and the endpoints' links: AppPorts), the
// endpoints (one VirtIO device model and one controller each, the VFs: AppDevices) and the
// PCI-config workqueue (AppWork). The DOCA application's C code shares the same structures as
// globals between its main thread (PE1), the config worker and the MQ-start threads; here each
// thread's logic is a component of its own (pe1.h, status_machine.h, work_items.h, cleanup.h,
// mq_start.h, slots.h, dsp_msi.h, command.h) that takes the parts it reads and writes, and
// AppState is their sum, owned by the process (app_process.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "switch/bridge.h"
#include "tlm/activity.h"
#include "tlm/link.h"
#include "tlm/sim_context.h"
#include "tlm/timed_queue.h"
#include "vnet/app/app_log.h"
#include "vnet/app/controller.h"
#include "vnet/virtio/virtio_device.h"
#include "vnet/app/vnet_options.h"
#include "vnet/app/workqueue.h"

namespace dpusim::vnet {

class Sriov;

// The application's context: what every component uses.
struct AppEnv {
  // `later` is the timers' queue (shared by every process of the application); `pid` numbers
  // the process (app_log.h: its threads' paths).
  AppEnv(pcie::SimContext& ctx, const VnetOptions& options, std::string path, pcie::TimedQueue& later, unsigned pid);
  AppEnv(const AppEnv&) = delete;
  AppEnv& operator=(const AppEnv&) = delete;

  pcie::SimContext& ctx;
  const VnetOptions opt;
  const std::string path;  // the application's component path ("switch")
  AppLog log;
  pcie::TimedQueue& later;  // timers of every thread (and the threads' own steps)
  // The main thread (PE1's server, pe1.h; the reset barrier waits on it, status_machine.h).
  pcie::Activity main_thread;

  bool shutting_down = false;
  // The main loop runs until the shutdown leaves it (after its wait for pending unplugs); its
  // periodic checks (the unplug timeout, MSI retries) stop then.
  bool loop_running = true;

  // The application's clock. Its timeouts compare whole seconds of CLOCK_MONOTONIC
  // (`now.tv_sec - start.tv_sec >= N`), checked on main-loop iterations: the model's seconds
  // are whole seconds of simulated time since the application's start (t = 0), and the main
  // loop iterates every vnet.main_loop_ps from vnet.main_loop_origin_ps (docs/fidelity.md).
  static uint64_t app_seconds(uint64_t t_ps) { return t_ps / kPsPerSec; }
  static constexpr uint64_t kPsPerSec = 1000000000000ull;
  // The first main-loop iteration at or after `t_ps`.
  uint64_t loop_iteration_at(uint64_t t_ps);
  // The first iteration at which `seconds` whole seconds have passed since `since_ps`.
  uint64_t loop_iteration_after_seconds(uint64_t since_ps, uint64_t seconds) {
    return loop_iteration_at((app_seconds(since_ps) + seconds) * kPsPerSec);
  }
  sc_core::sc_time cost(const pcie::TimingParam& p) const { return ctx.ps(p); }
  pcie::Event event(std::string_view name) { return ctx.event(path, name); }
};

// The switch part: the images of the upstream and downstream ports, the endpoints' links.
struct AppPorts {
  std::unique_ptr<sw::Bridge> usp;
  std::vector<std::unique_ptr<sw::Bridge>> dsps;
  std::vector<pcie::Link*> links;  // endpoint i's link (its DLActive follows the slot)
};

// The endpoints: one VirtIO device model and one controller each, and the PFs' VFs.
struct AppDevices {
  std::vector<std::unique_ptr<VirtioPciDevice>> devices;
  std::vector<Controller> controllers;
  Sriov* sriov = nullptr;  // with --total-vfs (sriov.h)

  unsigned num_ep() const { return unsigned(controllers.size()); }
  std::string bdf_of(unsigned ep) const;  // "02:00.0": the BDF the host addresses ep by
  // The device status as the VCD shows it (kept current by whoever changes it).
  std::vector<uint8_t> trace_status;
  void note_status(unsigned ep) { trace_status[ep] = devices[ep]->status(); }
};

// The PCI-config workqueue of the endpoints' items.
struct AppWork {
  AppWork(AppEnv& env, AppDevices& devs, unsigned pid);

  ConfigWorkqueue wq;
  // The outcome of the hotplug or speed item running on the worker (nullptr: OK), for the
  // command that queued it (command.h).
  const char* item_result = nullptr;
  // Queues a controller-scoped item carrying the device's current reset generation.
  bool submit(WorkType type, unsigned ep, uint32_t arg = 0);

 private:
  AppDevices& devs_;
};

// The parts in the order they are built and torn down in (the workqueue outlives the devices
// and ports; its items hold no part).
struct AppState : AppEnv, AppWork, AppPorts, AppDevices {
  AppState(pcie::SimContext& ctx, const VnetOptions& options, std::string path, pcie::TimedQueue& later,
           unsigned pid = 1)
      : AppEnv(ctx, options, std::move(path), later, pid), AppWork(*this, *this, pid) {}
};

}  // namespace dpusim::vnet
