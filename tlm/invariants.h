// The invariant checker, on by default: it watches the fabric as the run goes and fails the run
// at the event that broke a rule, naming that event's time and path.
//
//  - every non-posted request completes exactly once (data, error status) or times out;
//  - no completion arrives for a posted request, or twice for one request
//    ("unexpected_completion");
//  - no Type 1 config request travels below its target bus ("type1_below_target_bus");
//  - no DMA outside allocated host memory ("dma_outside_memory");
//  - a completion timeout is itself a violation ("completion_timeout"): a healthy fabric
//    answers every request;
//  - frames are conserved ("frame_conservation"): at the end of the run, every frame that
//    entered a wire was received by a consumer, dropped and counted, or is still in flight;
//  - no request is left without a completion or a timeout ("request_never_completed"): at the
//    end of the run, a non-posted request still outstanding past its completion timeout was
//    lost by whoever owed it an answer;
//  - credits never go negative ("credits_negative"): a pool (ACG credits, say) never spends
//    more than it was granted and still holds;
//  - no work runs on a reset generation ("work_on_reset_generation"): a work item of an object
//    whose generation has since been bumped by a reset must not start;
//  - liveness (tlm/liveness.h, "liveness_stall"): a state with a bound ends within it.
// Models add their own kinds through violation() (a device's service bound, a liveness rule).
// A scenario entitled to cause one (a test of UR, of timeouts) declares it expected; an expected
// violation is logged as such and does not fail the run.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tlm/tlp.h"

namespace dpusim::pcie {

class EventLog;

class InvariantChecker {
 public:
  explicit InvariantChecker(EventLog& log) : log_(log) {}

  // Called with (kind, message) when a violation fails the run.
  void set_failure_callback(std::function<void(const std::string&, const std::string&)> fn) {
    on_failure_ = std::move(fn);
  }
  // Declares `count` violations of `kind` expected (0 = any number).
  void expect(const std::string& kind, uint64_t count);

  void violation(uint64_t time_ps, const std::string& path, const std::string& kind,
                 const std::string& detail);

  // Non-posted request tracking, by requester and tag. A requester is a terminal of the fabric
  // (the root complex, an endpoint), registered once by its path.
  unsigned register_requester(const std::string& path);
  void request_sent(uint64_t time_ps, unsigned requester, const tlp::Header& h, uint64_t serial);
  // A completion reached `requester`. Returns false when it matches no outstanding request.
  bool completion_arrived(uint64_t time_ps, unsigned requester, const tlp::Header& h,
                          size_t payload_bytes, uint64_t serial);
  void request_timed_out(uint64_t time_ps, unsigned requester, uint8_t tag);

  // The frame ledger. A frame is sent when it enters a wire; received when a consumer takes it
  // (a driver's buffer, a Python sink, a loopback plug); dropped with a counted reason.
  void frame_sent() { ++frames_sent_; }
  void frame_received() { ++frames_received_; }
  void frame_dropped(const std::string& reason) { ++frames_dropped_[reason]; }
  uint64_t frames_sent() const { return frames_sent_; }
  uint64_t frames_received() const { return frames_received_; }
  uint64_t frames_dropped() const;
  const std::map<std::string, uint64_t>& frame_drops() const { return frames_dropped_; }
  // At the end of the run, with the frames components still hold (on wires, in queues).
  void check_frame_conservation(uint64_t time_ps, uint64_t in_flight);
  // At the end of the run: requests sent more than `timeout_ps` ago and still outstanding.
  void check_outstanding(uint64_t time_ps, uint64_t timeout_ps);

  // A credit pool named `pool` (a component path): credits granted, spent and discarded.
  void credits_granted(const std::string& pool, uint64_t n);
  void credits_discarded(uint64_t time_ps, const std::string& pool, uint64_t n);
  void credit_spent(uint64_t time_ps, const std::string& pool);
  int64_t credits(const std::string& pool) const;

  // Reset generations: `object` (a device's path) is now at `generation`; work of `object`
  // carrying an older generation then must not start (`what` names the work).
  void generation_bumped(const std::string& object, uint64_t generation);
  void work_started(uint64_t time_ps, const std::string& path, const std::string& object, uint64_t generation,
                    const std::string& what);

  bool failed() const { return failed_; }
  const std::string& first_failure() const { return first_failure_; }
  uint64_t violations() const { return violations_; }
  size_t outstanding() const { return outstanding_count_; }

 private:
  EventLog& log_;
  struct Requester {
    std::string path;
    uint64_t serial[256] = {};   // serial of the outstanding request per tag, 0 = none
    uint64_t sent_ps[256] = {};  // when it was sent
  };
  std::map<std::string, int64_t> credits_;         // pool -> granted - discarded - spent
  std::map<std::string, uint64_t> generations_;    // object -> current reset generation
  std::vector<Requester> requesters_;
  size_t outstanding_count_ = 0;
  std::map<std::string, uint64_t> expected_;  // kind -> remaining (UINT64_MAX = any)
  std::function<void(const std::string&, const std::string&)> on_failure_;
  bool failed_ = false;
  std::string first_failure_;
  uint64_t violations_ = 0;
  uint64_t frames_sent_ = 0, frames_received_ = 0;
  std::map<std::string, uint64_t> frames_dropped_;
};

}  // namespace dpusim::pcie
