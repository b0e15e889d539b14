// The DOCA DevEmu VNet offload engine of one virtio-net function, the firmware side the
// application configures, starts, enables and stops (the DOCA guide: "the VirtIO data path
// (VQs, doorbells, MSI-X for queues) lives in the offload engine"): a PF's (VnetEndpoint,
// vnet_endpoint.h, which adds the PF's port and BAR regions) or an SR-IOV VF's (sriov.h, created
// at the VF's FEATURES_OK stage and destroyed by its reset, FLR or VF Enable cleared).
//
// Its parts, one job each:
//  - the VQ objects and their lifecycle (UNCREATED, CREATED, CONFIGURED, STARTED, ENABLED,
//    DISABLED, STOPPED, DESTROYED), each change logged ("vq_state") and traced per queue
//    (vq_lifecycle.h);
//  - the queue service here: doorbells (kick), which the function's BAR forwards here, start a
//    pass over a queue's avail ring in host memory, every byte by DMA (split_ring.h) through the
//    function's DMA (tlm/function_dma.h: its own Requester ID, on its PF's requester for a VF);
//    transmit queues put frames on the wire without their virtio_net_hdr_v1, after the
//    checksum and TCP segmentation offloads the header asks for (net/offload.h); each used-ring
//    update raises the queue's MSI-X vector (the function's table) unless the driver
//    suppressed it;
//  - the receive side: frames from the wire steered to a queue's bounded FIFO and placed in its
//    buffers (rx_path.h);
//  - the control virtqueue: a request is read from the ring and handed to the application's
//    IO context (ctrl_queue.h); its ack byte is written back when the application completes it;
//  - a malformed ring (descriptor loop, index out of range, zero length, a buffer outside host
//    memory) stops the device's queues and is reported through on_device_error, for the
//    application model to set DEVICE_NEEDS_RESET.
// The engine is no SystemC module: its delays run on its host endpoint's (engine_timer.h).
#pragma once

#include <systemc>

#include <functional>
#include <memory>
#include <string>

#include "net/net_end.h"
#include "tlm/endpoint_base.h"
#include "tlm/function_dma.h"
#include "tlm/msix.h"
#include "tlm/sim_context.h"
#include "vnet/virtio/ctrl_queue.h"
#include "vnet/virtio/engine_timer.h"
#include "vnet/virtio/rx_path.h"
#include "vnet/virtio/vq_lifecycle.h"

namespace dpusim::vnet {

// The datapath's per-frame events, in category "vq" (tlm/log_filter.h): not in the summary.
namespace datapath_event {
extern const pcie::EventCategory vq;
extern const pcie::EventKind doorbell, vq_frame, vq_used, vq_interrupt, rx_drop, tx_drop, tx_gso;
}  // namespace datapath_event

class VnetEngine : private QueueService {
 public:
  // `path`: the name its events carry; `index`: the endpoint (PF) index its events and control
  // requests carry; `host`: the endpoint whose requester and time the engine uses; `dma`: the
  // function's DMA; `port`: the network end its frames leave by; `alive`: the liveness token
  // shared with `dma` (null for an engine that lives as long as its host).
  VnetEngine(pcie::SimContext& ctx, std::string path, unsigned index, unsigned num_vqs, pcie::EndpointBase& host,
             pcie::FunctionDma dma, net::NetEnd& port, std::shared_ptr<bool> alive = nullptr);
  VnetEngine(const VnetEngine&) = delete;
  VnetEngine& operator=(const VnetEngine&) = delete;

  const char* name() const { return path_.c_str(); }
  unsigned index() const { return index_; }
  // The function's MSI-X table (the host's or the VF's), set before the engine raises any.
  void set_msix(pcie::Msix* m) { msix_ = m; }
  pcie::FunctionDma& function_dma() { return dma_; }
  void set_features(uint64_t negotiated);

  // The offload engine and its VQs, as the application drives them.
  VqLifecycle& vqs() { return vqs_; }
  // The CVQ, bound to the application's IO context, which receives requests.
  CtrlQueue& cvq() { return cvq_; }
  void ctrl_req_complete(uint16_t head, uint8_t status);
  // Raises an MSI-X vector (the config-change vector, say); "sent", "pending", "disabled"...
  const char* raise_msix(uint16_t vector);
  std::function<void(const std::string& reason)> on_device_error;

  // A doorbell: the driver wrote queue q's notify address.
  void kick(unsigned q);
  // A frame from the function's wire.
  void frame_arrived(net::Frame frame);
  // Frames received and not yet in a used ring.
  uint64_t frames_in_flight() const { return rx_.frames_in_flight(); }

  void trace_vqs(sc_core::sc_trace_file* vcd, const std::string& prefix);
  using Counters = EngineCounters;
  const Counters& counters() const { return counters_; }

 private:
  // The queue service (datapath.cpp).
  void service(Vq& vq);
  void service_done(Vq& vq) override;
  void next_entry(Vq& vq) override;
  void transmit(Vq& vq, const Chain& chain);
  void send_frame(Vq& vq, std::vector<uint8_t> bytes);
  void take_ctrl(Vq& vq, const Chain& chain);
  void complete_used(Vq& vq, const SplitRing::UsedElem* elems, size_t n) override;
  void device_error(Vq& vq, const std::string& reason) override;

  pcie::SimContext& ctx_;
  std::string path_;
  unsigned index_;
  pcie::FunctionDma dma_;
  net::NetEnd& port_;
  pcie::Msix* msix_ = nullptr;
  uint64_t features_ = 0;  // negotiated: which transmit offloads the driver may ask for
  EngineTimer timer_;
  EngineCounters counters_;
  CtrlQueue cvq_;
  VqLifecycle vqs_;
  RxPath rx_;
};

}  // namespace dpusim::vnet
