// The DOCA DevEmu VNet offload engine of one virtio-net function, the firmware side the
// application configures, starts, enables and stops (the DOCA guide: "the VirtIO data path
// (VQs, doorbells, MSI-X for queues) lives in the offload engine"): a PF's (VnetEndpoint,
// vnet_endpoint.h, which adds the PF's port and BAR regions) or an SR-IOV VF's (sriov.h, created
// at the VF's FEATURES_OK stage and destroyed by its reset, FLR or VF Enable cleared):
//
//  - the VQ objects and their lifecycle (UNCREATED, CREATED, CONFIGURED, STARTED, ENABLED,
//    DISABLED, STOPPED, DESTROYED), each change logged ("vq_state") and traced per queue;
//  - the doorbells (kick), which the function's BAR forwards here;
//  - the datapath on split rings in host memory, every byte by DMA (split_ring.h) through the
//    function's DMA (tlm/function_dma.h: its own Requester ID, on its PF's requester for a VF):
//    transmit queues put frames on the wire without their virtio_net_hdr_v1; received frames
//    wait in a bounded FIFO per queue (vnet.dp.rx_fifo_frames; overflow dropped, counted) for
//    buffers, get a header (num_buffers > 1 only with VIRTIO_NET_F_MRG_RXBUF negotiated);
//    each used-ring update raises the queue's MSI-X vector (the function's table) unless the
//    driver suppressed it;
//  - the control virtqueue: a request is read from the ring and handed to the application's
//    IO context (cvq_bind); its ack byte is written back when the application completes it;
//  - a malformed ring (descriptor loop, index out of range, zero length, a buffer outside host
//    memory) stops the device's queues and is reported through on_device_error, for the
//    application model to set DEVICE_NEEDS_RESET.
// The engine is no SystemC module: its delays run on its host endpoint's (EndpointBase::after),
// and a VF engine's liveness token drops what completes or falls due after it is destroyed.
#pragma once

#include <systemc>

#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "net/net_end.h"
#include "tlm/endpoint_base.h"
#include "tlm/function_dma.h"
#include "tlm/msix.h"
#include "tlm/sim_context.h"
#include "vnet/virtio/split_ring.h"

namespace dpusim::vnet {

// The datapath's per-frame events, in category "vq" (tlm/log_filter.h): not in the summary.
namespace datapath_event {
extern const pcie::EventCategory vq;
extern const pcie::EventKind doorbell, vq_frame, vq_used, vq_interrupt, rx_drop, tx_drop;
}  // namespace datapath_event

enum class VqState : uint8_t { UNCREATED, CREATED, CONFIGURED, STARTED, ENABLED, DISABLED, STOPPED, DESTROYED };
const char* vq_state_name(VqState s);

// A control request as the IO context hands it to the application's ctrl_req handler.
struct CtrlReq {
  unsigned ep = 0;
  uint16_t head = 0;  // identifies the request for ctrl_req_complete
  uint8_t cls = 0, cmd = 0;
  std::vector<uint8_t> data;
};

class VnetEngine {
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

  // The offload engine, as the application drives it.
  void engine_start();
  void engine_enable();
  void engine_disable();
  void engine_stop();
  bool engine_started() const { return started_; }
  bool engine_enabled() const { return enabled_; }
  void set_features(uint64_t negotiated) { features_ = negotiated; }
  void vq_create(unsigned q);
  // A live update's standby takes the engine over (live_update.h): queue q is created again at
  // the ring position its previous incarnation reached, the used index it published (a chain
  // taken but not completed is taken again), where vq_create starts a fresh ring at 0.
  void vq_resume(unsigned q);
  void vq_set_conf(unsigned q, const VqConf& conf);
  void vq_start(unsigned q);
  void vq_stop(unsigned q);
  void vq_destroy(unsigned q);
  void vq_group_enable(unsigned first, unsigned last);
  void vq_group_disable(unsigned first, unsigned last);
  VqState vq_state(unsigned q) const { return vqs_[q]->state; }
  unsigned num_vqs() const { return unsigned(vqs_.size()); }
  // The CVQ at queue `q`, bound to the application's IO context, which receives requests.
  void cvq_bind(unsigned q, std::function<void(CtrlReq)> deliver);
  void cvq_unbind();
  void ctrl_req_complete(uint16_t head, uint8_t status);
  // Raises an MSI-X vector (the config-change vector, say); "sent", "pending", "disabled"...
  const char* raise_msix(uint16_t vector);
  std::function<void(const std::string& reason)> on_device_error;
  // A VQ reached ENABLED (the application model checks that its driver may have it enabled).
  std::function<void(unsigned q)> on_vq_enabled;

