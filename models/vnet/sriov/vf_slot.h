// The VF table's entry (sriov.h) and a VF's network end. One compact entry per VF: flags, its
// network end, and an image and MSI-X table created at the VF's first start, an engine while
// the guest has it up, with no SystemC process or module of its own: a platform of 256 VFs
// costs their images, and the engines of the VFs a guest brought up.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>

#include "net/net_end.h"
#include "tlm/function.h"
#include "tlm/msix.h"
#include "vnet/app/app_state.h"
#include "vnet/virtio/virtio_device.h"
#include "vnet/virtio/vnet_engine.h"

namespace dpusim::vnet {

class VfFunctions;

// A VF's network end, which a wire names "ep<pf>.vf<slot>": frames go to the VF's engine while
// it has one (dropped and counted, "rx_queue_not_ready", while not); the PF's line rate.
class VfNetPort : public net::NetEnd {
 public:
  VfNetPort(VfFunctions& fns, unsigned g) : fns_(fns), g_(g) {}
  void frame_arrived(net::Frame frame) override;
  uint64_t line_rate_mbps() const override;
  std::string end_name() const override;

 private:
  VfFunctions& fns_;
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

// The VF's Routing ID (the PF's SR-IOV capability: the PF's + First VF Offset + slot x VF Stride).
uint16_t vf_rid(const AppDevices& devs, const VfSlot& vf);

}  // namespace dpusim::vnet
