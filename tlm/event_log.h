// The event log: one JSON object per line, keys sorted, no spaces, always `time_ps` (integer),
// `path` (component) and `event`, then the event's fields. The run's identity is the SHA-256 of
// this file, so everything here is deterministic: no addresses, no wall clock, and fields are
// written in key order whatever order a model adds them in.
//
// Watchers (tlm/event_fields.h) let the Python runtime await "the first event matching a
// predicate": when a committed event carries all of a watcher's fields, the log hands the line
// to the watch callback (which pauses the simulation so Python sees that exact instant).
//
// A filter (tlm/log_filter.h) stands in front of the output: it decides which committed lines
// are written (and so hashed), never how events are built. An event whose category is neither
// written, watched nor wanted by a sink is not built at all (its Event is inactive).
//
// Sinks (EventSink) see every committed event as fields, whether or not its line goes to the
// file (while a sink is attached every category is built): the trace writer (trace_writer.h) is
// one. A sink-only event (sink_event()) exists for sinks alone: it is built only while a sink is
// attached, never reaches the file, the line count or the watchers, so attaching a sink leaves
// the log and its hash as they were.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tlm/event_fields.h"
#include "tlm/log_filter.h"
#include "tlm/sha256.h"

namespace dpusim::pcie {

class EventLog;

// A committed event as its sink sees it: the values are the JSON text the line holds ("0x1f"
// with its quotes, 12, true), in key order, `time_ps`, `path` and `event` included.
class EventView {
 public:
  uint64_t time_ps() const { return time_ps_; }
  std::string_view path() const { return path_; }
  std::string_view name() const { return name_; }
  bool sink_only() const { return sink_only_; }

  size_t size() const;
  std::string_view key(size_t i) const;
  std::string_view raw(size_t i) const;
  // The encoded value of `key`, or an empty view when the event has no such field.
  std::string_view raw(std::string_view key) const;
  bool has(std::string_view key) const { return !raw(key).empty(); }
  // An unsigned integer field (`fallback` when absent or not a plain decimal).
  uint64_t u64(std::string_view key, uint64_t fallback = 0) const;
  // A field as text: a JSON string decoded, any other value as written ("true", "12").
  std::string text(std::string_view key) const;
  // The same without a copy, for strings without escapes (a TLP's type, a BDF); a string with
  // escapes comes back encoded, quotes included.
  std::string_view str(std::string_view key) const;
  // Appends the fields other than time_ps, path, event and those in `skip` as one JSON object.
  void append_args(std::string& out, std::initializer_list<std::string_view> skip = {}) const;

  // A JSON value as text (see text()).
  static void append_text(std::string& out, std::string_view raw);

 private:
  friend class EventLog;
  EventView(const EventLog& log, uint64_t time_ps, std::string_view path, std::string_view name, bool sink_only)
      : log_(log), time_ps_(time_ps), path_(path), name_(name), sink_only_(sink_only) {}
  const EventLog& log_;
  uint64_t time_ps_;
  std::string_view path_, name_;
  bool sink_only_;
};

class EventSink {
 public:
  virtual ~EventSink() = default;
  // Called for each committed event, in commit order. It must not log events itself.
  virtual void on_event(const EventView& e) = 0;
};

// Builder of one event. Fields are added in any order; the destructor commits the line.
class Event {
 public:
  Event(Event&& other) noexcept;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  ~Event();

  explicit operator bool() const { return log_ != nullptr; }

  Event& u64(std::string_view key, uint64_t v);
  Event& boolean(std::string_view key, bool v);
  Event& str(std::string_view key, std::string_view v);
  Event& hex(std::string_view key, uint64_t v);           // "0x1f" (a string: JSON has no hex)
  Event& hex_bytes(std::string_view key, const uint8_t* p, size_t n);  // "0a0b0c"
  Event& bdf(std::string_view key, uint16_t routing_id);                 // "bb:dd.f", as lspci
  Event& json(std::string_view key, std::string_view raw);  // an already-encoded JSON value

 private:
  friend class EventLog;
  explicit Event(EventLog* log) : log_(log) {}
  EventLog* log_;
};

class EventLog {
 public:
  EventLog();
  ~EventLog();
  EventLog(const EventLog&) = delete;
  EventLog& operator=(const EventLog&) = delete;

  // Where lines go: a file (created or truncated) or an in-memory buffer (take_memory()).
  void open_file(const std::string& path);
  void open_memory();
  // No file: the lines written are hashed (digest()), for `--log none`.
  void open_digest();
  void close();
  std::string take_memory();
  // The SHA-256 of what a digest-only log was given (after close()).
  std::string digest() const { return sha_.hex(); }

  // Which categories are written (LogFilter::mask()); all of them by default.
  void set_filter(uint64_t written_categories);
  // Whether an event of this kind would be built: its category is written or watched.
  bool wants(const EventKind& kind) const { return enabled_ && (build_mask_ & kind.bit()); }
  bool writes(const EventCategory& c) const { return write_mask_ & c.bit(); }

  // Off only inside benchmarks that measure the log's cost; a run always logs.
  bool enabled() const { return enabled_; }
  void set_enabled(bool on) { enabled_ = on; }

  // Starts an event at simulated time `time_ps`. Inactive (all calls no-ops) when disabled.
  Event event(uint64_t time_ps, std::string_view path, std::string_view name);
  // The same for a declared kind: its category is tested before anything is built.
  Event event(uint64_t time_ps, std::string_view path, const EventKind& kind);
  // Starts an event for the sinks only (see the header comment): inactive without a sink.
  Event sink_event(uint64_t time_ps, std::string_view path, std::string_view name);
  bool has_sinks() const { return !sinks_.empty(); }
  // The sink is not owned; it stays attached until remove_sink() or the log's end.
  void add_sink(EventSink* sink);
  void remove_sink(EventSink* sink);

  uint64_t lines() const { return lines_; }

  // Watchers: see the header comment. Returns the watcher id.
  using WatchFn = EventWatchers::Fn;
  void set_watch_callback(WatchFn fn) { watch_fn_ = std::move(fn); }
  uint64_t add_watcher(EventWatchers::Match match, bool once);
  void remove_watcher(uint64_t id);

  static void append_json_string(std::string& out, std::string_view s);

 private:
  friend class Event;
  friend class EventView;
  void commit();
  void flush();
  void update_watched_mask();
  Event start(uint64_t time_ps, std::string_view path, std::string_view name, uint64_t category_bit,
              bool sink_only);
  void update_build_mask();
  void notify_sinks();

  bool enabled_ = true;
  bool building_ = false;
  bool sink_only_ = false;  // the event being built is for the sinks only
  uint64_t time_ps_ = 0;    // ... and its time
  std::vector<EventSink*> sinks_;
  FILE* file_ = nullptr;
  bool memory_ = false;
  std::string out_;      // pending output (flushed to the file at 64 KiB)
  EventFields fields_;   // of the event being built
  uint64_t lines_ = 0;
  // The filter: categories written, watched (every one while a sink is attached), and so built; whether the event being built is
  // written; a digest-only output.
  uint64_t write_mask_ = ~uint64_t(0), watched_mask_ = 0, build_mask_ = ~uint64_t(0);
  bool writing_ = true;
  bool digest_ = false;
  Sha256 sha_;

  EventWatchers watchers_;
  WatchFn watch_fn_;
};

}  // namespace dpusim::pcie
