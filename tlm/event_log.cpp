#include "tlm/event_log.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "tlm/decimal.h"

namespace dpusim::pcie {

Event::Event(Event&& other) noexcept : log_(other.log_) { other.log_ = nullptr; }

Event::~Event() {
  if (log_) log_->commit();
}

namespace {
const char kHexDigits[] = "0123456789abcdef";
}  // namespace

Event& Event::u64(std::string_view key, uint64_t v) {
  if (!log_) return *this;
  log_->fields_.begin(key);
  append_decimal(log_->fields_.arena(), v);
  log_->fields_.end();
  return *this;
}

Event& Event::boolean(std::string_view key, bool v) {
  if (log_) log_->fields_.add(key, v ? "true" : "false");
  return *this;
}

Event& Event::str(std::string_view key, std::string_view v) {
  if (!log_) return *this;
  log_->fields_.begin(key);
  EventLog::append_json_string(log_->fields_.arena(), v);
  log_->fields_.end();
  return *this;
}

Event& Event::hex(std::string_view key, uint64_t v) {
  if (!log_) return *this;
  char buf[20];
  char* p = buf + sizeof buf;
  do {
    *--p = kHexDigits[v & 15];
    v >>= 4;
  } while (v);
  log_->fields_.begin(key);
  std::string& a = log_->fields_.arena();
  a.append("\"0x");
  a.append(p, size_t(buf + sizeof buf - p));
  a.push_back('"');
  log_->fields_.end();
  return *this;
}

Event& Event::hex_bytes(std::string_view key, const uint8_t* p, size_t n) {
  if (!log_) return *this;
  log_->fields_.begin(key);
  std::string& a = log_->fields_.arena();
  a.push_back('"');
  for (size_t i = 0; i < n; ++i) {
    a.push_back(kHexDigits[p[i] >> 4]);
    a.push_back(kHexDigits[p[i] & 15]);
  }
  a.push_back('"');
  log_->fields_.end();
  return *this;
}

Event& Event::bdf(std::string_view key, uint16_t id) {
  if (!log_) return *this;
  const unsigned bus = id >> 8, dev = (id >> 3) & 0x1f, fn = id & 7;
  const char text[] = {'"', kHexDigits[bus >> 4], kHexDigits[bus & 15], ':', kHexDigits[dev >> 4], kHexDigits[dev & 15],
                       '.', kHexDigits[fn], '"'};
  log_->fields_.add(key, std::string_view(text, sizeof text));
  return *this;
}

Event& Event::json(std::string_view key, std::string_view raw) {
  if (log_) log_->fields_.add(key, raw);
  return *this;
}

EventLog::EventLog() = default;

EventLog::~EventLog() { close(); }

void EventLog::open_file(const std::string& path) {
  close();
  file_ = std::fopen(path.c_str(), "wb");
  if (!file_) throw std::runtime_error("cannot write event log " + path + ": " + std::strerror(errno));
  memory_ = false;
  digest_ = false;
}

void EventLog::open_memory() {
  close();
  memory_ = true;
  digest_ = false;
}

void EventLog::open_digest() {
  close();
  memory_ = false;
  digest_ = true;
  sha_.reset();
}

void EventLog::flush() {
  if (file_ && !out_.empty()) {
    std::fwrite(out_.data(), 1, out_.size(), file_);
    out_.clear();
  } else if (digest_) {
    sha_.update(out_);
    out_.clear();
  }
}

void EventLog::set_filter(uint64_t written_categories) {
  write_mask_ = written_categories;
  update_build_mask();
}

void EventLog::update_watched_mask() {
  watched_mask_ = watchers_.categories();
  update_build_mask();
}

void EventLog::update_build_mask() {
  build_mask_ = write_mask_ | watched_mask_ | (sinks_.empty() ? 0 : ~uint64_t(0));
}

void EventLog::close() {
  flush();
  if (file_) std::fclose(file_);
  file_ = nullptr;
}

std::string EventLog::take_memory() {
  std::string s;
  s.swap(out_);
  return s;
}

Event EventLog::event(uint64_t time_ps, std::string_view path, std::string_view name) {
  if (!enabled_) return Event(nullptr);
  // Everything built and written (the default): no category to look up.
  if ((build_mask_ & write_mask_) == ~uint64_t(0)) return start(time_ps, path, name, ~uint64_t(0), false);
  const uint64_t bit = EventKind::category_of(name).bit();
  if (!(build_mask_ & bit)) return Event(nullptr);
  return start(time_ps, path, name, bit, false);
}

Event EventLog::event(uint64_t time_ps, std::string_view path, const EventKind& kind) {
  if (!enabled_ || !(build_mask_ & kind.bit())) return Event(nullptr);
  return start(time_ps, path, kind.name(), kind.bit(), false);
}

Event EventLog::sink_event(uint64_t time_ps, std::string_view path, std::string_view name) {
  if (!enabled_ || sinks_.empty()) return Event(nullptr);
  return start(time_ps, path, name, 0, true);
}

Event EventLog::start(uint64_t time_ps, std::string_view path, std::string_view name, uint64_t category_bit,
                      bool sink_only) {
  writing_ = !sink_only && (write_mask_ & category_bit);
  if (building_) throw std::logic_error("event log: an event started while another is being built");
  building_ = true;
  sink_only_ = sink_only;
  time_ps_ = time_ps;
  fields_.clear();
  Event e(this);
  e.u64("time_ps", time_ps);
  e.str("path", path);
  e.str("event", name);
  return e;
}

void EventLog::add_sink(EventSink* sink) {
  sinks_.push_back(sink);
  update_build_mask();
}

void EventLog::remove_sink(EventSink* sink) {
  sinks_.erase(std::remove(sinks_.begin(), sinks_.end(), sink), sinks_.end());
  update_build_mask();
}

void EventLog::commit() {
  building_ = false;
  fields_.sort();
  if (sink_only_) {
    notify_sinks();
    return;
  }
  const size_t start = out_.size();
  out_.push_back('{');
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (i) out_.push_back(',');
    append_json_string(out_, fields_.key(i));
    out_.push_back(':');
    out_.append(fields_.raw(i));
  }
  out_.append("}\n");
  if (writing_) ++lines_;
  if (!sinks_.empty()) notify_sinks();
  if (!watchers_.empty() && watch_fn_) {
    const std::string line = out_.substr(start, out_.size() - start - 1);
    if (watchers_.fire(fields_, line, watch_fn_)) update_watched_mask();
  }
  if (!writing_) out_.resize(start);  // built for a watcher only
  if (!memory_ && out_.size() >= (64u << 10)) flush();
}

