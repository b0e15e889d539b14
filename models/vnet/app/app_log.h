// The application's log lines (DOCA_LOG_ERR/WARN/INFO/DBG) as events: `event: "log"` with
// `level` ("error", "warning", "info", "debug") and `msg`, the fully formatted line, at every
// level. The path is the application thread that prints it: "vnet.main" (the TLP thread, PE1),
// "vnet.worker" (pci_cfg_worker), "vnet.mq<n>" (an MQ-start thread). Lines the application
// documents keep its wording exactly; a `%p` of the source prints a stable object id
// (object_id()), never an address.
//
// A live update runs a second process of the application beside the first (live_update.h):
// process `pid` 1 prints on the paths above, process n > 1 on "vnet<n>.main", "vnet<n>.worker",
// "vnet<n>.mq<k>" (thread_path()).
#pragma once

#include <cstdarg>
#include <functional>
#include <string>
#include <string_view>

#include "tlm/sim_context.h"

namespace dpusim::vnet {

inline constexpr const char* kMainThread = "vnet.main";
inline constexpr const char* kWorkerThread = "vnet.worker";

class AppLog {
 public:
  explicit AppLog(pcie::SimContext& ctx, unsigned pid = 1) : ctx_(ctx), pid_(pid) {}

  unsigned pid() const { return pid_; }
  // The event path of `thread` ("vnet.main") in this process ("vnet2.main" in process 2).
  std::string thread_path(std::string_view thread) const;

  void error(std::string_view thread, const char* fmt, ...) __attribute__((format(printf, 3, 4)));
  void warn(std::string_view thread, const char* fmt, ...) __attribute__((format(printf, 3, 4)));
  void info(std::string_view thread, const char* fmt, ...) __attribute__((format(printf, 3, 4)));
  void debug(std::string_view thread, const char* fmt, ...) __attribute__((format(printf, 3, 4)));
  // Sees every line as it is logged (thread, level, message): how a command collects the
  // lines it produced.
  std::function<void(std::string_view thread, const char* level, const char* msg)> tap;

 private:
  void line(std::string_view thread, const char* level, const char* fmt, va_list ap);
  pcie::SimContext& ctx_;
  unsigned pid_;
};

// What `%p` prints for an object of the application: "<kind>@ep<i>" (e.g. "io_ctx@ep0").
std::string object_id(const char* kind, unsigned ep);

}  // namespace dpusim::vnet
