#include "vnet/app/command.h"

#include "vnet/sriov/sriov.h"

#include <cstdio>

namespace dpusim::vnet {

Console::Console(AppEnv& env, AppDevices& devs, AppWork& work) : env_(env), devs_(devs), work_(work) {
  env_.log.tap = [this](std::string_view thread, const char* level, const char* msg) {
    Command* c = thread == kMainThread ? main_capture_ : thread == kWorkerThread ? worker_capture_ : nullptr;
    if (c) c->lines.push_back(Command::Line{std::string(thread), level, msg});
  };
}

uint64_t Console::command(const std::string& text) {
  Command cmd;
  cmd.id = next_++;
  cmd.line = text;
  if (env_.shutting_down) {  // the shutdown wait keeps the loop running but ignores stdin
    finish(cmd, "IGNORED");
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
    if (idx >= devs_.num_ep()) {
      env_.log.error(kMainThread, "EP index %u out of range (max: %u)", idx, devs_.num_ep() - 1);
      outcome = "REJECTED";
    } else if (speed <= 0) {
      env_.log.error(kMainThread, "Speed value must be greater than 0 Mbps");
      outcome = "REJECTED";
    } else {
      env_.log.info(kMainThread, "Speed change EP[%u] to %u Mbps (queuing to worker)", idx, unsigned(speed));
      if (!devs_.controllers[idx].device_present) {
        env_.log.debug(kMainThread, "%s work dropped - no active VirtIO device", "Speed change");
        outcome = "DROPPED";
      } else {
        WorkItem it;
        it.type = WorkType::SPEED_CHANGE;
        it.device = int(idx);
        it.generation = devs_.devices[idx]->reset_generation;
        it.arg = uint32_t(speed);
        if (!work_.wq.submit(it, &item)) {
          if (!work_.wq.shut_down()) env_.log.error(kMainThread, "Failed to alloc work item for speed change");
          outcome = "DROPPED";
        } else {
          env_.log.info(kMainThread, "Speed change to %u Mbps queued (async)", unsigned(speed));
        }
      }
    }
  } else if (std::sscanf(s, "%31s %u", word, &idx) == 2 && idx >= devs_.num_ep()) {
    env_.log.error(kMainThread, "EP index %u out of range (max: %u)", idx, devs_.num_ep() - 1);
    outcome = "REJECTED";
  } else if (std::sscanf(s, "%31s %u", word, &idx) == 2 && (std::string(word) == "plug" || std::string(word) == "unplug")) {
    const bool plug = std::string(word) == "plug";
    const std::string sriov_refusal = !plug && devs_.sriov ? devs_.sriov->unplug_refusal(idx) : std::string();
    if (env_.opt.static_mode()) {
      env_.log.error(kMainThread, "Hotplug commands require --hotplug mode");
      outcome = "REJECTED";
    } else if (!sriov_refusal.empty()) {
      env_.log.error(kMainThread, "%s", sriov_refusal.c_str());
      outcome = "REJECTED";
    } else {
      env_.log.info(kMainThread, "%s on DSP[%u] (queuing to worker thread)", plug ? "PLUG" : "UNPLUG", idx);
      WorkItem it;
      it.type = WorkType::HOTPLUG_EVENT;
      it.arg = idx;
      it.arg2 = plug ? 1 : 0;
      if (!work_.wq.submit(it, &item)) {
        if (!work_.wq.shut_down()) env_.log.error(kMainThread, "Failed to alloc work item for hotplug event DSP[%u]", idx);
        outcome = "DROPPED";
      } else {
        env_.log.info(kMainThread, "Hotplug event queued: DSP[%u] %s (async - main thread stays on PE progress)", idx,
                  word);
      }
    }
  } else {
    env_.log.error(kMainThread, "Unknown command. Usage: plug <idx> | unplug <idx> | speed <idx> <mbps>");
    outcome = "REJECTED";
  }
  main_capture_ = nullptr;
  const uint64_t id = cmd.id;
  if (outcome) finish(cmd, outcome);
  else by_item_[item] = std::move(cmd);
  return id;
}

void Console::item_started(const WorkItem& it) {
  work_.item_result = nullptr;
  auto found = by_item_.find(it.id);
  if (found == by_item_.end()) return;
  running_ = std::move(found->second);
  by_item_.erase(found);
  worker_capture_ = &running_;
}

void Console::item_done(const WorkItem& it, bool skipped) {
  auto found = by_item_.find(it.id);
  if (skipped && found != by_item_.end()) {
    finish(found->second, "SKIPPED");
    by_item_.erase(found);
    return;
  }
  if (!worker_capture_) return;
  worker_capture_ = nullptr;
  std::string outcome = work_.item_result ? work_.item_result : "OK";
  if (outcome.rfind("DOCA_ERROR_", 0) == 0) outcome = outcome.substr(11);
  finish(running_, outcome.c_str());
}

void Console::finish(const Command& c, const char* outcome) {
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
  env_.later.at(sc_core::SC_ZERO_TIME, [this, id = c.id, line = c.line, out = std::string(outcome), lines] {
    env_.ctx.event(env_.log.thread_path(kMainThread), "command").u64("id", id).str("line", line).str("outcome", out).json("lines", lines);
  });
}

}  // namespace dpusim::vnet
