// CONTROLLER_CLEANUP (DOCA vnet_pci_dev's controller cleanup, also the full teardown of a
// destroy and of shutdown when `destroy_engine`): wait for the controller's MQ-start threads,
// stop stats collection and wait for its drain, destroy the counters, the stats list and, on
// full teardown, the config MSI-X, then disable the VQs, disable the engine, stop the VQs and
// the IO context, destroy the VQs, stop the engine and destroy it, each operation with its
// cost from the timing profile and its log line ("Cleanup Step 0a: ..." to "Cleanup Step 6:
// ...", the application's wording); afterwards the reset hold's release is queued and a
// deferred FEATURES_OK initialisation runs.
#pragma once

#include "tlm/activity.h"
#include "vnet/app/app_state.h"

namespace dpusim::vnet {

class StatusMachine;

class Cleanup {
 public:
  Cleanup(AppEnv& env, AppDevices& devs, AppWork& work, StatusMachine& status)
      : env_(env), devs_(devs), work_(work), status_(status) {}

  // Adds the cleanup's steps to `thread` (the worker, or the main thread at shutdown), whose
  // log lines carry `thread_name`.
  void controller_cleanup(unsigned i, bool destroy_engine, pcie::Activity& thread, const char* thread_name);

 private:
  void finished(unsigned i, const char* thread);
  void deferred_init(unsigned i, const char* thread);

  AppEnv& env_;
  AppDevices& devs_;
  AppWork& work_;
  StatusMachine& status_;
};

}  // namespace dpusim::vnet
