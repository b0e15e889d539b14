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
//    common config and device config from its own VirtIO register file (virtio_device.h),
//    and its firmware regions at the PF's layout offsets in its 32 KiB slice: the MSI-X table
//    (0x2000) and PBA (0x3000) of its own 2q+2 vectors, which exist from the VF's start
//    (Linux writes the config vector before FEATURES_OK), and the doorbells (0x4000 + 8·q),
//    which reach the VF's engine (ignored and logged while it has none);
//  - the two-stage lazy bring-up on the worker (PCI_CFG_WORK_VF_BRINGUP): FEATURES_OK creates
//    and starts the VF's offload engine (vnet_engine.h), creates its 2q+1 VQs and binds its
//    CVQ to the IO context; DRIVER_OK configures and starts the queues the driver enabled and
//    enables the engine (the costs of vnet.work.*). Stages carry the VF's reset generation, so
//    an FLR or a stop makes a queued stage stale;
//  - the VF's engine does its DMA and MSI-X writes with the VF's Requester ID through the PF's
//    requester and link (tlm/function_dma.h), and its frames go to and come from the wire end
//    "ep<pf>.vf<slot>" (no SF representor or OVS bridge in between);
//  - a device reset (status 0) or an FLR quiesces the engine at once on PE1 (no continuation
//    of its DMA runs, no doorbell is served) and the worker destroys it; VF Enable 1 -> 0
//    destroys every engine of the PF on the worker. Frames an engine held (RX FIFOs, RX DMA
//    in progress) are dropped and counted ("vf_engine_destroyed");
//  - the VF's CVQ requests are served on the worker (PCI_CFG_WORK_VF_CTRL_REQ): RX, MAC and
//    VLAN classes acknowledged, VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET applied (pairs below n enabled,
//    the rest disabled), anything else VIRTIO_NET_ERR;
//  - a PF with VF Enable set or a live VF datapath refuses hot-unplug.
//
// The VF table is one compact entry per VF (flags, its network end, and an image and MSI-X
// table created at the VF's first start, an engine while the guest has it up), with no SystemC
// process or module of its own: a platform of 256 VFs costs their images, and the engines of
// the VFs a guest brought up.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <functional>

#include <deque>
#include <optional>
#include <utility>

#include "net/net_end.h"
#include "tlm/activity.h"
#include "tlm/function.h"
#include "tlm/msix.h"
#include "tlm/tlp_payload.h"
#include "vnet/app_state.h"
#include "vnet/sriov_cap.h"
#include "vnet/virtio_device.h"
#include "vnet/vnet_engine.h"

namespace dpusim::vnet {

class Sriov;
class VnetEndpoint;

// A VF's network end, which a wire names "ep<pf>.vf<slot>": frames go to the VF's engine while
// it has one (dropped and counted, "rx_queue_not_ready", while not); the PF's line rate.
class VfNetPort : public net::NetEnd {
 public:
  VfNetPort(Sriov& s, unsigned g) : sriov_(s), g_(g) {}
  void frame_arrived(net::Frame frame) override;
  uint64_t line_rate_mbps() const override;
  std::string end_name() const override;

 private:
  Sriov& sriov_;
  unsigned g_;
};

struct VfSlot {
  unsigned pf = 0, slot = 0, g = 0;  // g: the VF's device-wide vf_index (pf x TotalVFs + slot)
  // The guide's guard atomics: tlp_dev started, an FLR between PE1 and the worker, and the
  // datapath's stages (each set where the engine, its VQs and its IO context are made).
  bool active = false, flr_in_progress = false;
  bool engine_started = false, vqs_created = false, engine_enabled = false, io_ctx_started = false;
  unsigned num_active_qps = 0;
  uint32_t generation = 1;                // bumped by FLR, stop and device reset
  std::unique_ptr<pcie::Function> fn;     // the VF's config image, from its first start
  std::unique_ptr<VirtioPciDevice> dev;   // its VirtIO register file, likewise
  std::unique_ptr<pcie::Msix> msix;       // its MSI-X table and PBA, likewise
  std::unique_ptr<VfNetPort> port;        // its network end, from the platform's start
  std::unique_ptr<VnetEngine> engine;     // its offload engine, FEATURES_OK's stage to destruction
  std::shared_ptr<bool> alive;            // the engine's liveness token (tlm/function_dma.h)
  std::deque<CtrlReq> ctrl;               // CVQ requests waiting for the worker
  uint64_t doorbells_without_engine = 0, rx_dropped_without_engine = 0;
  // What its destroyed engines did: frames transmitted and received, and dropped by the reset
  // (held at the destruction, or arriving between the quiescing and the destruction).
  uint64_t retired_tx = 0, retired_rx = 0, frames_dropped_at_destroy = 0, rx_no_queue_at_quiesce = 0;
};

class Sriov {
 public:
  // Hooks each PF's SR-IOV Control and logs the start-up lines. Only with --total-vfs.
  explicit Sriov(AppState& app);
  ~Sriov();
  Sriov(const Sriov&) = delete;
  Sriov& operator=(const Sriov&) = delete;

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
  void ctrl_reqs(unsigned g, uint32_t gen, pcie::Activity& w);      // VF_CTRL_REQ

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
  uint64_t frames_in_flight() const;
  // The VF's Routing ID (ARI: the PF's + First VF Offset + slot x VF Stride).
  uint16_t rid(const VfSlot& vf) const;
  uint64_t line_rate_mbps(unsigned pf) const;
  void frame_arrived(unsigned g, net::Frame frame);

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
  // sriov_datapath.cpp: the VF's firmware regions and engine.
  void firmware_read(VfSlot& vf, uint64_t off, unsigned len, uint8_t* out);
  void firmware_write(VfSlot& vf, uint64_t off, unsigned len, const uint8_t* in);
  void create_msix(VfSlot& vf);
  void create_engine(VfSlot& vf);
  void quiesce(VfSlot& vf);          // no continuation of the engine's runs any more
  void drop_engine(VfSlot& vf);      // quiesced, its frames dropped and counted, destroyed
  void ctrl_req_arrived(VfSlot& vf, CtrlReq req);
  uint8_t vq_pairs_set(VfSlot& vf, const CtrlReq& req);

  AppState& app_;
  const unsigned total_vfs_;
  std::vector<VfSlot> vfs_;
};

}  // namespace dpusim::vnet
