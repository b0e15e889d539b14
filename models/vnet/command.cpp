// The application's stdin commands (vnet-app.md §8.6; vnet_pci_dev_core.c read_cli_command and
// run_progress_loop) and what each one came to. The main loop parses a line and queues a work
// item; the worker runs it (hotplug: trigger_hotplug_event; speed: the speed change). A
// command's outcome is logged as the event "command" once known: REJECTED (the main thread
// refused the line), IGNORED (empty line, or stdin ignored while shutting down), DROPPED (no
// item could be queued), SKIPPED (the item was stale), or the result of its item: OK, or the
// DOCA error's name without "DOCA_ERROR_" (AGAIN, IN_PROGRESS, NOT_FOUND, ALREADY_EXIST,
// NOT_SUPPORTED, BAD_STATE). `lines` are the application's lines it produced: the main
// thread's while parsing and the worker's while running its item.
#include <cstdio>

#include "vnet/vnet_app.h"

namespace dpusim::vnet {

uint64_t VnetApp::command(const std::string& text) {
  Command cmd;
  cmd.id = next_command_++;
  cmd.line = text;
  if (shutting_down_) {  // the shutdown wait keeps the loop running but ignores stdin
    finish_command(cmd, "IGNORED");
    return cmd.id;
  }
  main_capture_ = &cmd;
  const char* outcome = nullptr;
  uint64_t item = 0;
  const std::string line = text.substr(0, 127);  // fgets into char[128]
  const size_t start = line.find_first_not_of(" \t\n\r");
  char word[32] = {0};
  unsigned idx = 0;
  int speed = 0;
  const char* s = line.c_str();  // sscanf itself skips the leading blanks
  if (start == std::string::npos) {
    outcome = "IGNORED";  // an empty line is silently ignored
  } else if (std::sscanf(s, "%31s %u %d", word, &idx, &speed) == 3 && std::string(word) == "speed") {
    if (idx >= num_ep()) {
      log_.error(kMainThread, "EP index %u out of range (max: %u)", idx, num_ep() - 1);
      outcome = "REJECTED";
    } else if (speed <= 0) {
      log_.error(kMainThread, "Speed value must be greater than 0 Mbps");
      outcome = "REJECTED";
    } else {
      log_.info(kMainThread, "Speed change EP[%u] to %u Mbps (queuing to worker)", idx, unsigned(speed));
      if (!controllers_[idx].device_present) {
        log_.debug(kMainThread, "%s work dropped - no active VirtIO device", "Speed change");
        outcome = "DROPPED";
      } else {
        WorkItem it;
        it.type = WorkType::SPEED_CHANGE;
        it.device = int(idx);
        it.generation = devices_[idx]->reset_generation;
        it.arg = uint32_t(speed);
        if (!wq_.submit(it, &item)) {
          if (!wq_.shut_down()) log_.error(kMainThread, "Failed to alloc work item for speed change");
          outcome = "DROPPED";
        } else {
          log_.info(kMainThread, "Speed change to %u Mbps queued (async)", unsigned(speed));
        }
      }
    }
  } else if (std::sscanf(s, "%31s %u", word, &idx) == 2 && idx >= num_ep()) {
    log_.error(kMainThread, "EP index %u out of range (max: %u)", idx, num_ep() - 1);
    outcome = "REJECTED";
  } else if (std::sscanf(s, "%31s %u", word, &idx) == 2 && (std::string(word) == "plug" || std::string(word) == "unplug")) {
    const bool plug = std::string(word) == "plug";
    if (opt_.static_mode()) {
      log_.error(kMainThread, "Hotplug commands require --hotplug mode");
      outcome = "REJECTED";
    } else {
      log_.info(kMainThread, "%s on DSP[%u] (queuing to worker thread)", plug ? "PLUG" : "UNPLUG", idx);
      WorkItem it;
      it.type = WorkType::HOTPLUG_EVENT;
      it.arg = idx;
      it.arg2 = plug ? 1 : 0;
      if (!wq_.submit(it, &item)) {
        if (!wq_.shut_down()) log_.error(kMainThread, "Failed to alloc work item for hotplug event DSP[%u]", idx);
        outcome = "DROPPED";
      } else {
        log_.info(kMainThread, "Hotplug event queued: DSP[%u] %s (async - main thread stays on PE progress)", idx,
                  word);
      }
    }
  } else {
    log_.error(kMainThread, "Unknown command. Usage: plug <idx> | unplug <idx> | speed <idx> <mbps>");
    outcome = "REJECTED";
  }
  main_capture_ = nullptr;
  const uint64_t id = cmd.id;
  if (outcome) finish_command(cmd, outcome);
  else commands_by_item_[item] = std::move(cmd);
  return id;
}

void VnetApp::command_item_started(const WorkItem& it) {
  item_result_ = nullptr;
  auto found = commands_by_item_.find(it.id);
  if (found == commands_by_item_.end()) return;
  running_command_ = std::move(found->second);
  commands_by_item_.erase(found);
  worker_capture_ = &running_command_;
}

void VnetApp::command_item_done(const WorkItem& it, bool skipped) {
  auto found = commands_by_item_.find(it.id);
  if (skipped && found != commands_by_item_.end()) {
    finish_command(found->second, "SKIPPED");
    commands_by_item_.erase(found);
    return;
  }
  if (!worker_capture_) return;
  worker_capture_ = nullptr;
  std::string outcome = item_result_ ? item_result_ : "OK";
  if (outcome.rfind("DOCA_ERROR_", 0) == 0) outcome = outcome.substr(11);
  finish_command(running_command_, outcome.c_str());
}

void VnetApp::finish_command(const Command& c, const char* outcome) {
  std::string lines = "[";
  for (size_t k = 0; k < c.lines.size(); ++k) {
    // Keys in order, as every object of the log.
    lines += k ? ",{\"level\":" : "{\"level\":";
    pcie::EventLog::append_json_string(lines, c.lines[k].level);
    lines += ",\"msg\":";
    pcie::EventLog::append_json_string(lines, c.lines[k].msg);
    lines += ",\"path\":";
    pcie::EventLog::append_json_string(lines, c.lines[k].path);
    lines += "}";
  }
  lines += "]";
  // Never inside command() itself: the caller learns the id first, then awaits the event.
  later_.at(sc_core::SC_ZERO_TIME, [this, id = c.id, line = c.line, out = std::string(outcome), lines] {
    ctx_.event(kMainThread, "command").u64("id", id).str("line", line).str("outcome", out).json("lines", lines);
  });
}

}  // namespace dpusim::vnet
