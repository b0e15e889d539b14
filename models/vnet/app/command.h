// The application's stdin commands (DOCA vnet_pci_dev's read_cli_command and the main loop's
// handling): "plug <i>", "unplug <i>", "speed <i> <mbps>", each parsed on the main thread and
// queued to the worker as an item. A command's outcome is logged as the event "command" once
// known: REJECTED (the main thread refused the line), IGNORED (empty line, or stdin ignored
// while shutting down), DROPPED (no item could be queued), SKIPPED (the item was stale), or
// the result of its item: OK, or the DOCA error's name without "DOCA_ERROR_" (AGAIN,
// IN_PROGRESS, NOT_FOUND, ALREADY_EXIST, NOT_SUPPORTED, BAD_STATE). `lines` are the
// application's lines it produced: the main thread's while parsing and the worker's while
// running its item.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "vnet/app/app_state.h"

namespace dpusim::vnet {

class Console {
 public:
  // Taps the application's log (the lines a command produced are its own).
  Console(AppEnv& env, AppDevices& devs, AppWork& work);

  // A line on stdin; returns the command's number (its outcome comes later as an event).
  uint64_t command(const std::string& line);
  // The worker starts / finished (or skipped) an item.
  void item_started(const WorkItem& it);
  void item_done(const WorkItem& it, bool skipped);

 private:
  struct Command {
    uint64_t id = 0;
    std::string line;
    struct Line {
      std::string path, level, msg;
    };
    std::vector<Line> lines;  // the application's lines it produced
  };
  void finish(const Command& c, const char* outcome);

  AppEnv& env_;
  AppDevices& devs_;
  AppWork& work_;
  uint64_t next_ = 1;
  std::map<uint64_t, Command> by_item_;  // commands whose item has not run yet
  Command* worker_capture_ = nullptr;
  Command* main_capture_ = nullptr;
  Command running_;
};

}  // namespace dpusim::vnet
