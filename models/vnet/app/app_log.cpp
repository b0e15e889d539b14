#include "vnet/app/app_log.h"

#include <cstdio>

namespace dpusim::vnet {

void AppLog::line(std::string_view thread, const char* level, const char* fmt, va_list ap) {
  char buf[512];
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  if (pid_ == 1) ctx_.event(thread, "log").str("level", level).str("msg", buf);
  else ctx_.event(thread_path(thread), "log").str("level", level).str("msg", buf);
  if (tap) tap(thread, level, buf);
}

#define DPUSIM_APP_LOG_LEVEL(fn, name)                    \
  void AppLog::fn(std::string_view thread, const char* fmt, ...) { \
    va_list ap;                                           \
    va_start(ap, fmt);                                    \
    line(thread, name, fmt, ap);                          \
    va_end(ap);                                           \
  }
DPUSIM_APP_LOG_LEVEL(error, "error")
DPUSIM_APP_LOG_LEVEL(warn, "warning")
DPUSIM_APP_LOG_LEVEL(info, "info")
DPUSIM_APP_LOG_LEVEL(debug, "debug")
#undef DPUSIM_APP_LOG_LEVEL

std::string AppLog::thread_path(std::string_view thread) const {
  if (pid_ == 1 || thread.substr(0, 5) != "vnet.") return std::string(thread);
  return "vnet" + std::to_string(pid_) + std::string(thread.substr(4));
}

std::string object_id(const char* kind, unsigned ep) { return std::string(kind) + "@ep" + std::to_string(ep); }

}  // namespace dpusim::vnet
