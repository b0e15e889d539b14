// The ionic NIC's Ethernet queue set (rocm-ernic's eth_txq_service, eth_rxq_service and the
// queue table Q_INIT fills; Linux ionic_if.h for the layouts): the queues as Q_INIT left them,
// the transmit and receive services and their completion rings, and the inbox of frames
// waiting for a receive buffer. It reaches guest memory and its own time through a DeviceIo
// (dma_io.h), so it runs on its own in a unit test.
//
//  TX (txq.cpp): descriptors from the ring, from the device's head up to the producer the
//  doorbell gave; each frame gathered by DMA (the head fragment at the descriptor's address,
//  the rest from its scatter-gather list of at most 8 elements) and handed to `transmit`; a
//  completion for every descriptor, gathered or not; the queue's interrupt once the pass ends.
//  RX (rxq.cpp): frames for the guest wait in the inbox (at most 256) and go into RX queue 0's
//  posted buffers in order, with a completion carrying the length; one longer than its buffer,
//  or one finding the inbox full, is a counted drop.
//  Every completion ring starts with colour 1 and flips it each time it wraps.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "ionic/devcmd.h"
#include "ionic/dma_io.h"
#include "ionic/frame_filter.h"
#include "ionic/ionic_if.h"
#include "tlm/sim_context.h"

namespace dpusim::ionic {

// One Ethernet queue as Q_INIT left it, and where the device is in it.
struct EthQueue {
  bool valid = false;
  QInit init;
  uint16_t depth = 0;
  uint16_t head = 0;      // next descriptor to consume
  uint16_t prod = 0;      // the producer index the driver last rang
  uint16_t cq_index = 0;  // next completion slot
  bool color = true;      // the colour the driver expects in it
  bool busy = false;      // a service pass is running
  uint64_t comp_addr(uint32_t bytes) const { return init.cq_ring_base + uint64_t(cq_index) * bytes; }
  void advance_cq() {
    if (++cq_index == depth) {
      cq_index = 0;
      color = !color;
    }
  }
  // How many descriptors the driver has posted that the device has not consumed.
  uint16_t pending() const { return uint16_t(uint16_t(prod - head) % depth); }
};

// A frame the device will not deliver: its event, and the frame ledger told for a wire frame.
void note_frame_drop(pcie::SimContext& ctx, const std::string& path, NicFrame& frame, const char* reason);

class EthQueues {
 public:
  struct Ports {
    pcie::SimContext& ctx;
    std::string path;                                // the NIC's component path, for its events
    DeviceIo& io;                                    // its DMA, its own time
    std::function<void(NicFrame frame)> transmit;    // a frame the guest sent
    std::function<void(uint32_t intr)> credit;       // a completion was written for this interrupt
    std::function<void(uint32_t intr)> irq;          // assert this interrupt
  };
  struct Counters {
    uint64_t tx_frames = 0, tx_errors = 0, rx_frames = 0, rx_dropped = 0;
  };
  // What the NIC's VCD shows of the queues.
  struct Trace {
    uint32_t tx_pending = 0, rx_posted = 0, inbox = 0, tx_frames = 0, rx_frames = 0;
  };

  explicit EthQueues(Ports ports) : ports_(std::move(ports)) {}

  // Q_INIT: stores the queue (when rocm-ernic would) and fills the completion's hw_index/type.
  void q_init(const QInit& init, Comp& comp);
  EthQueue& queue(unsigned type, unsigned index) { return queues_[type][index]; }
  // A doorbell of the TX queue `qid` or RX queue 0 with the producer index; the queue is valid.
  void ring_tx(uint32_t qid, uint16_t p_index);
  void ring_rx(uint32_t qid, uint16_t p_index);
  // A frame for the guest: into the inbox, then into a posted buffer.
  void to_guest(NicFrame frame);
  // Writes `comp` with the queue's colour into its next completion slot (the first `bytes`).
  void post_completion(EthQueue& q, uint32_t bytes, Comp comp);
  void interrupt(const EthQueue& q) { ports_.irq(q.init.intr_index); }

  // Wire frames still inside the queues (the inbox, and those whose buffer read is in flight).
  uint64_t wire_frames() const;
  const Counters& counters() const { return counters_; }
  Trace trace;

 private:
  void service_txq(uint32_t qid);
  void tx_next(uint32_t qid);
  using TxGatherDone = std::function<void(std::vector<uint8_t>, const char* error)>;
  void tx_gather(uint32_t qid, TxGatherDone done);
  void gather(uint64_t head, uint32_t head_len, std::vector<BusRun> rest, TxGatherDone done);
  void tx_complete(uint32_t qid);
  void service_rxq();
  void rx_next(bool delivered);
  void rx_deliver(std::shared_ptr<NicFrame> f, bool delivered, std::vector<uint8_t> desc, bool ok);
  void drop(NicFrame& frame, const char* reason) { note_frame_drop(ports_.ctx, ports_.path, frame, reason); }

  Ports ports_;
  EthQueue queues_[IONIC_QTYPE_ETH_MAX][IONIC_ETH_QCOUNT];
  std::deque<NicFrame> inbox_;  // frames for the guest, waiting for RX buffers
  uint64_t rx_in_dma_ = 0;      // wire frames taken from the inbox, not yet delivered
  Counters counters_;
};

}  // namespace dpusim::ionic
