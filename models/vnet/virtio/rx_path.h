// The offload engine's receive side (vnet_engine.h): frames from the function's wire are
// steered to an enabled receive queue (no RSS is offered: a hash of the frame's first bytes),
// wait in a bounded FIFO per queue (vnet.dp.rx_fifo_frames; overflow dropped, counted) for
// buffers, and are placed in the buffers the driver posted, behind a virtio_net_hdr_v1
// (num_buffers > 1 only with VIRTIO_NET_F_MRG_RXBUF negotiated; without it a frame larger than
// one chain is dropped, the chain left unused).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "net/net_end.h"
#include "tlm/sim_context.h"
#include "vnet/virtio/ctrl_queue.h"
#include "vnet/virtio/engine_timer.h"
#include "vnet/virtio/vq_lifecycle.h"

namespace dpusim::vnet {

// What the receive side asks of the queue service whose RX queues it fills (vnet_engine.h).
class QueueService {
 public:
  virtual void next_entry(Vq& vq) = 0;
  virtual void service_done(Vq& vq) = 0;
  virtual void device_error(Vq& vq, const std::string& reason) = 0;
  virtual void complete_used(Vq& vq, const SplitRing::UsedElem* elems, size_t n) = 0;

 protected:
  ~QueueService() = default;
};

class RxPath {
 public:
  RxPath(pcie::SimContext& ctx, const std::string& path, VqLifecycle& vqs, const CtrlQueue& cvq, EngineTimer& timer,
         QueueService& service, EngineCounters& counters);

  // A frame from the wire: the queue it now waits on (to be serviced), or null (dropped).
  Vq* admit(net::Frame frame);
  // Queue `vq` stops: the frames waiting for it are dropped.
  void flush(Vq& vq);
  // Places the frame at the head of `vq`'s FIFO in the driver's posted buffers.
  void place(Vq& vq);
  void set_mergeable(bool mrg) { mrg_ = mrg; }
  uint64_t frames_in_flight() const;
  void trace(sc_core::sc_trace_file* vcd, const std::string& prefix);

 private:
  unsigned steer(const std::vector<uint8_t>& frame) const;
  void fill(Vq& vq, std::shared_ptr<std::vector<Chain>> chains, size_t capacity);
  void deliver(Vq& vq, std::shared_ptr<std::vector<Chain>> chains);

  pcie::SimContext& ctx_;
  std::string path_;
  VqLifecycle& vqs_;
  const CtrlQueue& cvq_;
  EngineTimer& timer_;
  QueueService& service_;
  EngineCounters& counters_;
  bool mrg_ = false;
  uint64_t in_dma_ = 0;  // frames taken from a FIFO, not yet in a used ring
  // deliver's scratch: the received frame with its header, and the used elements.
  std::vector<uint8_t> bytes_;
  std::vector<SplitRing::UsedElem> elems_;
  uint32_t trace_fifo_ = 0;
};

}  // namespace dpusim::vnet
