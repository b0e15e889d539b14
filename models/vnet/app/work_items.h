// The config worker's items (DOCA vnet_pci_dev's pci_cfg_worker and its work handlers), each
// operation on the offload engine taking its cost from the timing profile (vnet.work.*):
// ENGINE_START, INITIALIZE_VQS (all data VQs for the maximum, then the CVQ when MQ was
// negotiated), INITIALIZE_IO_CTX, VQ_CONFIG, START_AND_ENABLE, CREATE_STATS_LIST,
// DEVICE_RESET, SPEED_CHANGE here; CONTROLLER_CLEANUP (cleanup.h), HOTPLUG_EVENT and
// DELAYED_DESTROY (slots.h) dispatched to their owners. After each item the liveness of the
// reset hold is checked (the application's double-reset hazard).
#pragma once

#include <cstdint>

#include "tlm/activity.h"
#include "vnet/app/app_state.h"

namespace dpusim::vnet {

class Cleanup;
class CvqHandler;
class MqStart;
class Slots;

class WorkItems {
 public:
  WorkItems(AppEnv& env, AppDevices& devs, AppWork& work, Cleanup& cleanup, CvqHandler& cvq, MqStart& mq, Slots& slots)
      : env_(env), devs_(devs), work_(work), cleanup_(cleanup), cvq_(cvq), mq_(mq), slots_(slots) {}

  // Runs `item` on the worker (adds its steps to `w`).
  void execute(const WorkItem& item, pcie::Activity& w);
  // After the worker finished or skipped an item.
  void check_reset_hold_liveness(const WorkItem& item, bool skipped);

 private:
  void engine_start(unsigned i, pcie::Activity& w);
  void initialize_vqs(unsigned i, pcie::Activity& w);
  void initialize_io_ctx(unsigned i, pcie::Activity& w);
  void vq_config(unsigned i, unsigned q, pcie::Activity& w);
  void start_and_enable(unsigned i, pcie::Activity& w);
  void create_stats_list(unsigned i, pcie::Activity& w);
  void device_reset(unsigned i, pcie::Activity& w);
  void speed_change(unsigned i, uint32_t mbps, pcie::Activity& w);
  bool ensure_config_msix(unsigned i, const char* thread);

  AppEnv& env_;
  AppDevices& devs_;
  AppWork& work_;
  Cleanup& cleanup_;
  CvqHandler& cvq_;
  MqStart& mq_;
  Slots& slots_;
};

}  // namespace dpusim::vnet
