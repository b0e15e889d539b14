// The MQ start (DOCA vnet_pci_dev's start_additional_queue_pairs on background threads): a
// queue-pair increase is started on a joinable thread, at most MQ_START_MAX_CONCURRENT
// running at once (a semaphore); per queue pair the thread checks the device's cancel flag,
// then configures and starts RX and TX from the shadow, and finally enables the group. In
// static mode with several endpoints an increase is deferred until every controller is live.
// Each thread is an Activity ("vnet.mq<n>"), not a SystemC thread.
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "tlm/activity.h"
#include "vnet/app/app_state.h"

namespace dpusim::vnet {

class MqStart {
 public:
  MqStart(AppEnv& env, AppDevices& devs, AppWork& work) : env_(env), devs_(devs), work_(work) {}

  // Starts queue pairs old_qps..new_qps-1 of controller `i` on a new thread.
  void spawn(unsigned i, unsigned old_qps, unsigned new_qps, const char* thread);
  // A controller is ready when its IO context is started, it is present, enabled, not being
  // cleaned up or initialised, and the driver set DRIVER_OK.
  bool controller_ready(unsigned i) const;
  // Once every controller is ready, the deferred starts are spawned.
  void release_deferred(const char* thread);
  // Every thread spawned so far has exited (shutdown joins them).
  bool all_joined() const;
  unsigned spawned_threads() const { return unsigned(threads_.size()); }

  uint32_t trace_running = 0;

 private:
  struct Thread {
    Thread(pcie::TimedQueue& q, unsigned ctrl, unsigned old_qps, unsigned new_qps, std::string name)
        : activity(q), ctrl(ctrl), old_qps(old_qps), new_qps(new_qps), name(std::move(name)) {}
    pcie::Activity activity;
    unsigned ctrl, old_qps, new_qps;
    std::string name;
    std::vector<VqShadow> shadow;  // the queues' registers when the thread got its slot
    bool done = false;
  };
  void run(Thread& t);
  void exit(Thread& t);

  AppEnv& env_;
  AppDevices& devs_;
  AppWork& work_;
  std::vector<std::unique_ptr<Thread>> threads_;
  unsigned running_ = 0, spawned_ = 0;
  std::deque<Thread*> waiting_;  // for a semaphore slot
};

}  // namespace dpusim::vnet
