#include "tlm/invariants.h"

#include <limits>

#include "tlm/event_log.h"

namespace dpusim::pcie {

void InvariantChecker::expect(const std::string& kind, uint64_t count) {
  expected_[kind] = count == 0 ? std::numeric_limits<uint64_t>::max() : count;
}

void InvariantChecker::violation(uint64_t time_ps, const std::string& path, const std::string& kind,
                                 const std::string& detail) {
  ++violations_;
  auto it = expected_.find(kind);
  const bool expected = it != expected_.end() && it->second > 0;
  if (expected && it->second != std::numeric_limits<uint64_t>::max()) --it->second;
  log_.event(time_ps, path, "invariant_violation")
      .str("kind", kind)
      .str("detail", detail)
      .boolean("expected", expected);
  if (expected || failed_) return;
  failed_ = true;
  first_failure_ = "invariant " + kind + " violated at time_ps=" + std::to_string(time_ps) +
                   " path=" + path + ": " + detail;
  if (on_failure_) on_failure_(kind, first_failure_);
}

unsigned InvariantChecker::register_requester(const std::string& path) {
  requesters_.push_back(Requester{path});
  return unsigned(requesters_.size() - 1);
}

void InvariantChecker::request_sent(uint64_t time_ps, unsigned requester, const tlp::Header& h,
                                    uint64_t serial) {
  Requester& r = requesters_[requester];
  if (r.serial[h.tag] != 0) {
    violation(time_ps, r.path, "tag_reuse",
              "tag " + std::to_string(h.tag) + " reused while TLP #" +
                  std::to_string(r.serial[h.tag]) + " is outstanding");
  } else {
    ++outstanding_count_;
  }
  r.serial[h.tag] = serial;
  r.sent_ps[h.tag] = time_ps;
}

bool InvariantChecker::completion_arrived(uint64_t time_ps, unsigned requester, const tlp::Header& h,
                                          size_t payload_bytes, uint64_t serial) {
  Requester& r = requesters_[requester];
  if (r.serial[h.tag] == 0) {
    violation(time_ps, r.path, "unexpected_completion",
              std::string(tlp::type_name(h.type)) + " #" + std::to_string(serial) + " from " +
                  tlp::bdf_str(h.completer_id) + " tag " + std::to_string(h.tag) +
                  " matches no outstanding request");
    return false;
  }
  // The last completion of a request carries all the bytes that remain (PCIe §2.3.1.1): a
  // Cpl (no data) or an error status ends it too.
  const size_t lower = h.lower_address & 3;
  const bool final = !tlp::has_data(h.type) || h.status != tlp::CplStatus::SC ||
                     payload_bytes >= lower + h.byte_count;
  if (final) {
    r.serial[h.tag] = 0;
    --outstanding_count_;
  }
  return true;
}

void InvariantChecker::request_timed_out(uint64_t time_ps, unsigned requester, uint8_t tag) {
  Requester& r = requesters_[requester];
  const uint64_t serial = r.serial[tag];
  if (serial != 0) {
    r.serial[tag] = 0;
    --outstanding_count_;
  }
  violation(time_ps, r.path, "completion_timeout",
            "request TLP #" + std::to_string(serial) + " tag " + std::to_string(tag) +
                " got no completion");
}

uint64_t InvariantChecker::frames_dropped() const {
  uint64_t n = 0;
  for (const auto& [reason, count] : frames_dropped_) n += count;
  return n;
}

void InvariantChecker::check_frame_conservation(uint64_t time_ps, uint64_t in_flight) {
  const uint64_t dropped = frames_dropped();
  std::string drops;
  for (const auto& [reason, count] : frames_dropped_)
    drops += (drops.empty() ? "" : ",") + reason + "=" + std::to_string(count);
  log_.event(time_ps, "checker", "frame_ledger")
      .u64("sent", frames_sent_)
      .u64("received", frames_received_)
      .u64("dropped", dropped)
      .u64("in_flight", in_flight)
      .str("drops", drops);
  if (frames_sent_ != frames_received_ + dropped + in_flight)
    violation(time_ps, "checker", "frame_conservation",
              "sent " + std::to_string(frames_sent_) + " != received " + std::to_string(frames_received_) +
                  " + dropped " + std::to_string(dropped) + " + in flight " + std::to_string(in_flight));
}

}  // namespace dpusim::pcie

namespace dpusim::pcie {

void InvariantChecker::check_outstanding(uint64_t time_ps, uint64_t timeout_ps) {
  for (const Requester& r : requesters_)
    for (unsigned tag = 0; tag < 256; ++tag)
      if (r.serial[tag] != 0 && time_ps - r.sent_ps[tag] > timeout_ps)
        violation(time_ps, r.path, "request_never_completed",
                  "request TLP #" + std::to_string(r.serial[tag]) + " tag " + std::to_string(tag) + " sent at " +
                      std::to_string(r.sent_ps[tag]) + " ps got neither a completion nor its completion timeout");
}

void InvariantChecker::credits_granted(const std::string& pool, uint64_t n) { credits_[pool] += int64_t(n); }

void InvariantChecker::credits_discarded(uint64_t time_ps, const std::string& pool, uint64_t n) {
  int64_t& c = credits_[pool];
  c -= int64_t(n);
  if (c < 0)
    violation(time_ps, pool, "credits_negative",
              "discarding " + std::to_string(n) + " credits left the pool at " + std::to_string(c));
}

void InvariantChecker::credit_spent(uint64_t time_ps, const std::string& pool) {
  int64_t& c = credits_[pool];
  --c;
  if (c < 0) violation(time_ps, pool, "credits_negative", "a credit was spent with none granted and held");
}

int64_t InvariantChecker::credits(const std::string& pool) const {
  auto it = credits_.find(pool);
  return it == credits_.end() ? 0 : it->second;
}

void InvariantChecker::generation_bumped(const std::string& object, uint64_t generation) {
  generations_[object] = generation;
}

void InvariantChecker::work_started(uint64_t time_ps, const std::string& path, const std::string& object,
                                    uint64_t generation, const std::string& what) {
  auto it = generations_.find(object);
  if (it == generations_.end() || it->second == generation) return;
  violation(time_ps, path, "work_on_reset_generation",
            what + " of " + object + " started with generation " + std::to_string(generation) +
                " after a reset moved it to generation " + std::to_string(it->second));
}

}  // namespace dpusim::pcie