namespace {
// A JSON string's text without its quotes, when it has no escapes (the usual case); else empty.
bool plain_string(std::string_view raw, std::string_view* out) {
  if (raw.size() < 2 || raw.front() != '"' || raw.find('\\') != std::string_view::npos) return false;
  *out = raw.substr(1, raw.size() - 2);
  return true;
}
}  // namespace

void EventLog::notify_sinks() {
  EventView probe(*this, time_ps_, {}, {}, sink_only_);
  std::string path_buf, name_buf;
  std::string_view path, name;
  if (!plain_string(probe.raw("path"), &path)) {
    path_buf = probe.text("path");
    path = path_buf;
  }
  if (!plain_string(probe.raw("event"), &name)) {
    name_buf = probe.text("event");
    name = name_buf;
  }
  const EventView view(*this, time_ps_, path, name, sink_only_);
  for (EventSink* s : sinks_) s->on_event(view);
}

size_t EventView::size() const { return log_.fields_.size(); }

std::string_view EventView::key(size_t i) const { return log_.fields_.key(i); }

std::string_view EventView::raw(size_t i) const { return log_.fields_.raw(i); }

// The fields are sorted by key when the event is committed.
std::string_view EventView::raw(std::string_view k) const { return log_.fields_.raw(k); }

std::string_view EventView::str(std::string_view k) const {
  const std::string_view v = raw(k);
  if (v.size() >= 2 && v.front() == '"' && v.find('\\') == std::string_view::npos) return v.substr(1, v.size() - 2);
  return v;
}

