// TLPs in the trace, from the links' `tlp` events (link.cpp) and the requesters' `cpl_timeout`:
//   - every hop is a slice [tx_ps, rx_ps] on its link direction's track ("PCIe links",
//     "<link> <dir>"), named by its type, with the event's other fields as arguments (its
//     serial, `tlp`, tells the hops of one TLP across the fabric apart: no flow joins them);
//   - every non-posted request is a slice on its requester's track ("PCIe requests",
//     "<requester BDF>") from its first hop's tx_ps to the arrival (rx_ps) of the completion
//     that ends it, with a flow ("request") from the request's first hop to that completion's
//     last hop.
// The request's first hop is on its requester's own link, so the completion that ends it is
// the one crossing that link in the other direction whose Byte Count fits in it (PCIe §2.2.9:
// Byte Count is what remains, this completion included), or any completion without data or
// with an error status. A request that a completion timeout ends is closed there; one still
// open at the end of the run is closed then, marked "completion": "none".
#include <algorithm>
#include <array>
#include <optional>
#include <unordered_map>

#include "tlm/event_log.h"
#include "tlm/tlp.h"
#include "tlm/trace_rules.h"
#include "tlm/trace_writer.h"

namespace dpusim::pcie {

namespace {

std::optional<tlp::Type> type_named(std::string_view name) {
  constexpr int kTypes = static_cast<int>(tlp::Type::CplDLk) + 1;
  static const auto names = [] {
    std::array<std::string_view, kTypes> n;
    for (int i = 0; i < kTypes; ++i) n[size_t(i)] = tlp::type_name(static_cast<tlp::Type>(i));
    return n;
  }();
  for (int i = 0; i < kTypes; ++i)
    if (names[size_t(i)] == name) return static_cast<tlp::Type>(i);
  return std::nullopt;
}

uint64_t decimal(std::string_view v) {
  uint64_t n = 0;
  for (char c : v) n = n * 10 + uint64_t(c - '0');
  return n;
}

std::string_view unquoted(std::string_view v) { return v.size() >= 2 ? v.substr(1, v.size() - 2) : v; }

// The fields of a `tlp` event (link.cpp writes them: strings without escapes), found in one
// pass, and the hop's arguments: the fields that its track, name and times do not already say.
struct TlpFields {
  std::string_view type, dir, requester, tag, status;
  uint64_t tx = 0, rx = 0, serial = 0, len = 0, byte_count = 0, lower_addr = 0;
  bool duplicate = false;

  TlpFields(const EventView& e, std::string& args) {
    args.push_back('{');
    for (size_t i = 0; i < e.size(); ++i) {
      const std::string_view k = e.key(i), v = e.raw(i);
      if (k == "type") type = unquoted(v);
      else if (k == "dir") dir = unquoted(v);
      else if (k == "tx_ps") tx = decimal(v);
      else if (k == "rx_ps") rx = decimal(v);
      else if (k == "time_ps" || k == "path" || k == "event") {}
      else {
        if (k == "requester") requester = unquoted(v);
        else if (k == "tag") tag = v;
        else if (k == "status") status = unquoted(v);
        else if (k == "tlp") serial = decimal(v);
        else if (k == "len") len = decimal(v);
        else if (k == "byte_count") byte_count = decimal(v);
        else if (k == "lower_addr") lower_addr = hex(v);
        else if (k == "duplicate") duplicate = v == "true";
        if (args.size() > 1) args.push_back(',');
        EventLog::append_json_string(args, k);
        args.push_back(':');
        args.append(v);
      }
    }
    args.push_back('}');
  }

  static uint64_t hex(std::string_view v) {  // "0x1a", quoted
    uint64_t n = 0;
    for (size_t i = 3; i + 1 < v.size(); ++i) n = n * 16 + uint64_t(v[i] >= 'a' ? v[i] - 'a' + 10 : v[i] - '0');
    return n;
  }
};

class TlpTrace : public TraceHandler {
 public:
  TlpTrace() { last_hop_.reserve(1 << 13); }  // no rehash while the default scenario runs

