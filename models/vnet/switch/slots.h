// The downstream ports' hot-plug slots as the application runs them (DOCA vnet_pci_dev:
// trigger_hotplug_event, update_dsp_slot_status, create_device, vnet_pci_dev_destroy_device,
// the main loop's unplug timeout; the DSP's Slot Control write handler and
// trigger_command_completed): Slot Control power edges and Command Completed, the worker's
// HOTPLUG_EVENT (plug: create the device, PDS/PDC/ABP and the MSI; unplug: wait for the host's
// plug-ack, ABP and the MSI, then wait for Power OFF) and DELAYED_DESTROY items, and the forced
// removal when the host never powers the slot off (UNPLUG_TIMEOUT_SEC).
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "tlm/activity.h"
#include "vnet/app/app_state.h"

namespace dpusim::vnet {

class Cleanup;
class DspMsi;

// UNPLUG_TIMEOUT_SEC: the seconds after an unplug's start at which the main loop forces the
// removal (and the most the shutdown waits for pending unplugs).
inline constexpr uint64_t kUnplugTimeoutSec = 30;

class Slots {
 public:
  Slots(AppEnv& env, AppPorts& ports, AppDevices& devs, AppWork& work, DspMsi& msi, Cleanup& cleanup);

  // What the DSP image's Slot Control writes do (bridge_image.h SlotEvents).
  void slot_power(unsigned i, bool on);
  void slot_command_completed(unsigned i);
  // Worker items.
  void hotplug_event(unsigned dsp, bool plug, pcie::Activity& w);
  void delayed_destroy(unsigned dsp, pcie::Activity& w);
  // Endpoint i exists on the DPU (created) or not (destroyed: its internal BARs zeroed).
  void set_device_present(unsigned i, bool present);
  // The DSP registers' VCD copies follow the registers.
  void refresh_traces();
  bool any_pending_unplug() const;

  std::vector<uint16_t> trace_slot_ctl, trace_slot_sta;
  std::deque<bool> trace_dllla, trace_pending_unplug;  // not vector<bool>: sc_trace keeps references

 private:
  bool submit_delayed_destroy(unsigned i, const char* thread);
  bool hotplug_allowed(unsigned i, bool plug);
  void plug_device(unsigned i, pcie::Activity& w);
  void unplug_device(unsigned i, pcie::Activity& w);
  void update_dsp_slot_status(unsigned i, bool plug);
  void notify_slot_event(unsigned i, bool plug);
  void arm_unplug_timeout(unsigned i);
  void check_unplug_timeout_at(unsigned i, uint64_t at_ps);
  void unplug_timeout(unsigned i);

  struct UnplugTimer {
    uint64_t start_ps = 0;
    uint64_t current = 0;  // which armed timer is current
  };
  AppEnv& env_;
  AppPorts& ports_;
  AppDevices& devs_;
  AppWork& work_;
  DspMsi& msi_;
  Cleanup& cleanup_;
  std::vector<UnplugTimer> timers_;
};

}  // namespace dpusim::vnet
