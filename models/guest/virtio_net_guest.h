// A virtio-net driver's datapath in C++ (Linux drivers/net/virtio_net.c: start_xmit,
// free_old_xmit, virtnet_poll, try_fill_recv), for traffic at a user's scale: it takes over the
// data queues of a device the Python driver brought up (pybind/dpusim/drivers/virtio_net.py
// hands it each ring's state, and gets it back) and then runs them without Python:
//
//  - transmit: frames go into a pool of buffers the driver allocates per queue, one descriptor
//    each (virtio_net_hdr_v1 and frame contiguous, VIRTIO_F_VERSION_1's any layout), one kick per
//    batch; transmit interrupts are suppressed (VRING_AVAIL_F_NO_INTERRUPT) and used buffers
//    are reclaimed as the driver goes, or after guest.tx_poll_ps when the ring is full;
//  - receive: on each receive queue's MSI-X message, every used buffer is taken (mergeable
//    buffers joined by num_buffers) and handed on; used buffers are posted again, with one
//    kick, once more than half of min(64, ring size) wait (virtnet_poll's refill rule);
//  - frames come from Python in batches (net.send_many, net.recv_many) or from a traffic source,
//    as every C++ guest driver's do (guest_datapath.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "guest/driver_ring.h"
#include "guest/guest_datapath.h"
#include "host/root_complex.h"
#include "tlm/sim_context.h"
#include "tlm/timed_queue.h"

namespace dpusim::guest {

struct GuestQueue {
  uint16_t index = 0;
  DriverRing::Layout layout;
  DriverRing::State state;
  uint64_t notify_addr = 0;
  uint32_t msi_data = 0;  // the queue's MSI-X message data
};

struct GuestNetSpec {
  std::string name;           // component path, e.g. "guest.02:00.0": names its random stream
  uint16_t requester_id = 0;  // the device's routing ID: its MSIs come from it
  bool mrg_rxbuf = false;     // VIRTIO_NET_F_MRG_RXBUF negotiated
  uint32_t rx_buf_len = 0;    // length of each receive buffer it posts
  std::vector<std::pair<GuestQueue, GuestQueue>> qps;  // (receive, transmit) per queue pair
};

class GuestNet : public GuestDatapath {
 public:
  GuestNet(pcie::SimContext& ctx, host::RootComplex& host, pcie::TimedQueue& timer, uint64_t id, GuestNetSpec spec);

  bool on_msi(const host::MsiEvent& ev) override;
  // Posts `count` more receive buffers on queue pair `qp` (allocated here) and kicks it.
  void fill_rx(unsigned qp, size_t count);
  // Each queue's state ((rx, tx) per queue pair), for tests and for a driver taking over.
  std::vector<std::pair<DriverRing::State, DriverRing::State>> states() const;

 private:
  struct Queue {
    Queue(host::HostMemory& mem, const GuestQueue& g)
        : ring(mem, g.layout, g.state), index(g.index), notify(g.notify_addr), msi(g.msi_data) {}
    DriverRing ring;
    uint16_t index;
    uint64_t notify;
    uint32_t msi;
  };
  struct QueuePair {
    std::unique_ptr<Queue> rx, tx;
    uint64_t pool = 0;                // transmit buffers: kTxSlotBytes each, ring-size of them
    std::vector<uint32_t> free_slots;
    std::vector<uint64_t> rx_spare;   // used receive buffers not yet posted again
  };

  void pump(unsigned qp) override;
  size_t tx_window(unsigned qp) const override { return qps_[qp].tx->ring.layout().size; }
  void kick(const Queue& q);
  void reclaim(QueuePair& p);
  void poll_rx(unsigned qp);

  GuestNetSpec spec_;
  std::vector<QueuePair> qps_;
  bool poll_pending_ = false;
  std::vector<uint8_t> tx_buf_, rx_buf_;  // a frame on its way into or out of host memory
};

}  // namespace dpusim::guest
