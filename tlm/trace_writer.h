// The run's trace in the Chrome trace event format (trace.json: ui.perfetto.dev, the legacy
// chrome://tracing viewer): an EventSink that turns the event stream into tracks, slices,
// instants and flows by the rules of a TraceRules table (trace_rules.h), and writes them at
// the end of the run, ordered by time.
//
// What it writes (the Trace Event Format document of the Chromium project): one object with
// "traceEvents": metadata events "M" naming each process and thread (process_name,
// thread_name, and their sort indexes), slices as "B"/"E" pairs (a slice of no length as an
// "X" with dur 0), thread-scoped instants "i", and flow events "s"/"f" (an id; the "f" binds
// to the slice enclosing it, "bp":"e"). `ts` is simulated microseconds written exactly,
// time_ps / 10^6 with six decimals, so that no two times the simulation tells apart collapse
// into one. Records are ordered by time (finish()); nothing depends on pointers, the wall
// clock or hash order: the same event stream gives the same bytes.
//
// Slices of one track never overlap unless nested: a slice that would overlap an earlier one
// without nesting goes to the track's next lane, its own thread named "<thread> (2)" and so on.
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tlm/event_log.h"
#include "tlm/trace_rules.h"
#include "tlm/trace_tasks.h"

namespace dpusim::pcie {

// Where a slice landed: the (pid, tid) pair of its lane.
struct TraceLane {
  uint32_t pid = 0, tid = 0;
};

class TraceWriter : public EventSink {
 public:
  explicit TraceWriter(const TraceRules& rules);
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;
  ~TraceWriter() override;

  void on_event(const EventView& e) override;

  // Ends what is still open at `end_ps` (slices and states, with "open_at_end": true); nothing
  // may be added afterwards.
  void finish(uint64_t end_ps);
  // The trace as JSON text (after finish()); write() streams the same bytes to a file and
  // throws std::runtime_error naming the path when it cannot be written.
  std::string text() const;
  void write(const std::string& path) const;

  // The host's tasks (trace_tasks.h), reported by the Python runtime at simulated time `ps`.
  void task_spawn(uint64_t ps, uint64_t task, std::string_view name) {
    if (!finished_) tasks_.spawn(*this, ps, task, name);
  }
  void task_wait(uint64_t ps, uint64_t task, std::string_view what) {
    if (!finished_) tasks_.wait(*this, ps, task, what);
  }
  void task_end(uint64_t ps, uint64_t task, std::string_view outcome) {
    if (!finished_) tasks_.end(*this, ps, task, outcome);
  }

  // ---- for handlers and the rules ---------------------------------------------------------
  uint32_t track(std::string_view process, std::string_view thread);
  // A slice [begin_ps, end_ps] named `name`; `args` is a JSON object's text. With `lanes`, a
  // slice that overlaps the track's earlier ones goes to the next free lane.
  TraceLane slice(uint32_t track, uint64_t begin_ps, uint64_t end_ps, std::string_view name, std::string_view cat,
                  std::string_view args, bool lanes = true);
  void instant(uint32_t track, uint64_t ps, std::string_view name, std::string_view cat, std::string_view args);
  // An arrow from the slice at `from` enclosing from_ps to the one at `to` enclosing to_ps.
  void flow(TraceLane from, uint64_t from_ps, TraceLane to, uint64_t to_ps, std::string_view name,
            std::string_view cat);

  // The event as an instant on its component's track: process = the path up to its first dot,
  // thread = the rest (or "events"); what an event without a rule becomes.
  void default_instant(const EventView& e);

  // "0.002635": picoseconds as exact microseconds.
  static void append_us(std::string& out, uint64_t ps);
  size_t records() const { return recs_.size(); }

 private:
  struct Lane {
    uint32_t tid;
    uint64_t busy_until;
  };
  struct Track {
    uint32_t pid, index;
    std::string thread;
    std::vector<Lane> lanes;
  };
  struct Open {
    uint32_t track;
    uint64_t begin_ps;
    std::string name, cat, args;
    bool lanes;
  };
  // Order of records at one time (see finish()).
  enum Rank : uint8_t { kEnd, kPoint, kBegin, kInstant, kFlow };
  struct Rec {
    uint64_t ts;
    uint64_t key;  // an end: its slice's begin; a begin: its slice's length
    uint8_t rank;
    uint64_t seq;
    uint32_t chunk;  // where its text is: chunks_[chunk], from off, len bytes
    uint64_t off, len;
  };
  static constexpr size_t kChunkBytes = 1 << 20;

  void apply(const TraceRules::Compiled& c, const EventView& e);
  const Lane& add_lane(Track& t);
  void close(const Open& o, uint64_t end_ps, std::string_view end_args);
  Rec& begin_record(uint64_t ts, uint64_t key, uint8_t rank, std::string_view ph, TraceLane at);
  void end_record(Rec& r);
  template <typename Out>
  void emit(Out&& out) const;

  const TraceRules& rules_;
  std::vector<std::unique_ptr<TraceHandler>> handlers_;
  TaskTrace tasks_;
  std::map<std::string, uint32_t, std::less<>> processes_;
  std::map<std::string, uint32_t, std::less<>> track_index_;  // "process\x1fthread"
  std::vector<Track> tracks_;
  std::vector<std::string> lane_text_;  // by tid: its records' ",\"pid\":..,\"tid\":.." text
  std::map<std::string, Open, std::less<>> open_;  // Begin slices by key
  std::map<uint32_t, Open> states_;                // by track
  std::string meta_;   // metadata records, in order of creation
  std::vector<std::string> chunks_;  // record texts
  std::string* arena_ = nullptr;     // the chunk being written
  std::vector<Rec> recs_;
  uint32_t next_tid_ = 1;
  uint64_t next_flow_ = 1;
  bool finished_ = false;
  std::string buf_, proc_, thread_, name_, key_, args_;  // scratch, reused per event
};

}  // namespace dpusim::pcie