  void on_event(const EventView& e, TraceWriter& out) override {
    if (e.name() == "cpl_timeout") return timed_out(e, out);
    args_.clear();
    const TlpFields f(e, args_);
    const std::string_view type = f.type, dir = f.dir, requester = f.requester;
    const auto t = type_named(type);
    const uint64_t tx = f.tx, rx = f.rx, serial = f.serial;
    const bool duplicate = f.duplicate;
    const TraceLane lane = out.slice(link_track(e.path(), dir, out), tx, rx, type, "tlp", args_);
    if (!t) return;
    auto hop = last_hop_.find(serial);
    const bool first = hop == last_hop_.end();
    if (!duplicate) {
      if (!first) {
        hop->second = tx;
      } else {
        prune(tx);
        last_hop_.emplace(serial, tx);
      }
    }
    key_.assign(requester);
    key_.push_back('/');
    key_.append(f.tag);
    if (tlp::is_non_posted(*t) && first && !duplicate) {
      if (auto old = open_.find(key_); old != open_.end()) {
        // The tag came back into use without a completion the trace saw.
        end_request(old->second, tx, "{\"completion\":\"none\",\"tag_reused\":true}", lane, tx, false, out);
        open_.erase(old);
      }
      open_.emplace(key_, Request{std::string(e.path()), std::string(dir), std::string(type), std::string(requester),
                                  args_, lane, tx, e.time_ps()});
      return;
    }
    if (!tlp::is_completion(*t)) return;
    auto req = open_.find(key_);
    if (req == open_.end() || req->second.link != e.path() || req->second.dir == dir) return;
    const bool with_data = *t == tlp::Type::CplD || *t == tlp::Type::CplDLk;
    const std::string_view status = f.status;
    const uint64_t carried = f.len * 4 - (f.lower_addr & 3);
    if (with_data && status == "SC" && f.byte_count > carried) return;  // more to come
    std::string end = "{\"completion\":";
    EventLog::append_json_string(end, type);
    end += ",\"status\":";
    EventLog::append_json_string(end, status);
    end += ",\"latency_ps\":" + std::to_string(rx - req->second.tx_ps) + "}";
    end_request(req->second, rx, end, lane, tx, true, out);
    open_.erase(req);
  }

  void finish(uint64_t end_ps, TraceWriter& out) override {
    for (const auto& [key, r] : open_) end_request(r, end_ps, "{\"completion\":\"none\"}", {}, 0, false, out);
    open_.clear();
  }

 private:
  struct Request {
    std::string link, dir, type, requester, args;
    TraceLane lane;
    uint64_t tx_ps, issued_ps;
  };

  uint32_t link_track(std::string_view link, std::string_view dir, TraceWriter& out) {
    name_.assign(link);
    name_.push_back(' ');
    name_.append(dir);
    auto it = links_.find(name_);
    if (it == links_.end()) it = links_.emplace(name_, out.track("PCIe links", name_)).first;
    return it->second;
  }

  void end_request(const Request& r, uint64_t end_ps, const std::string& end, TraceLane cpl, uint64_t cpl_tx,
                   bool completed, TraceWriter& out) {
    std::string args = r.args;
    args.pop_back();
    args += ",\"end\":" + end + "}";
    const uint32_t track = out.track("PCIe requests", r.requester);
    out.slice(track, r.tx_ps, end_ps, r.type, "tlp", args);
    if (completed) out.flow(r.lane, r.tx_ps, cpl, cpl_tx, "request", "tlp");
  }

  void timed_out(const EventView& e, TraceWriter& out) {
    // The requester names the tag and when it issued the request: the first hop's time.
    const std::string tag = std::string(e.raw("tag"));
    const uint64_t issued = e.u64("issued_ps");
    for (auto it = open_.begin(); it != open_.end(); ++it) {
      if (it->first.substr(it->first.find('/') + 1) != tag || it->second.issued_ps != issued) continue;
      end_request(it->second, e.time_ps(), "{\"completion\":\"timeout\"}", {}, 0, false, out);
      open_.erase(it);
      break;
    }
    out.default_instant(e);
  }

  // Posted TLPs leave their last hop behind: forget hops older than a simulated second (a
  // TLP crosses the fabric in microseconds) whenever the table has doubled.
  void prune(uint64_t now_ps) {
    if (last_hop_.size() < prune_at_) return;
    for (auto it = last_hop_.begin(); it != last_hop_.end();) {
      if (it->second + 1000000000000ull < now_ps) it = last_hop_.erase(it);
      else ++it;
    }
    prune_at_ = std::max<size_t>(prune_at_, 2 * last_hop_.size());
  }

  // The time of each TLP's latest hop, by serial: whether a hop is its TLP's first. Looked up
  // by serial only, never iterated in an order that reaches the output.
  std::unordered_map<uint64_t, uint64_t> last_hop_;
  size_t prune_at_ = 1 << 16;
  std::map<std::string, Request, std::less<>> open_;  // by "requester/tag"
  std::map<std::string, uint32_t, std::less<>> links_;
  std::string args_, key_, name_;
};

}  // namespace

std::unique_ptr<TraceHandler> make_tlp_trace() { return std::make_unique<TlpTrace>(); }

}  // namespace dpusim::pcie
