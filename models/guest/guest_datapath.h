// What every C++ guest network driver shares, whatever its device's rings (virtio split rings,
// the ionic NIC's descriptor and completion rings): frames from Python in batches (send and
// take: the Python drivers' send_many and recv_many), traffic runs from a seeded source checked
// on their way back (models/net/frame_source.h), the notifications for Python, and the traffic
// window that keeps a loopback from overrunning the device's receive side.
//
// A driver adds its rings: pump(qp) fills queue pair qp's transmit ring while has_frame(qp),
// each frame's bytes from take_frame(qp), and kicks the device once per batch(); its receive
// path hands each frame to deliver(qp). The MSIs of the queues it runs are its own (on_msi):
// the host does not pass them on to Python. The guest's CPU work takes no simulated time.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "host/root_complex.h"
#include "net/frame_source.h"
#include "tlm/sim_context.h"
#include "tlm/timed_queue.h"

namespace dpusim::guest {

// The notification an engine posts for Python (token = engine id, status = what).
inline constexpr pcie::NotificationKind kGuestNotification = "guest";
enum GuestNote : int { kTrafficDone = 1, kFramesReady = 2 };

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

class GuestDatapath {
 public:
  static constexpr size_t kTxSlotBytes = 2048;  // one transmit buffer in the drivers' pools

  // `name`: the component path ("guest.02:00.0"), which names its random streams;
  // `requester_id`: the device's routing ID (its MSIs come from it); `max_frame`: the longest
  // frame its transmit buffers take.
  GuestDatapath(pcie::SimContext& ctx, host::RootComplex& host, pcie::TimedQueue& timer, uint64_t id,
                std::string name, uint16_t requester_id, unsigned queue_pairs, size_t max_frame);
  virtual ~GuestDatapath() = default;
  uint64_t id() const { return id_; }
  const std::string& name() const { return name_; }
  unsigned queue_pairs() const { return unsigned(flows_.size()); }

  // An MSI the host received; true if it is one of this driver's queues' (then it is handled).
  virtual bool on_msi(const host::MsiEvent& ev) = 0;

  // Python's batch path. Frames wait in the driver if the ring is full. Throws
  // std::invalid_argument for a queue pair out of range or a frame of a bad length.
  void send(unsigned qp, std::vector<std::vector<uint8_t>> frames);
  // Posts a kFramesReady notification once at least `count` received frames wait (at once if
  // they already do).
  void notify_when_received(uint64_t count);
  std::vector<std::pair<unsigned, std::vector<uint8_t>>> take(size_t max);
  size_t received_waiting() const { return received_.size(); }

  // Starts a traffic run (std::logic_error if one is running); a kTrafficDone notification
  // follows when every frame came back.
  void start_traffic(const TrafficSpec& spec);
  TrafficResult traffic() const;

  // The device went away (reset, removal): the queues are no longer this driver's, nor are
  // their MSIs; timers still pending do nothing.
  void detach();
  bool attached() const { return attached_; }
  uint64_t tx_frames() const { return tx_frames_; }
  uint64_t rx_frames() const { return rx_frames_; }

 protected:
  // Fills queue pair qp's transmit ring from take_frame while has_frame and there is room.
  virtual void pump(unsigned qp) = 0;
  // The transmit ring's size: at most that many of a flow's frames between its transmit and
  // its receive.
  virtual size_t tx_window(unsigned qp) const = 0;
  void pump_all();
  // Whether a frame waits for queue pair qp (Python's, or the traffic source's within its rate
  // and window); take_frame writes it into `out` (max_frame bytes) and returns its length.
  bool has_frame(unsigned qp) const;
  size_t take_frame(unsigned qp, uint8_t* out);
  // Frames per kick.
  unsigned batch() const { return traffic_ ? traffic_->batch : 64u; }
  // A received frame, for the checker or for Python.
  void deliver(unsigned qp, const uint8_t* frame, size_t len);
  // Throws std::invalid_argument naming qp when it is out of range.
  void check_qp(unsigned qp) const;

  pcie::SimContext& ctx_;
  host::RootComplex& host_;
  pcie::TimedQueue& timer_;
  uint16_t requester_id_;
  size_t max_frame_;
  uint64_t rx_frames_ = 0;

 private:
  struct Flow {
    std::deque<std::vector<uint8_t>> backlog;  // Python's frames waiting for room
    uint64_t quota = 0, sent = 0, allowance = 0;
    bool ticking = false;
  };
  void tick(unsigned qp);
  void post(int what, uint64_t value = 0);
  bool traffic_window_full(unsigned qp) const;

  uint64_t id_;
  std::string name_;
  std::vector<Flow> flows_;
  std::deque<std::pair<unsigned, std::vector<uint8_t>>> received_;
  uint64_t ready_target_ = 0;
  bool attached_ = true;
  uint64_t tx_frames_ = 0;

  std::optional<TrafficSpec> traffic_;
  std::unique_ptr<net::FrameSource> source_;
  std::unique_ptr<net::FrameChecker> checker_;
  TrafficResult result_;
  std::vector<uint64_t> flow_received_;  // per flow (= sending queue pair)
  uint64_t runs_ = 0;
};

}  // namespace dpusim::guest
