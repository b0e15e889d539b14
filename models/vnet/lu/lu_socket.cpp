#include "vnet/lu/lu_socket.h"

#include <algorithm>
#include <stdexcept>

#include "tlm/bytes.h"
#include "vnet/app/vnet_timing.h"

namespace dpusim::vnet {

namespace {
const char* const kMsgNames[] = {"CMD_FD", "DEV_READY", "DEV_GO", "DEV_ACK", "CH_EXPORT",
                                  "CH_BEGIN", "CH_BEGIN_ACK", "CH_END", "CH_END_ACK", "NACK"};
}

const char* lu_msg_name(LuMsg m) {
  const auto i = static_cast<uint32_t>(m);
  return i < 10 ? kMsgNames[i] : "?";
}

const std::vector<std::string>& LuFaults::step_points() {
  static const std::vector<std::string> points = {
      "standby.connect", "standby.shm",     "standby.dev",      "standby.engine_import",
      "standby.enable",  "standby.ch_create", "standby.ch_apply", "standby.acg_init",
  };
  return points;
}

uint64_t LuFaults::add(LuFaultRule rule) {
  const bool msg = rule.point.rfind("msg.", 0) == 0;
  bool known = false;
  if (msg) {
    for (const char* n : kMsgNames) known = known || rule.point == std::string("msg.") + n;
  } else {
    known = std::count(step_points().begin(), step_points().end(), rule.point) != 0;
  }
  if (!known) {
    std::string list = "msg.<CMD_FD|DEV_READY|DEV_GO|DEV_ACK|CH_EXPORT|CH_BEGIN|CH_BEGIN_ACK|CH_END|CH_END_ACK|NACK>";
    for (const std::string& p : step_points()) list += ", " + p;
    throw std::invalid_argument("no live-update fault point '" + rule.point + "' (known: " + list + ")");
  }
  // `length` rewrites the 4-byte length that leads CH_EXPORT's payload, the one message with one.
  const bool has_length = rule.point == "msg.CH_EXPORT";
  const bool ok = msg ? (rule.action == "drop" || rule.action == "corrupt" || rule.action == "close" ||
                         (has_length && rule.action == "length"))
                      : rule.action == "fail";
  if (!ok)
    throw std::invalid_argument("fault point '" + rule.point + "' takes the action " +
                                (msg ? (has_length ? "drop, corrupt, close or length" : "drop, corrupt or close") : "fail") +
                                ", not '" + rule.action + "'");
  rule.id = next_++;
  rules_.push_back(rule);
  return rule.id;
}

void LuFaults::remove(uint64_t id) {
  rules_.erase(std::remove_if(rules_.begin(), rules_.end(), [id](const LuFaultRule& r) { return r.id == id; }),
               rules_.end());
}

std::string LuFaults::fire(const std::string& point, uint32_t* value) {
  for (LuFaultRule& r : rules_) {
    if (r.point != point || (r.count != 0 && r.fired >= r.count)) continue;
    if (r.seen++ < r.skip) continue;
    ++r.fired;
    if (value) *value = r.value;
    return r.action;
  }
  return "";
}

LuSocket::LuSocket(pcie::SimContext& ctx, pcie::TimedQueue& later, LuFaults& faults, unsigned pid0, unsigned pid1)
    : ctx_(ctx), later_(later), faults_(faults), pid_{pid0, pid1} {}

bool LuSocket::send(int side, LuMessage m) {
  End& me = end_[side];
  if (me.closed || me.eof) return false;
  const std::string name = lu_msg_name(m.type);
  const std::string path = "vnet" + (pid_[side] == 1 ? std::string() : std::to_string(pid_[side])) + ".lu";
  uint32_t value = 0;
  const std::string action = faults_.fire("msg." + name, &value);
  if (!action.empty())
    ctx_.event(path, "fault").str("point", "msg." + name).str("action", action).u64("value", value);
  if (action == "close") {
    close(side);
    return false;
  }
  if (action == "drop") return true;  // written, lost on the way
  if (action == "corrupt") m.value = value;
  if (action == "length" && m.data.size() >= 4)
    bytes::put_le32(m.data.data(), value);
  const uint64_t bytes = 4 + m.data.size();
  const uint64_t delay = ctx_.latency_ps(timing::lu_msg_ps) + (bytes * ctx_.timing.get(timing::lu_copy_kib_ps)) / 1024;
  const int peer = 1 - side;
  const unsigned from = pid_[side], to = pid_[peer];
  me.last_arrival_ps = std::max(me.last_arrival_ps, ctx_.now_ps() + delay);
  later_.at(sc_core::sc_time::from_value(delay), [this, peer, from, to, name, m = std::move(m), bytes]() mutable {
    ctx_.event("vnet" + (to == 1 ? std::string() : std::to_string(to)) + ".lu", "lu_msg")
        .str("msg", name).u64("from", from).u64("to", to).u64("value", m.value).u64("bytes", bytes);
    End& e = end_[peer];
    if (e.closed) return;
    e.inbox.push_back(std::move(m));
    wake(peer);
  });
  return true;
}

void LuSocket::recv(int side, pcie::Activity& thread, uint64_t timeout_ps, Then then) {
  End& e = end_[side];
  e.reader = &thread;
  e.then = std::move(then);
  const uint64_t token = ++e.token;
  if (!e.inbox.empty() || e.eof || e.closed) return wake(side);
  later_.at(sc_core::sc_time::from_value(timeout_ps), [this, side, token] {
    End& e = end_[side];
    if (e.token != token || !e.then) return;
    Then cb = std::move(e.then);
    e.then = nullptr;
    e.reader->then([cb] { cb(std::nullopt, "DOCA_ERROR_TIME_OUT"); });
  });
}

void LuSocket::wake(int side) {
  End& e = end_[side];
  if (!e.then) return;
  Then cb = std::move(e.then);
  e.then = nullptr;
  ++e.token;  // the pending time-out no longer applies
  if (!e.inbox.empty()) {
    LuMessage m = std::move(e.inbox.front());
    e.inbox.pop_front();
    e.reader->then([cb, m = std::move(m)] { cb(m, nullptr); });
  } else {
    e.reader->then([cb] { cb(std::nullopt, "DOCA_ERROR_IO_FAILED"); });
  }
}

void LuSocket::close(int side) {
  if (end_[side].closed) return;
  end_[side].closed = true;
  end_[side].then = nullptr;
  // The peer reads end of file once what was written before has arrived.
  const int peer = 1 - side;
  const uint64_t now = ctx_.now_ps();
  const uint64_t eof_ps = std::max(now + ctx_.timing.get(timing::lu_msg_ps), end_[side].last_arrival_ps + 1);
  later_.at(sc_core::sc_time::from_value(eof_ps - now), [this, peer] {
    end_[peer].eof = true;
    wake(peer);
  });
}

}  // namespace dpusim::vnet
