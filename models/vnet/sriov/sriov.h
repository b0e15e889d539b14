// SR-IOV on the application's PFs (the DOCA guide's 2.1.5 and 7.7; vnet_sriov.c and the
// VFE fan-out / per-VF TLP and FLR handling of vnet_pci_device.c), a project extension: the
// public application has none of it (docs/fidelity.md, "SR-IOV"). This is the SR-IOV side; each
// VF's virtio function and its datapath are vf_function.h's.
//
//  - start-up (per PF): the pool range, the PF representor with the VF range and per-VF
//    MSI-X/doorbell counts, the VF representors (templates only), logged as the guide's 7.7.7;
//  - VF Enable 0 -> 1 in the PF's SR-IOV Control (PE1; the capability is tlm/sriov_cap.h's,
//    laid out by sriov_cap.h) queues VF_FAN_OUT, which starts every TotalVFs slot's tlp_dev on
//    the worker (NumVFs is shadow-only); 1 -> 0 queues the stop of every slot;
//  - a started VF answers config requests at function 1 + slot of the PF's bus (ARI: above
//    function 7 only through a DSP with ARI Forwarding Enable) from its own image (vf_image.h);
//  - per-VF FLR (the image's Function::on_flr): flr_in_progress set, a duplicate in the window
//    logged "FLR coalesced", the image reset at once, VF_FLR_RESET queued (tlp_dev stop then
//    start), flr_in_progress cleared by the worker whatever happens; siblings and the PF
//    untouched;
//  - memory requests in a PF's VF BAR aperture (VF Enable and VF MSE set) go to the VF's
//    function; its firmware regions are served by the PF's endpoint (vf_firmware_at);
//  - a PF with VF Enable set or a live VF datapath refuses hot-unplug.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tlm/activity.h"
#include "tlm/tlp_payload.h"
#include "vnet/app/app_state.h"
#include "vnet/sriov/sriov_cap.h"
#include "vnet/sriov/vf_function.h"
#include "vnet/sriov/vf_slot.h"

namespace dpusim::vnet {

class VnetEndpoint;

class Sriov {
 public:
  // Hooks each PF's SR-IOV Control and logs the start-up lines. Only with --total-vfs.
  Sriov(AppEnv& env, AppDevices& devs, AppWork& work);
  ~Sriov();
  Sriov(const Sriov&) = delete;
  Sriov& operator=(const Sriov&) = delete;

  unsigned total_vfs() const { return total_vfs_; }
  // The started VF of PF `pf` at ARI function `devfn` on the PF's bus, or nullptr.
  VfSlot* route(unsigned pf, uint8_t devfn);
  // A host config request to a started VF (PE1).
  uint32_t config_read(const VfSlot& vf, uint16_t offset, uint8_t first_be) const;
  void config_write(VfSlot& vf, uint16_t offset, uint32_t data, uint8_t first_be, uint16_t target);

  // The worker's items (VF_BRINGUP and VF_CTRL_REQ are the VFs' functions').
  void fan_out(unsigned pf, bool enable, pcie::Activity& w);  // VF_FAN_OUT
  void flr_reset(unsigned g, pcie::Activity& w);             // VF_FLR_RESET
  VfFunctions& functions() { return functions_; }

  // The VF firmware regions of PF `pf` (MSI-X table, PBA, doorbells: 0x2000 and up of an
  // active VF's slice), which the application's switch forwards to the PF's endpoint like the
  // PF's own: (VF slot, offset in its slice), or nothing.
  std::optional<std::pair<unsigned, uint64_t>> vf_firmware_at(unsigned pf, uint64_t address) const;
  // Hands PF `pf`'s endpoint its VFs' firmware regions (VnetEndpoint::serve_vf_firmware).
  void attach_endpoint(unsigned pf, VnetEndpoint& ep);
  // A memory request PE1 got: served (true) when it lies in a PF's VF BAR aperture.
  bool serve_memory(const tlp::Header& h, const uint8_t* data, const std::function<void(pcie::Tlp*)>& send_up);

  // PF `pf`'s refusal of hot-unplug, or "" when it may be unplugged.
  std::string unplug_refusal(unsigned pf) const;
  unsigned live_datapaths(unsigned pf) const;
  const VfSlot& vf(unsigned g) const { return vfs_[g]; }
  unsigned num_vfs() const { return unsigned(vfs_.size()); }
  // The network end of VF `slot` of PF `pf` (a wire's "ep<pf>.vf<slot>").
  VfNetPort* network_port(unsigned pf, unsigned slot);
  uint64_t frames_in_flight() const { return functions_.frames_in_flight(); }
  // The VF's Routing ID (ARI: the PF's + First VF Offset + slot x VF Stride).
  uint16_t rid(const VfSlot& vf) const { return vf_rid(devs_, vf); }

 private:
  void on_control(unsigned pf, const pcie::SriovState& before, const pcie::SriovState& after);
  void handle_vf_flr(VfSlot& vf);
  void start_slot(VfSlot& vf);

  AppEnv& env_;
  AppDevices& devs_;
  AppWork& work_;
  const unsigned total_vfs_;
  std::vector<VfSlot> vfs_;
  VfFunctions functions_;
};

}  // namespace dpusim::vnet