  // A doorbell: the driver wrote queue q's notify address.
  void kick(unsigned q);
  // A frame from the function's wire.
  void frame_arrived(net::Frame frame);
  uint64_t frames_in_flight() const;

  void trace_vqs(sc_core::sc_trace_file* vcd, const std::string& prefix);
  // Per-queue counters for tests and the study.
  struct Counters {
    uint64_t tx_frames = 0, rx_frames = 0, rx_fifo_drops = 0, rx_too_big = 0, rx_no_queue = 0, tx_dropped = 0;
    uint64_t kicks = 0, kicks_ignored = 0;
  };
  const Counters& counters() const { return counters_; }

 private:
  struct Vq {
    Vq(pcie::FunctionDma& dma, unsigned q) : ring(dma, VqConf{}), index(q) {}
    SplitRing ring;
    unsigned index;
    VqState state = VqState::UNCREATED;
    uint16_t last_avail = 0, avail_idx = 0, used_idx = 0, avail_flags = 0;
    bool busy = false, again = false;
    std::deque<net::Frame> fifo;  // RX: frames waiting for buffers
    std::shared_ptr<std::vector<Chain>> rx_chains;  // RX: the chains of the frame being placed
    uint8_t trace_state = 0;
  };
  void set_state(Vq& vq, VqState s);
  bool running(const Vq& vq) const;
  bool is_cvq(unsigned q) const { return cvq_ && q == cvq_index_; }
  // The host's after() and at_local_time(), dropped once the engine is destroyed.
  template <typename Fn>
  void after(const sc_core::sc_time& delay, Fn fn) {
    if (!alive_) return host_.after(delay, std::move(fn));
    host_.after(delay, guarded(std::move(fn)));
  }
  template <typename Fn>
  void at_local_time(Fn fn) {
    if (!alive_) return host_.at_local_time(std::move(fn));
    host_.at_local_time(guarded(std::move(fn)));
  }
  template <typename Fn>
  auto guarded(Fn fn) {
    return [alive = alive_, fn = std::move(fn)]() mutable {
      if (*alive) fn();
    };
  }

  // datapath.cpp
  void service(Vq& vq);
  void service_done(Vq& vq);
  void next_entry(Vq& vq);
  void transmit(Vq& vq, const Chain& chain);
  void deliver_rx(Vq& vq, std::shared_ptr<std::vector<Chain>> chains);
  void fill_rx(Vq& vq, std::shared_ptr<std::vector<Chain>> chains, size_t capacity);
  void take_ctrl(Vq& vq, const Chain& chain);
  void complete_used(Vq& vq, const SplitRing::UsedElem* elems, size_t n);
  void device_error(Vq& vq, const std::string& reason);
  unsigned steer(const std::vector<uint8_t>& frame) const;

  pcie::SimContext& ctx_;
  std::string path_;
  unsigned index_;
  pcie::EndpointBase& host_;
  pcie::FunctionDma dma_;
  net::NetEnd& port_;
  std::shared_ptr<bool> alive_;
  pcie::Msix* msix_ = nullptr;
  std::vector<std::unique_ptr<Vq>> vqs_;
  bool started_ = false, enabled_ = false, error_ = false;
  uint64_t features_ = 0;
  bool cvq_ = false;
  unsigned cvq_index_ = 0;
  std::function<void(CtrlReq)> deliver_ctrl_;
  std::vector<Chain> pending_ctrl_;  // requests handed to the application, by head
  uint64_t rx_in_dma_ = 0;           // frames taken from a FIFO, not yet in a used ring
  Counters counters_;
  // deliver_rx's scratch: the received frame with its header, and the used elements.
  std::vector<uint8_t> rx_bytes_;
  std::vector<SplitRing::UsedElem> rx_elems_;
  uint32_t trace_rx_fifo_ = 0;
};

}  // namespace dpusim::vnet
