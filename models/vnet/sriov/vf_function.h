// The SR-IOV VFs' virtio functions (the DOCA guide's 2.1.5; vnet_sriov.c's per-VF datapath), a
// project extension (docs/fidelity.md, "SR-IOV"): each VF is the shared virtio function
// (virtio_function.h) with the VF's lifecycle injected.
//
//  - a started VF's MMIO through the PF's VF BAR aperture: its common config and device config
//    from its own VirtIO register file (virtio_device.h); its firmware regions at the PF's
//    layout offsets in its 32 KiB slice: the MSI-X table (0x2000) and PBA (0x3000) of its own
//    2q+2 vectors, which exist from the VF's start (Linux writes the config vector before
//    FEATURES_OK), and the doorbells (0x4000 + 8·q), which reach the VF's engine (ignored and
//    logged while it has none);
//  - the lifecycle: status edges against the status the write replaced; the two-stage lazy
//    bring-up on the worker (PCI_CFG_WORK_VF_BRINGUP): FEATURES_OK creates and starts the VF's
//    offload engine (vnet_engine.h), creates its 2q+1 VQs and binds its CVQ to the IO context;
//    DRIVER_OK configures and starts the queues the driver enabled and enables the engine (the
//    costs of vnet.work.*). Stages carry the VF's reset generation, so an FLR or a stop makes a
//    queued stage stale;
//  - the VF's engine does its DMA and MSI-X writes with the VF's Requester ID through the PF's
//    requester and link (tlm/function_dma.h), and its frames go to and come from the wire end
//    "ep<pf>.vf<slot>" (no SF representor or OVS bridge in between);
//  - a device reset (status 0) or an FLR quiesces the engine at once on PE1 (no continuation
//    of its DMA runs, no doorbell is served) and the worker destroys it; VF Enable 1 -> 0
//    destroys every engine of the PF on the worker. Frames an engine held (RX FIFOs, RX DMA
//    in progress) are dropped and counted ("vf_engine_destroyed");
//  - the VF's CVQ requests are served on the worker (PCI_CFG_WORK_VF_CTRL_REQ): RX, MAC and
//    VLAN classes acknowledged, VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET applied (pairs below n enabled,
//    the rest disabled), anything else VIRTIO_NET_ERR.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "tlm/activity.h"
#include "tlm/tlp_payload.h"
#include "vnet/app/app_state.h"
#include "vnet/sriov/vf_slot.h"
#include "vnet/virtio/virtio_function.h"

namespace dpusim::vnet {

class VfFunctions : private VirtioFunction::Lifecycle {
 public:
  VfFunctions(AppEnv& env, AppDevices& devs, AppWork& work, std::vector<VfSlot>& vfs)
      : env_(env), devs_(devs), work_(work), vfs_(vfs), function_(*this) {}

  // A started VF's BAR0 below its firmware regions (PE1).
  void mmio_read(VfSlot& vf, uint64_t off, const tlp::Header& h, const std::function<void(pcie::Tlp*)>& send_up);
  void mmio_write(VfSlot& vf, uint64_t off, const tlp::Header& h, const uint8_t* data);
  // The firmware regions (MSI-X table, PBA, doorbells) of a VF's slice, at `off` in it.
  void firmware_read(VfSlot& vf, uint64_t off, unsigned len, uint8_t* out);
  void firmware_write(VfSlot& vf, uint64_t off, unsigned len, const uint8_t* in);

  // The worker's items.
  void bringup(unsigned g, uint32_t stage_gen, pcie::Activity& w);  // VF_BRINGUP
  void ctrl_reqs(unsigned g, uint32_t gen, pcie::Activity& w);      // VF_CTRL_REQ

  // The VF's MSI-X table and PBA, made at its first start.
  void create_msix(VfSlot& vf);
  // A step destroying the VF's engine, if it has one (vnet.work.engine_destroy_ps).
  void destroy_engine(VfSlot& vf, pcie::Activity& w, const char* why);
  void stop_datapath(VfSlot& vf);  // engine state cleared, registers reset, generation bumped
  void quiesce(VfSlot& vf);        // no continuation of the engine's runs any more

  // The network end's side (VfNetPort).
  void frame_arrived(unsigned g, net::Frame frame);
  uint64_t line_rate_mbps(unsigned pf) const;
  const VfSlot& vf(unsigned g) const { return vfs_[g]; }
  uint64_t frames_in_flight() const;

 private:
  // The lifecycle (virtio_function.h): edges against the status the write replaced.
  void status_written(unsigned g, uint8_t old_status, uint8_t new_status) override;
  void device_reset(unsigned g) override;
  void features_ok(unsigned g) override;
  void driver_ok(unsigned g) override;

  void queue_stage(VfSlot& vf, unsigned stage);
  void create_engine(VfSlot& vf);
  void drop_engine(VfSlot& vf);  // quiesced, its frames dropped and counted, destroyed
  void ctrl_req_arrived(VfSlot& vf, CtrlReq req);
  uint8_t vq_pairs_set(VfSlot& vf, const CtrlReq& req);

  AppEnv& env_;
  AppDevices& devs_;
  AppWork& work_;
  std::vector<VfSlot>& vfs_;
  VirtioFunction function_;
};

}  // namespace dpusim::vnet
