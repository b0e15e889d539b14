// The live update's Unix stream socket between the active and the standby
// (vnet_pci_dev_lu.h: <tmpdir>/vnet_live_update.sock) as timed messages between two processes
// of the application on simulated time, and the named fault points that place failures in the
// protocol.
//
// A message is a native uint32 (DEV_READY = 1 ... NACK = 9), possibly followed by its data (the
// cmd_fd's one-byte marker 'F' by SCM_RIGHTS, CH_EXPORT's length and descriptor, CH_BEGIN_ACK's
// configuration and images, CH_END's status byte). It reaches the peer vnet.lu.msg_ps after it
// was written plus vnet.lu.copy_kib_ps per KiB of data; every delivery is the event "lu_msg"
// (msg, from, to, value, bytes). A blocking read with a timeout is a callback on the reader's
// thread: with the message, or with the error a read returns (time-out, or the peer's end
// closed: end of file).
//
// Fault points (vnet(sim).lu_fault): "msg.<NAME>" (NAME: CMD_FD, DEV_READY, DEV_GO, DEV_ACK,
// CH_EXPORT, CH_BEGIN, CH_BEGIN_ACK, CH_END, CH_END_ACK, NACK) with action "drop" (never
// arrives), "corrupt" (its value becomes the rule's value: the message number, the marker, the
// length or the status) or "close" (the writer's socket breaks instead); and the steps of the
// protocol that can fail, action "fail": docs/vnet.md lists them.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tlm/activity.h"
#include "tlm/sim_context.h"
#include "tlm/timed_queue.h"

namespace dpusim::vnet {

enum class LuMsg : uint32_t {
  CMD_FD = 0,  // not a protocol number: the cmd_fd passed by SCM_RIGHTS with its marker
  DEV_READY = 1, DEV_GO = 2, DEV_ACK = 3, CH_EXPORT = 4, CH_BEGIN = 5, CH_BEGIN_ACK = 6, CH_END = 7,
  CH_END_ACK = 8, NACK = 9,
};
const char* lu_msg_name(LuMsg m);
inline constexpr uint8_t kLuCmdFdMarker = 'F';

struct LuMessage {
  LuMsg type = LuMsg::DEV_READY;
  uint32_t value = 0;  // the number as read (a corrupt one differs from type), or the marker, status, length
  std::vector<uint8_t> data;
};

struct LuFaultRule {
  uint64_t id = 0;
  std::string point, action;
  uint32_t value = 0;
  uint64_t skip = 0, count = 1, seen = 0, fired = 0;
};

class LuFaults {
 public:
  // Refuses an unknown point or action (std::invalid_argument naming the known ones).
  uint64_t add(LuFaultRule rule);
  void remove(uint64_t id);
  // The action of the rule that fires at `point` now ("" when none), its value in `value`.
  std::string fire(const std::string& point, uint32_t* value = nullptr);
  static const std::vector<std::string>& step_points();

 private:
  std::vector<LuFaultRule> rules_;
  uint64_t next_ = 1;
};

class LuSocket {
 public:
  // End 0 is the standby's (it connected), end 1 the active's (it accepted).
  LuSocket(pcie::SimContext& ctx, pcie::TimedQueue& later, LuFaults& faults, unsigned pid0, unsigned pid1);

  // Writes `m` from end `side`; false when the socket is broken (the peer closed, or a fault).
  bool send(int side, LuMessage m);
  // A read on end `side` by `thread`: `then(message)` or `then(nullopt)` with the error's
  // name in `error` ("DOCA_ERROR_TIME_OUT" after `timeout_ps`, "DOCA_ERROR_IO_FAILED" at end
  // of file), as a step of `thread`.
  using Then = std::function<void(std::optional<LuMessage>, const char* error)>;
  void recv(int side, pcie::Activity& thread, uint64_t timeout_ps, Then then);
  void close(int side);
  bool closed(int side) const { return end_[side].closed; }

 private:
  struct End {
    std::deque<LuMessage> inbox;
    pcie::Activity* reader = nullptr;
    Then then;
    uint64_t token = 0;
    bool closed = false, eof = false;  // eof: the peer's end is gone
    uint64_t last_arrival_ps = 0;        // when the last message written here reaches the peer
  };
  void wake(int side);

  pcie::SimContext& ctx_;
  pcie::TimedQueue& later_;
  LuFaults& faults_;
  unsigned pid_[2];
  End end_[2];
};

}  // namespace dpusim::vnet
