// The rules that turn the event stream into a Chrome trace (trace_writer.h): which events mark
// an instant, begin or end a slice, set a track's state or span a time range, and on which
// track. The transaction layer registers its own (TLP hops and round trips, log lines, link
// states: trace_tlp.cpp and the constructor); each model layer registers the rules of its own
// events when it is built, through SimContext::trace_rules, so this layer names no device. An
// event that no rule names becomes an instant on its component's track, with its fields.
//
// A track is a (process, thread) pair of names, rendered from templates over the event; the
// trace gives each its own (pid, tid) and names them with metadata events.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace dpusim::pcie {

class EventView;
class TraceWriter;

// Text with placeholders: {path}, {path.head} (the path up to its first dot), {path.tail}
// (after it, or "events" when the path has no dot), {event}, or a field's name (its value as
// text: a JSON string decoded). A field the event lacks renders as "?".
class TraceTemplate {
 public:
  TraceTemplate() = default;
  // Throws std::invalid_argument naming the template when a brace is unbalanced or empty.
  explicit TraceTemplate(std::string_view text);
  void render(const EventView& e, std::string& out) const;
  const std::string& text() const { return text_; }

 private:
  enum class Kind { Literal, Path, PathHead, PathTail, Event, Field };
  struct Part {
    Kind kind;
    std::string text;
  };
  std::vector<Part> parts_;
  std::string text_;
};

enum class TraceKind {
  Instant,  // a point named `name` on the track
  Begin,    // opens a slice named `name` on the track under `key` (ending the one open under
            // that key, if any, at this time)
  End,      // closes the slice open under `key`, if any (its track and name are the Begin's)
  State,    // the track is in state `name` from this event until its next State event
  Span,     // a whole slice from the time in field `from` to the time in field `to` (ps)
  Ignore,   // not in the trace (the event is shown some other way)
};

struct TraceRule {
  std::string event;  // the event name the rule applies to
  TraceKind kind = TraceKind::Instant;
  std::string process = "{path.head}";
  std::string thread = "{path.tail}";
  std::string name = "{event}";
  std::string key;                     // Begin and End
  std::string from, to;                // Span
  std::string when_field, when_value;  // only events whose field has this text, if set
  // Overlapping slices of a track go to extra lanes ("name (2)"); false when the producer
  // guarantees that the track's slices nest (a task and the waits inside it).
  bool lanes = true;
  std::string category;  // the trace events' "cat" (default: the event name)

  static TraceRule instant(std::string event, std::string process, std::string thread, std::string name);
  static TraceRule begin(std::string event, std::string key, std::string process, std::string thread,
                         std::string name);
  static TraceRule end(std::string event, std::string key);
  static TraceRule state(std::string event, std::string process, std::string thread, std::string name);
  static TraceRule span(std::string event, std::string from, std::string to, std::string process,
                        std::string thread, std::string name);
  static TraceRule ignore(std::string event);
  TraceRule& only_when(std::string field, std::string value);
  TraceRule& nested();
  TraceRule& in_category(std::string c);
};

// State a handler keeps across events (TLP pairing): one instance per trace, made by the
// factory registered for its event names.
class TraceHandler {
 public:
  virtual ~TraceHandler() = default;
  virtual void on_event(const EventView& e, TraceWriter& out) = 0;
  // At the end of the run: whatever is still open ends at `end_ps`.
  virtual void finish(uint64_t end_ps, TraceWriter& out) = 0;
};

class TraceRules {
 public:
  struct Compiled {
    TraceRule rule;
    TraceTemplate process, thread, name, key;
  };
  using Factory = std::function<std::unique_ptr<TraceHandler>()>;

  TraceRules();  // with the transaction layer's own rules

  // Adds a rule (an identical rule already there is kept once). Throws std::invalid_argument
  // naming the rule when a template is malformed or a field the kind needs is missing.
  void add(const TraceRule& r);
  // One handler instance per trace receives every event named in `events`.
  void add_handler(std::vector<std::string> events, Factory factory);

  // What applies to an event: its handler's index in handlers() (or -1) and its rules.
  struct Entry {
    int handler = -1;
    std::vector<Compiled> rules;
  };
  const Entry* find(std::string_view event) const;
  const std::vector<Compiled>* rules_for(std::string_view event) const;
  const std::vector<Factory>& handlers() const { return factories_; }

 private:
  std::map<std::string, Entry, std::less<>> entries_;
  std::vector<Factory> factories_;
};

// The transaction layer's TLP handler (trace_tlp.cpp): hops on link tracks, round trips per
// requester, flows between hops and from each request to its completion.
std::unique_ptr<TraceHandler> make_tlp_trace();

}  // namespace dpusim::pcie
