// SR-IOV on the application's PFs (the DOCA guide's 2.1.5 and 7.7; vnet_sriov.c and the
// VFE fan-out / per-VF TLP and FLR handling of vnet_pci_device.c), a project extension: the
// public application has none of it (docs/fidelity.md, "SR-IOV").
//
//  - start-up (per PF): the pool range, the PF representor with the VF range and per-VF
//    MSI-X/doorbell counts, the VF representors (templates only), logged as the guide's 7.7.7;
//  - VF Enable 0 -> 1 in the PF's SR-IOV Control (PE1, sriov_cap.h) queues VF_FAN_OUT, which
//    starts every TotalVFs slot's tlp_dev on the worker (NumVFs is shadow-only); 1 -> 0 queues
//    the stop of every slot;
//  - a started VF answers config requests at function 1 + slot of the PF's bus (ARI: above
//    function 7 only through a DSP with ARI Forwarding Enable) from its own image (vf_image.h);
//  - per-VF FLR (Device Control bit 15): flr_in_progress set, a duplicate in the window logged
//    "FLR coalesced", the image reset at once, VF_FLR_RESET queued (tlp_dev stop then start),
//    flr_in_progress cleared by the worker whatever happens; siblings and the PF untouched;
//  - a started VF's MMIO through the PF's VF BAR aperture (VF Enable and VF MSE set): its
//    common config and device config from its own VirtIO register file (virtio_device.h);
//    the two-stage lazy bring-up on the worker (PCI_CFG_WORK_VF_BRINGUP): FEATURES_OK creates
//    and starts the engine, the VQs and the CVQ IO context, DRIVER_OK starts and enables it
//    (the costs of vnet.work.*); a device reset (status 0) destroys the engine. Stages carry
//    the VF's reset generation, so an FLR or a stop makes a queued stage stale;
//  - a PF with VF Enable set or a live VF datapath refuses hot-unplug.
//
// The VF table is one compact entry per VF (flags, and an image created at the VF's first
// start), with no SystemC process of its own: a platform of 256 VFs costs their images only.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <functional>

#include "tlm/activity.h"
#include "tlm/function.h"
#include "tlm/tlp_payload.h"
#include "vnet/app_state.h"
#include "vnet/sriov_cap.h"
#include "vnet/virtio_device.h"

namespace dpusim::vnet {

struct VfSlot {
  unsigned pf = 0, slot = 0, g = 0;  // g: the VF's device-wide vf_index (pf x TotalVFs + slot)
  // The guide's guard atomics: tlp_dev started, an FLR between PE1 and the worker, and the
  // datapath's stages (which stay clear: the VF datapath is not modelled yet, docs/fidelity.md).
  bool active = false, flr_in_progress = false;
  bool engine_started = false, vqs_created = false, engine_enabled = false, io_ctx_started = false;
  unsigned num_active_qps = 0;
  uint32_t generation = 1;                // bumped by FLR, stop and device reset
  std::unique_ptr<pcie::Function> fn;     // the VF's config image, from its first start
  std::unique_ptr<VirtioPciDevice> dev;   // its VirtIO register file, likewise
};

class Sriov {
 public:
  // Hooks each PF's SR-IOV Control and logs the start-up lines. Only with --total-vfs.
  explicit Sriov(AppState& app);

  unsigned total_vfs() const { return total_vfs_; }
  // The started VF of PF `pf` at ARI function `devfn` on the PF's bus, or nullptr.
  VfSlot* route(unsigned pf, uint8_t devfn);
  // A host config request to a started VF (PE1).
  uint32_t config_read(const VfSlot& vf, uint16_t offset, uint8_t first_be) const;
  void config_write(VfSlot& vf, uint16_t offset, uint32_t data, uint8_t first_be, uint16_t target);

  // The worker's items.
  void fan_out(unsigned pf, bool enable, pcie::Activity& w);  // VF_FAN_OUT
  void flr_reset(unsigned g, pcie::Activity& w);             // VF_FLR_RESET
  void bringup(unsigned g, uint32_t stage_gen, pcie::Activity& w);  // VF_BRINGUP

  // A memory request PE1 got: served (true) when it lies in a PF's VF BAR aperture.
  bool serve_memory(const tlp::Header& h, const uint8_t* data, const std::function<void(pcie::Tlp*)>& send_up);

  // PF `pf`'s refusal of hot-unplug, or "" when it may be unplugged.
  std::string unplug_refusal(unsigned pf) const;
  unsigned live_datapaths(unsigned pf) const;
  const VfSlot& vf(unsigned g) const { return vfs_[g]; }
  unsigned num_vfs() const { return unsigned(vfs_.size()); }

 private:
  void on_control(unsigned pf, const SriovPfState& before, const SriovPfState& after);
  void handle_vf_flr(VfSlot& vf);
  void start_slot(VfSlot& vf);
  void stop_datapath(VfSlot& vf);  // engine state cleared, registers reset, generation bumped
  void queue_stage(VfSlot& vf, unsigned stage);
  // A step destroying the VF's engine, if it has one (vnet.work.engine_destroy_ps).
  void destroy_engine(VfSlot& vf, pcie::Activity& w, const char* why);
  void mmio_read(VfSlot& vf, uint64_t off, const tlp::Header& h, const std::function<void(pcie::Tlp*)>& send_up);
  void mmio_write(VfSlot& vf, uint64_t off, const tlp::Header& h, const uint8_t* data);
  uint16_t rid(const VfSlot& vf) const;

  AppState& app_;
  const unsigned total_vfs_;
  std::vector<VfSlot> vfs_;
};

}  // namespace dpusim::vnet
