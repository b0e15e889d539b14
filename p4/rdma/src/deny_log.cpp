// The denial log's rate limit (deny_log.h).
#include "dpusim/p4/rdma/deny_log.h"

namespace dpusim::p4::rdma {

void DenyLog::emit(std::uint64_t now_ps, const std::string& line) {
  if (sink_) sink_(now_ps, line);
}

void DenyLog::flush(std::uint64_t now_ps) {
  if (!open_ || now_ps < start_ps_ || now_ps - start_ps_ < P4_RDMA_DENY_LOG_WINDOW_PS) return;
  if (suppressed_ != 0)
    emit(now_ps, what_ + " not logged: " + std::to_string(suppressed_) + " in the 5 s from t=" +
                     std::to_string(start_ps_) + " ps");
  open_ = false;
  lines_ = 0;
  suppressed_ = 0;
}

void DenyLog::denied(std::uint64_t now_ps, const std::string& line) {
  flush(now_ps);
  if (!open_) {
    open_ = true;
    start_ps_ = now_ps;
  }
  if (lines_ < P4_RDMA_DENY_LOG_LINES) {
    ++lines_;
    ++logged_total_;
    emit(now_ps, line);
  } else {
    ++suppressed_;
    ++not_logged_total_;
  }
}

bool DenyLog::window_end_ps(std::uint64_t* end_ps) const {
  if (!open_) return false;
  // A window opened within 5 s of 2^64 ps ends past what a time can hold: it never ends.
  *end_ps = start_ps_ > UINT64_MAX - P4_RDMA_DENY_LOG_WINDOW_PS ? UINT64_MAX : start_ps_ + P4_RDMA_DENY_LOG_WINDOW_PS;
  return true;
}

}  // namespace dpusim::p4::rdma
