// The ionic NIC's Ethernet datapath as Linux's ionic driver runs it (drivers/net/ethernet/
// pensando/ionic/ionic_txrx.c: ionic_start_xmit, ionic_tx_service, ionic_rx_service,
// ionic_rx_fill, ionic_txrx_napi), in C++, for traffic at a user's scale: it takes over the
// TX/RX queue pairs of a NIC the Python driver opened (pybind/dpusim/drivers/ionic.py hands it
// each queue's rings, indices, colours and buffers) and runs them without Python:
//
//  - transmit: each frame into a buffer of a pool the driver allocates per queue (one 2 KiB
//    buffer per descriptor, the descriptor's own), one 16-byte descriptor (no scatter-gather, no
//    offload), one doorbell per batch (qid << 24 | p_index at the doorbell page + 8 x qtype);
//    completions are reclaimed, by their colour, as the driver goes and on each interrupt, or
//    after guest.tx_poll_ps when the ring is full;
//  - receive: on the queue pair's MSI-X message (its interrupt masks itself on delivery:
//    mask_assert), every completion whose colour is the expected one is taken, the frame read
//    from its buffer (a bad status or length counted and dropped, as ionic_rx_service does), the
//    buffer posted again in place and one RX doorbell rung; then the work is returned as credits
//    with UNMASK | RESET_COALESCE (ionic_intr_credits with IONIC_INTR_CRED_REARM);
//  - frames from Python in batches (send_many, recv_many) or from a traffic source, as every C++
//    guest driver's (guest_datapath.h); a traffic run keeps at most a receive ring's worth of
//    frames in flight, shared by its flows, since the device receives every frame on RX queue
//    0 (rocm-ernic) and drops what finds its inbox full.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "guest/guest_datapath.h"
#include "host/root_complex.h"
#include "tlm/sim_context.h"
#include "tlm/timed_queue.h"

namespace dpusim::guest {

// One descriptor ring and its completion ring as the Python driver leaves them.
struct IonicGuestQueue {
  uint32_t qid = 0;      // the device's queue index
  uint16_t depth = 0;    // a power of two, 2..32768
  uint64_t ring = 0, cq_ring = 0;
  uint16_t head = 0;     // next descriptor the driver fills
  uint16_t tail = 0;     // next descriptor the device completes
  uint16_t cq_tail = 0;  // next completion slot
  bool done_color = true;
  // Per descriptor: the buffer the Python driver put there (0: none). RX: every posted
  // descriptor's; TX: the in-flight frames' buffers, freed on their completion.
  std::vector<uint64_t> bufs;
};

struct IonicGuestQueuePair {
  IonicGuestQueue tx, rx;
  uint32_t msi_data = 0;  // the pair's interrupt's MSI-X message data
  unsigned intr = 0;      // its interrupt (control block) index
};

struct IonicGuestSpec {
  std::string name;           // component path, e.g. "guest.02:00.0": names its random stream
  uint16_t requester_id = 0;  // the NIC's routing ID: its MSIs come from it
  uint64_t doorbell_page = 0; // the LIF's doorbell page in BAR2
  uint64_t intr_ctrl = 0;     // interrupt 0's control block in BAR0
  uint32_t rx_buf_len = 0;    // length of each receive buffer; the longest frame sent
  std::vector<IonicGuestQueuePair> qps;
};

class IonicGuest : public GuestDatapath {
 public:
  // Throws std::invalid_argument for a spec the rings cannot be (a depth not a power of two, an
  // index outside its ring, a buffer list of the wrong length, receive buffers that cannot hold
  // an Ethernet header or are longer than a transmit slot).
  IonicGuest(pcie::SimContext& ctx, host::RootComplex& host, pcie::TimedQueue& timer, uint64_t id,
             IonicGuestSpec spec);

  bool on_msi(const host::MsiEvent& ev) override;
  uint64_t rx_errors() const { return rx_errors_; }

 private:
  struct Ring {
    IonicGuestQueue q;
    uint8_t qtype = 0;
    uint16_t space() const { return uint16_t((q.tail - q.head - 1) & (q.depth - 1)); }
  };
  struct QueuePair {
    Ring tx, rx;
    uint64_t pool = 0;  // transmit buffers: kTxSlotBytes for each descriptor
    uint32_t msi_data = 0;
    unsigned intr = 0;
  };

  void pump(unsigned qp) override;
  // rocm-ernic receives every frame on RX queue 0: the flows share its ring.
  size_t tx_window(unsigned qp) const override {
    return std::max<size_t>(1, std::min<size_t>(qps_[qp].tx.q.depth, qps_[0].rx.q.depth) / qps_.size());
  }
  // The completion at the ring's cq_tail if its colour is the expected one (then cq_tail moves
  // on); its bytes in comp_.
  bool next_completion(Ring& r);
  // TX completions taken (each frees the descriptors up to the one it names); how many.
  unsigned reclaim(QueuePair& p);
  unsigned poll_rx(unsigned qp);
  void post_rx(QueuePair& p);
  void doorbell(const Ring& r);
  void mmio_write(uint64_t addr, uint64_t value, size_t bytes);

  IonicGuestSpec spec_;
  std::vector<QueuePair> qps_;
  bool poll_pending_ = false;
  uint64_t rx_errors_ = 0;
  uint8_t comp_[16] = {};
  std::vector<uint8_t> buf_;  // a frame on its way into or out of host memory
};

}  // namespace dpusim::guest
