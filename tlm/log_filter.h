// What the event log writes: a level (`all`, `summary`, `none`) and per-category filters, applied
// in front of the JSON-lines output and its hash, never to how an event is built or to what
// the simulation does.
//
// Every event belongs to a category. A model declares the categories of its high-volume events
// beside them, as it declares its timing parameters (`const EventCategory` in the model's .cpp,
// registered at start), and names those events with an `EventKind` so that the log tests the
// category before anything is formatted: an event nobody wants costs a bit test. Events not
// declared anywhere belong to `state` (state changes, work items, register writes...); the
// event `log` (log lines of the scenario and the modelled applications) to `log`.
//
//   all      every category (the default: every existing run's log and hash are unchanged)
//   summary  the categories that say what happened, not every step of it: those declared with
//            in_summary (state, log, msi, the per-second frame counters...), not tlp, frame...
//   none     nothing is written; the log keeps the SHA-256 of the summary stream instead
//            (`hash (summary): ...`), so two runs can still be compared.
// `keep` adds categories to the level's set, `omit` removes them (not with `none`).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace dpusim::pcie {

class EventCategory {
 public:
  // Registers the category (at static initialisation). `in_summary`: the summary level keeps it.
  EventCategory(const char* name, bool in_summary, const char* what);
  EventCategory(const EventCategory&) = delete;
  EventCategory& operator=(const EventCategory&) = delete;
  const char* name() const { return name_; }
  bool in_summary() const { return in_summary_; }
  const char* what() const { return what_; }
  uint64_t bit() const { return uint64_t(1) << index_; }

  // Every registered category, in registration order (which only the bits depend on: list
  // them sorted by name); find() by name (null if none).
  static const std::vector<const EventCategory*>& all();
  static const EventCategory* find(std::string_view name);

 private:
  const char* name_;
  bool in_summary_;
  const char* what_;
  unsigned index_;
};

// The categories of the transaction layer's own events (tlm/): TLPs on links, direct memory
// accesses of loosely timed requesters, and the defaults.
namespace category {
extern const EventCategory tlp, dma, state, log;
}

// An event name and its category, declared once by the model that logs it; EventLog::event
// taking a kind checks the category before building. Registering a name maps the string form
// (EventLog::event by name) to the same category.
class EventKind {
 public:
  EventKind(const char* name, const EventCategory& category);
  EventKind(const EventKind&) = delete;
  EventKind& operator=(const EventKind&) = delete;
  const char* name() const { return name_; }
  const EventCategory& category() const { return *category_; }
  uint64_t bit() const { return category_->bit(); }
  // The category of an event logged by name: its kind's, `log` for "log", else `state`.
  static const EventCategory& category_of(std::string_view name);

 private:
  const char* name_;
  const EventCategory* category_;
};

enum class LogLevel { All, Summary, None };
const char* log_level_name(LogLevel l);

struct LogFilter {
  LogLevel level = LogLevel::All;
  std::vector<std::string> keep, omit;  // category names

  // Throws std::invalid_argument naming an unknown level or category (and the known ones), or
  // keep/omit given with `none`.
  static LogLevel parse_level(const std::string& name);
  void check() const;
  // The categories written to the file (all, summary: the level's set with keep and omit
  // applied) or, for none, hashed without being written (the summary set).
  uint64_t mask() const;
  std::string describe() const;  // "summary, keep frame, omit msi"
};

}  // namespace dpusim::pcie
