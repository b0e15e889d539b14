// The event log of a unit test, read back as JSON objects: the log is opened in memory, and
// every call reads what was written since the last one. Tests assert on events (name, path,
// fields, time) and on the application log lines ("log" events), as a user reads events.jsonl.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "tlm/event_log.h"

namespace dpusim::testing {

using Json = nlohmann::json;

class EventRecord {
 public:
  // Opens `log` in memory: construct before the models, so their first events are kept.
  explicit EventRecord(pcie::EventLog& log) : log_(log) { log_.open_memory(); }

  // Every event so far, in log order.
  const std::vector<Json>& all() {
    pull();
    return events_;
  }
  // A position in the log: events after it are since(mark()).
  size_t mark() { return all().size(); }

  // The events named `event` at or after position `from` whose fields include `fields` (an
  // object; its values compare as JSON values, so hex fields are strings: {"data": "0x33"}).
  std::vector<Json> find(const std::string& event, const Json& fields = Json::object(), size_t from = 0) {
    std::vector<Json> out;
    const std::vector<Json>& ev = all();
    for (size_t i = from; i < ev.size(); ++i) {
      if (ev[i].value("event", "") != event) continue;
      bool match = true;
      for (auto it = fields.begin(); it != fields.end() && match; ++it)
        match = ev[i].contains(it.key()) && ev[i][it.key()] == it.value();
      if (match) out.push_back(ev[i]);
    }
    return out;
  }
  size_t count(const std::string& event, const Json& fields = Json::object(), size_t from = 0) {
    return find(event, fields, from).size();
  }

  // The application log lines ("log" events) of `path` (all paths when empty), from `from`.
  std::vector<std::string> lines(const std::string& path = "", size_t from = 0) {
    std::vector<std::string> out;
    for (const Json& e : find("log", Json::object(), from))
      if (path.empty() || e.value("path", "") == path) out.push_back(e.value("msg", ""));
    return out;
  }
  // How many times the line `msg` was logged (any path, any level).
  size_t line_count(const std::string& msg, size_t from = 0) { return count("log", Json{{"msg", msg}}, from); }
  // The time of the first line `msg`; fails the test (and returns UINT64_MAX) when there is none.
  uint64_t line_time(const std::string& msg, size_t from = 0) {
    const auto found = find("log", Json{{"msg", msg}}, from);
    if (found.empty()) {
      ADD_FAILURE() << "no log line \"" << msg << "\"";
      return UINT64_MAX;
    }
    return found.front()["time_ps"].get<uint64_t>();
  }
  // The level ("error", "warning", "info", "debug") of the first line `msg`, or "".
  std::string line_level(const std::string& msg) {
    const auto found = find("log", Json{{"msg", msg}});
    return found.empty() ? "" : found.front().value("level", "");
  }

 private:
  void pull() {
    const std::string text = log_.take_memory();
    size_t start = 0;
    while (start < text.size()) {
      size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      if (end > start) events_.push_back(Json::parse(text.begin() + std::ptrdiff_t(start), text.begin() + std::ptrdiff_t(end)));
      start = end + 1;
    }
  }

  pcie::EventLog& log_;
  std::vector<Json> events_;
};

}  // namespace dpusim::testing
