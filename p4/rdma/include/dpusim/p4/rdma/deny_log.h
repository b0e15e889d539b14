// The rate limit on the RDMA path's denial log (P4 engine guide, "Status": a guest looping on
// a denied operation must not fill the log).
//
// A window of P4_RDMA_DENY_LOG_WINDOW_PS of simulated time opens at the first denial and
// covers [start, start + 5 s). Its first P4_RDMA_DENY_LOG_LINES denials are logged, one line
// each; the rest are counted. The first call at or after the window's end (a denial, which
// then opens the next window, or flush()) closes it and, if any went unlogged, logs one line
// saying how many, before anything else. Lines, with the time of the call that logs them:
//
//   P4 program denied work request: qp=17 opcode=4 (RDMA_WRITE) length=64
//   P4 program denials not logged: 37 in the 5 s from t=1000000000000 ps
//
// The count line names what it counts ("P4 program denials" by default), so other refusals
// limited the same way (the ionic device's P4 control surface) say what they were.
//
// Times are simulated picoseconds and should not go backwards; one earlier than the window's
// start counts as inside it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace dpusim::p4::rdma {

inline constexpr int P4_RDMA_DENY_LOG_LINES = 10;
inline constexpr std::uint64_t P4_RDMA_DENY_LOG_WINDOW_PS = 5000000000000ull;  // 5 s

using LogSink = std::function<void(std::uint64_t time_ps, const std::string& line)>;

class DenyLog {
 public:
  explicit DenyLog(LogSink sink, std::string what = "P4 program denials")
      : sink_(std::move(sink)), what_(std::move(what)) {}

  // A denial at now_ps, described by `line` (logged as is when within the limit).
  void denied(std::uint64_t now_ps, const std::string& line);
  // Closes the window if it is over by now_ps, logging the count of lines not logged.
  void flush(std::uint64_t now_ps);
  // The end of the open window, if one is open (2^64 - 1 for one opened within 5 s of 2^64).
  bool window_end_ps(std::uint64_t* end_ps) const;

  std::uint64_t logged() const { return logged_total_; }
  std::uint64_t not_logged() const { return not_logged_total_; }

 private:
  void emit(std::uint64_t now_ps, const std::string& line);
  LogSink sink_;
  std::string what_;
  bool open_ = false;
  std::uint64_t start_ps_ = 0;
  int lines_ = 0;                 // denial lines logged in the open window
  std::uint64_t suppressed_ = 0;  // denials not logged in the open window
  std::uint64_t logged_total_ = 0;
  std::uint64_t not_logged_total_ = 0;
};

}  // namespace dpusim::p4::rdma
