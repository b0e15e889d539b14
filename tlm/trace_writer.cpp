#include "tlm/trace_writer.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "tlm/decimal.h"

namespace dpusim::pcie {

namespace {

// ",\"pid\":1,\"tid\":2": what every record of a lane says, made once per lane.
std::string pid_tid_text(TraceLane at) {
  std::string out = ",\"pid\":";
  append_decimal(out, at.pid);
  out.append(",\"tid\":");
  append_decimal(out, at.tid);
  return out;
}

void append_name_cat(std::string& out, std::string_view name, std::string_view cat) {
  out.append(",\"name\":");
  EventLog::append_json_string(out, name);
  out.append(",\"cat\":");
  EventLog::append_json_string(out, cat);
}

// {"a":1} + ("end", {"b":2}) -> {"a":1,"end":{"b":2}}
void merge_args(std::string& out, std::string_view args, std::string_view key, std::string_view value) {
  out.assign(args.substr(0, args.size() - 1));
  if (out.size() > 1) out.push_back(',');
  EventLog::append_json_string(out, key);
  out.push_back(':');
  out.append(value);
  out.push_back('}');
}

void meta(std::string& out, std::string_view what, uint32_t pid, uint32_t tid, std::string_view key,
          std::string_view value) {
  out.append("{\"ph\":\"M\",\"pid\":");
  append_decimal(out, pid);
  out.append(",\"tid\":");
  append_decimal(out, tid);
  out.append(",\"name\":\"");
  out.append(what);
  out.append("\",\"args\":{\"");
  out.append(key);
  out.append("\":");
  out.append(value);
  out.append("}},\n");
}
}  // namespace

TraceWriter::TraceWriter(const TraceRules& rules) : rules_(rules) {
  // The default scenario makes about 35 000 records: growing the vector copied them, again
  // and again (reserved address space is not touched until used).
  recs_.reserve(1 << 16);
}

TraceWriter::~TraceWriter() = default;

void TraceWriter::append_us(std::string& out, uint64_t ps) {
  // The six decimals two digits at a time: every record has a time.
  static constexpr char kPairs[] =
      "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
      "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
      "8081828384858687888990919293949596979899";
  append_decimal(out, ps / 1000000);
  uint32_t f = uint32_t(ps % 1000000);
  char frac[7];
  frac[0] = '.';
  for (int i = 5; i >= 1; i -= 2) {
    const uint32_t pair = f % 100;
    f /= 100;
    frac[i] = kPairs[2 * pair];
    frac[i + 1] = kPairs[2 * pair + 1];
  }
  out.append(frac, 7);
}

uint32_t TraceWriter::track(std::string_view process, std::string_view thread) {
  key_.assign(process);
  key_.push_back('\x1f');
  key_.append(thread);
  if (auto it = track_index_.find(std::string_view(key_)); it != track_index_.end()) return it->second;
  uint32_t pid;
  if (auto p = processes_.find(process); p != processes_.end()) {
    pid = p->second;
  } else {
    pid = uint32_t(processes_.size() + 1);
    processes_.emplace(std::string(process), pid);
    buf_.clear();
    EventLog::append_json_string(buf_, process);
    meta(meta_, "process_name", pid, 0, "name", buf_);
    buf_.clear();
    append_decimal(buf_, pid);
    meta(meta_, "process_sort_index", pid, 0, "sort_index", buf_);
  }
  const uint32_t index = uint32_t(tracks_.size());
  tracks_.push_back(Track{pid, index, std::string(thread), {}});
  track_index_.emplace(key_, index);
  add_lane(tracks_.back());
  return index;
}

const TraceWriter::Lane& TraceWriter::add_lane(Track& t) {
  const uint32_t tid = next_tid_++;
  t.lanes.push_back(Lane{tid, 0});
  if (lane_text_.size() <= tid) lane_text_.resize(tid + 1);
  lane_text_[tid] = pid_tid_text(TraceLane{t.pid, tid});
  std::string name = t.thread;
  if (t.lanes.size() > 1) name += " (" + std::to_string(t.lanes.size()) + ")";
  buf_.clear();
  EventLog::append_json_string(buf_, name);
  meta(meta_, "thread_name", t.pid, tid, "name", buf_);
  buf_.clear();
  append_decimal(buf_, uint64_t(t.index) * 1000 + t.lanes.size() - 1);
  meta(meta_, "thread_sort_index", t.pid, tid, "sort_index", buf_);
  return t.lanes.back();
}

TraceWriter::Rec& TraceWriter::begin_record(uint64_t ts, uint64_t key, uint8_t rank, std::string_view ph,
                                            TraceLane at) {
  // Records are written into 1 MiB chunks: growing one string would copy them all, again and
  // again.
  if (chunks_.empty() || chunks_.back().size() >= kChunkBytes) {
    chunks_.emplace_back();
    chunks_.back().reserve(kChunkBytes + kChunkBytes / 4);
    arena_ = &chunks_.back();
  }
  recs_.push_back(Rec{ts, key, rank, recs_.size(), uint32_t(chunks_.size() - 1), arena_->size(), 0});
  arena_->append("{\"ph\":\"");
  arena_->append(ph);
  arena_->push_back('"');
  if (at.tid < lane_text_.size() && !lane_text_[at.tid].empty()) arena_->append(lane_text_[at.tid]);
  else arena_->append(pid_tid_text(at));
  arena_->append(",\"ts\":");
  append_us(*arena_, ts);
  return recs_.back();
}

void TraceWriter::end_record(Rec& r) {
  arena_->push_back('}');
  r.len = arena_->size() - r.off;
}

TraceLane TraceWriter::slice(uint32_t track, uint64_t begin_ps, uint64_t end_ps, std::string_view name,
                             std::string_view cat, std::string_view args, bool lanes) {
  if (end_ps < begin_ps) end_ps = begin_ps;
  Track& t = tracks_[track];
  size_t lane = 0;
  if (lanes) {
    while (lane < t.lanes.size() && t.lanes[lane].busy_until > begin_ps) ++lane;
    if (lane == t.lanes.size()) add_lane(t);
  }
  Lane& l = t.lanes[lane];
  l.busy_until = std::max(l.busy_until, end_ps);
  const TraceLane at{t.pid, l.tid};
  // A slice with a length is a B/E pair: its end and the next slice's begin are then one
  // number each, which no viewer's rounding (ts and dur to nanoseconds, or in floating
  // point) can make overlap. A slice of no length is an X of dur 0.
  const bool pair = end_ps > begin_ps;
  Rec& r = begin_record(begin_ps, pair ? end_ps - begin_ps : 0, pair ? kBegin : kPoint, pair ? "B" : "X", at);
  if (!pair) arena_->append(",\"dur\":0.000000");
  append_name_cat(*arena_, name, cat);
  arena_->append(",\"args\":");
  arena_->append(args.empty() ? std::string_view("{}") : args);
  end_record(r);
  if (pair) {
    // The end names its slice too: viewers that match ends by name (speedscope) need it.
    Rec& e = begin_record(end_ps, begin_ps, kEnd, "E", at);
    append_name_cat(*arena_, name, cat);
    end_record(e);
  }
  return at;
}

void TraceWriter::instant(uint32_t track, uint64_t ps, std::string_view name, std::string_view cat,
                          std::string_view args) {
  const Track& t = tracks_[track];
  Rec& r = begin_record(ps, 0, kInstant, "i", TraceLane{t.pid, t.lanes[0].tid});
  arena_->append(",\"s\":\"t\"");
  append_name_cat(*arena_, name, cat);
  arena_->append(",\"args\":");
  arena_->append(args.empty() ? std::string_view("{}") : args);
  end_record(r);
}

void TraceWriter::flow(TraceLane from, uint64_t from_ps, TraceLane to, uint64_t to_ps, std::string_view name,
                       std::string_view cat) {
  const uint64_t id = next_flow_++;
  Rec& s = begin_record(from_ps, 0, kFlow, "s", from);
  arena_->append(",\"id\":");
  append_decimal(*arena_, id);
  append_name_cat(*arena_, name, cat);
  end_record(s);
  Rec& f = begin_record(to_ps, 0, kFlow, "f", to);
  arena_->append(",\"bp\":\"e\",\"id\":");
  append_decimal(*arena_, id);
  append_name_cat(*arena_, name, cat);
  end_record(f);
}

void TraceWriter::on_event(const EventView& e) {
  if (finished_) return;
  const TraceRules::Entry* entry = rules_.find(e.name());
  if (!entry) return default_instant(e);
  const int h = entry->handler;
  if (h >= 0) {
    // Made on first use: models may register handlers after the writer is attached.
    if (handlers_.size() <= size_t(h)) handlers_.resize(size_t(h) + 1);
    if (!handlers_[size_t(h)]) handlers_[size_t(h)] = rules_.handlers()[size_t(h)]();
    handlers_[size_t(h)]->on_event(e, *this);
  }
  for (const auto& c : entry->rules) {
    if (!c.rule.when_field.empty() && e.text(c.rule.when_field) != c.rule.when_value) continue;
    apply(c, e);
  }
}

void TraceWriter::default_instant(const EventView& e) {
  const std::string_view path = e.path();
  const size_t dot = path.find('.');
  const uint32_t t = track(path.substr(0, dot), dot == std::string_view::npos ? "events" : path.substr(dot + 1));
  args_.clear();
  e.append_args(args_);
  instant(t, e.time_ps(), e.name(), e.name(), args_);
}

void TraceWriter::apply(const TraceRules::Compiled& c, const EventView& e) {
  const TraceRule& r = c.rule;
  const std::string_view cat = r.category.empty() ? e.name() : std::string_view(r.category);
  auto target = [&] {
    proc_.clear();
    thread_.clear();
    c.process.render(e, proc_);
    c.thread.render(e, thread_);
    return track(proc_, thread_);
  };
  name_.clear();
  c.name.render(e, name_);
  args_.clear();
  e.append_args(args_);
  switch (r.kind) {
    case TraceKind::Ignore:
      return;
    case TraceKind::Instant:
      instant(target(), e.time_ps(), name_, cat, args_);
      return;
    case TraceKind::Span: {
      const uint64_t from = e.u64(r.from, e.time_ps());
      slice(target(), from, std::max(from, e.u64(r.to, from)), name_, cat, args_, r.lanes);
      return;
    }
    case TraceKind::State: {
      const uint32_t t = target();
      // A state held for no time (two changes at one instant) is not drawn.
      if (auto it = states_.find(t); it != states_.end() && it->second.begin_ps < e.time_ps())
        close(it->second, e.time_ps(), {});
      states_[t] = Open{t, e.time_ps(), name_, std::string(cat), args_, r.lanes};
      return;
    }
    case TraceKind::Begin: {
      key_.clear();
      c.key.render(e, key_);
      const std::string key = key_;
      const uint32_t t = target();
      if (auto it = open_.find(key); it != open_.end()) {
        close(it->second, e.time_ps(), {});
        open_.erase(it);
      }
      open_.emplace(key, Open{t, e.time_ps(), name_, std::string(cat), args_, r.lanes});
      return;
    }
    case TraceKind::End: {
      key_.clear();
      c.key.render(e, key_);
      auto it = open_.find(std::string_view(key_));
      if (it == open_.end()) return;
      const Open o = std::move(it->second);
      open_.erase(it);
      close(o, e.time_ps(), args_);
      return;
    }
  }
}

void TraceWriter::close(const Open& o, uint64_t end_ps, std::string_view end_args) {
  std::string args = o.args;
  if (!end_args.empty() && end_args != "{}") merge_args(args, o.args, "end", end_args);
  slice(o.track, o.begin_ps, end_ps, o.name, o.cat, args, o.lanes);
}

void TraceWriter::finish(uint64_t end_ps) {
  if (finished_) return;
  tasks_.finish(*this, end_ps);
  for (auto& h : handlers_)
    if (h) h->finish(end_ps, *this);
  for (const auto& [key, o] : open_) close(o, end_ps, "{\"open_at_end\":true}");
  open_.clear();
  for (const auto& [t, o] : states_) close(o, end_ps, "{\"open_at_end\":true}");
  states_.clear();
  // At one time, per thread: the ends of slices, innermost (latest begun) first; then slices
  // of no length; then begins, outermost (longest) first; then instants and flows (which bind
  // to the slice open at their time). Equal slices: the one closed last encloses the other (a
  // nested producer closes inner slices first).
  std::sort(recs_.begin(), recs_.end(), [](const Rec& a, const Rec& b) {
    if (a.ts != b.ts) return a.ts < b.ts;
    if (a.rank != b.rank) return a.rank < b.rank;
    if (a.key != b.key) return a.key > b.key;
    if (a.rank == kBegin) return a.seq > b.seq;
    return a.seq < b.seq;
  });
  finished_ = true;
}

template <typename Out>
void TraceWriter::emit(Out&& out) const {
  out(std::string_view("{\"traceEvents\":[\n"));
  out(std::string_view(meta_));
  std::string chunk;
  for (size_t i = 0; i < recs_.size(); ++i) {
    chunk.append(std::string_view(chunks_[recs_[i].chunk]).substr(recs_[i].off, recs_[i].len));
    chunk.append(i + 1 < recs_.size() ? ",\n" : "\n");
    if (chunk.size() >= (64u << 10)) {
      out(std::string_view(chunk));
      chunk.clear();
    }
  }
  // The metadata list ends with a comma; an empty record list still closes the array.
  if (recs_.empty()) chunk.append("{\"ph\":\"M\",\"pid\":0,\"tid\":0,\"name\":\"trace_empty\",\"args\":{}}\n");
  chunk.append("],\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"dpusim\",\"clock\":\"simulated\"}}\n");
  out(std::string_view(chunk));
}

std::string TraceWriter::text() const {
  std::string s;
  emit([&](std::string_view part) { s.append(part); });
  return s;
}

void TraceWriter::write(const std::string& path) const {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw std::runtime_error("cannot write trace " + path + ": " + std::strerror(errno));
  bool ok = true;
  emit([&](std::string_view part) { ok = ok && std::fwrite(part.data(), 1, part.size(), f) == part.size(); });
  if (std::fclose(f) != 0) ok = false;
  if (!ok) throw std::runtime_error("cannot write trace " + path + ": " + std::strerror(errno));
}

}  // namespace dpusim::pcie
