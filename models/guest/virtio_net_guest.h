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
//  - frames come from Python in batches (send/take: net.send_many, net.recv_many) or from a
//    traffic source at a rate with a size distribution, checked on their way back by a frame
//    checker (models/net/frame_source.h), the traffic window bounded by the rings so that a
//    loopback never overruns the device's receive FIFO.
// The MSIs of the queues it runs are its own: the host does not pass them on to Python.
// The guest's CPU work takes no simulated time, as in the Python driver.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "guest/driver_ring.h"
#include "host/root_complex.h"
#include "net/frame_source.h"
#include "tlm/sim_context.h"
#include "tlm/timed_queue.h"

namespace dpusim::guest {

// The notification an engine posts for Python (token = engine id, status = what).
inline constexpr pcie::NotificationKind kGuestNotification = "guest";
enum GuestNote : int { kTrafficDone = 1, kFramesReady = 2 };

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

struct TrafficSpec {
  uint64_t frames = 0;          // in all, shared out over `qps`
  net::SizeDistribution sizes;  // frame lengths without FCS
  uint64_t rate_fps = 0;        // per queue pair, frames per simulated second; 0: as fast as it goes
  unsigned batch = 64;          // frames per kick at most
  std::vector<unsigned> qps;    // the queue pairs that send, each its own flow
  uint8_t dst[6] = {2, 0, 0, 0, 0, 1}, src[6] = {2, 0, 0, 0, 0, 2};
};

struct TrafficResult {
  bool running = false, done = false;
  uint64_t frames = 0, sent = 0, bytes_sent = 0, received = 0, missing = 0;
  net::FrameChecker::Counts checked;
  std::string first_problem;
  uint64_t start_ps = 0, end_ps = 0;  // first frame posted, last frame received
};

class GuestNet {
 public:
  static constexpr size_t kTxSlotBytes = 2048;  // one transmit buffer: header and frame

  GuestNet(pcie::SimContext& ctx, host::RootComplex& host, pcie::TimedQueue& timer, uint64_t id, GuestNetSpec spec);
  uint64_t id() const { return id_; }
  const std::string& name() const { return spec_.name; }
  unsigned queue_pairs() const { return unsigned(qps_.size()); }

  // An MSI the host received; true if it is one of this driver's queues' (then it is handled).
  bool on_msi(const host::MsiEvent& ev);

  // Python's batch path. Frames wait in the driver if the ring is full. Throws
  // std::invalid_argument for a queue pair out of range or a frame of a bad length.
  void send(unsigned qp, std::vector<std::vector<uint8_t>> frames);
  // Posts a kFramesReady notification once at least `count` received frames wait (at once if
  // they already do).
  void notify_when_received(uint64_t count);
  std::vector<std::pair<unsigned, std::vector<uint8_t>>> take(size_t max);
  size_t received_waiting() const { return received_.size(); }
  // Posts `count` more receive buffers on queue pair `qp` (allocated here) and kicks it.
  void fill_rx(unsigned qp, size_t count);

  // Starts a traffic run (std::logic_error if one is running); a kTrafficDone notification
  // follows when every frame came back.
  void start_traffic(const TrafficSpec& spec);
  TrafficResult traffic() const;

  // Each queue's state ((rx, tx) per queue pair), for tests and for a driver taking over.
  std::vector<std::pair<DriverRing::State, DriverRing::State>> states() const;
  // The device went away (reset, removal): the queues are no longer this driver's, nor are
  // their MSIs; timers still pending do nothing.
  void detach();
  bool attached() const { return attached_; }
  uint64_t tx_frames() const { return tx_frames_; }
  uint64_t rx_frames() const { return rx_frames_; }

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
    std::deque<std::vector<uint8_t>> backlog;  // Python's frames waiting for room
    std::vector<uint64_t> rx_spare;            // used receive buffers not yet posted again
    // traffic
    uint64_t quota = 0, sent = 0, allowance = 0;
    bool ticking = false;
  };

  void kick(const Queue& q);
  void reclaim(QueuePair& p);
  void pump(unsigned qp);
  void pump_all();
  void poll_rx(unsigned qp);
  void deliver(unsigned qp, const uint8_t* frame, size_t len);
  void tick(unsigned qp);
  void post(int what, uint64_t value = 0);
  bool traffic_window_full(unsigned qp) const;

  pcie::SimContext& ctx_;
  host::RootComplex& host_;
  pcie::TimedQueue& timer_;
  uint64_t id_;
  GuestNetSpec spec_;
  std::vector<QueuePair> qps_;
  std::deque<std::pair<unsigned, std::vector<uint8_t>>> received_;
  uint64_t ready_target_ = 0;
  bool attached_ = true;
  bool poll_pending_ = false;
  uint64_t tx_frames_ = 0, rx_frames_ = 0;
  std::vector<uint8_t> tx_buf_, rx_buf_;  // a frame on its way into or out of host memory

  std::optional<TrafficSpec> traffic_;
  std::unique_ptr<net::FrameSource> source_;
  std::unique_ptr<net::FrameChecker> checker_;
  TrafficResult result_;
  std::vector<uint64_t> flow_received_;  // per flow (= sending queue pair)
  uint64_t runs_ = 0;
};

}  // namespace dpusim::guest
