// CONTROLLER_CLEANUP (DOCA vnet_pci_dev's controller cleanup, also the full teardown of a
// destroy and of shutdown when `destroy_engine`): wait for the controller's MQ-start threads,
// stop stats collection and wait for its drain (Step 0), destroy the counters (0a), the stats
// list (0b) and, on full teardown, the config MSI-X (0c), then Steps 1-6 (disable VQs, disable the engine, stop VQs,
// the IO context, destroy VQs, stop the engine, destroy it), each operation's cost from the
// timing profile; afterwards the reset hold's release is queued and a deferred FEATURES_OK
// initialisation runs.
#pragma once

#include "tlm/activity.h"
#include "vnet/app/app_state.h"

namespace dpusim::vnet {

class StatusMachine;

class Cleanup {
 public:
  Cleanup(AppState& app, StatusMachine& status) : app_(app), status_(status) {}

  // Adds the cleanup's steps to `thread` (the worker, or the main thread at shutdown), whose
  // log lines carry `thread_name`.
  void controller_cleanup(unsigned i, bool destroy_engine, pcie::Activity& thread, const char* thread_name);

 private:
  void finished(unsigned i, const char* thread);
  void deferred_init(unsigned i, const char* thread);

  AppState& app_;
  StatusMachine& status_;
};

}  // namespace dpusim::vnet