uint64_t EventView::u64(std::string_view k, uint64_t fallback) const {
  const std::string_view v = raw(k);
  if (v.empty() || v.size() > 20) return fallback;
  uint64_t n = 0;
  for (char c : v) {
    if (c < '0' || c > '9') return fallback;
    n = n * 10 + uint64_t(c - '0');
  }
  return n;
}

std::string EventView::text(std::string_view k) const {
  std::string out;
  append_text(out, raw(k));
  return out;
}

void EventView::append_text(std::string& out, std::string_view v) {
  if (v.size() < 2 || v.front() != '"') {
    out.append(v);
    return;
  }
  // The escapes append_json_string writes (\u00XX only below 0x20).
  for (size_t i = 1; i + 1 < v.size(); ++i) {
    char c = v[i];
    if (c == '\\' && i + 2 < v.size()) {
      const char e = v[++i];
      switch (e) {
        case 'n': c = '\n'; break;
        case 'r': c = '\r'; break;
        case 't': c = '\t'; break;
        case 'b': c = '\b'; break;
        case 'f': c = '\f'; break;
        case 'u':
          if (i + 4 < v.size()) {
            unsigned code = 0;
            for (size_t k = i + 1; k <= i + 4; ++k) {
              const char h = v[k];
              code = code * 16 + unsigned(h >= 'a' ? h - 'a' + 10 : h >= 'A' ? h - 'A' + 10 : h - '0') % 16;
            }
            c = char(code);
            i += 4;
          }
          break;
        default: c = e;  // \" and \\ and \/
      }
    }
    out.push_back(c);
  }
}

void EventView::append_args(std::string& out, std::initializer_list<std::string_view> skip) const {
  out.push_back('{');
  bool first = true;
  for (size_t i = 0; i < size(); ++i) {
    const std::string_view k = key(i);
    if (k == "time_ps" || k == "path" || k == "event" || std::find(skip.begin(), skip.end(), k) != skip.end()) continue;
    if (!first) out.push_back(',');
    first = false;
    EventLog::append_json_string(out, k);
    out.push_back(':');
    out.append(raw(i));
  }
  out.push_back('}');
}

uint64_t EventLog::add_watcher(EventWatchers::Match match, bool once) {
  const uint64_t id = watchers_.add(std::move(match), once);
  update_watched_mask();
  return id;
}

void EventLog::remove_watcher(uint64_t id) {
  watchers_.remove(id);
  update_watched_mask();
}

void EventLog::append_json_string(std::string& out, std::string_view s) {
  // Most strings (keys, names, messages) need no escape: copied in one go, quotes included.
  size_t plain = 0;
  while (plain < s.size() && static_cast<unsigned char>(s[plain]) >= 0x20 && s[plain] != '"' && s[plain] != '\\')
    ++plain;
  if (plain == s.size()) {
    const size_t at = out.size();
    out.resize(at + s.size() + 2);
    char* p = &out[at];
    *p = '"';
    if (!s.empty()) std::memcpy(p + 1, s.data(), s.size());
    p[s.size() + 1] = '"';
    return;
  }
  const char* digits = kHexDigits;
  out.push_back('"');
  for (unsigned char c : s) {
    switch (c) {
      case '"': out.append("\\\""); break;
      case '\\': out.append("\\\\"); break;
      case '\n': out.append("\\n"); break;
      case '\r': out.append("\\r"); break;
      case '\t': out.append("\\t"); break;
      case '\b': out.append("\\b"); break;
      case '\f': out.append("\\f"); break;
      default:
        // As Python's json.dumps(..., ensure_ascii=False) writes it, so either side can check.
        if (c < 0x20) {
          out.append("\\u00");
          out.push_back(digits[c >> 4]);
          out.push_back(digits[c & 15]);
        } else {
          out.push_back(char(c));
        }
    }
  }
  out.push_back('"');
}

}  // namespace dpusim::pcie
