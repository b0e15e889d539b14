// The fields of the event the log is building (tlm/event_log.h): keys and JSON-encoded values
// appended into one arena, sorted by key when the event is committed, and the watchers that
// wait for an event carrying given fields.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dpusim::pcie {

class EventFields {
 public:
  void clear() {
    arena_.clear();
    fields_.clear();
  }
  // A field whose value the caller appends to arena() between begin() and end() (no copy).
  void begin(std::string_view key);
  void end() { fields_.back().val_len = uint32_t(arena_.size() - fields_.back().val_off); }
  std::string& arena() { return arena_; }
  void add(std::string_view key, std::string_view encoded_value) {
    begin(key);
    arena_.append(encoded_value);
    end();
  }
  // Sorts the fields by key; throws std::logic_error naming a key given twice.
  void sort();

  size_t size() const { return fields_.size(); }
  std::string_view key(size_t i) const { return std::string_view(arena_).substr(fields_[i].key_off, fields_[i].key_len); }
  std::string_view raw(size_t i) const { return std::string_view(arena_).substr(fields_[i].val_off, fields_[i].val_len); }
  // The value of `key` once sorted (empty when absent), by binary search.
  std::string_view raw(std::string_view key) const;

 private:
  struct Field {
    uint32_t key_off, key_len, val_off, val_len;
    // The key's first 8 bytes, big-endian, zero-padded: comparing two of these orders keys as
    // their bytes do (keys hold no NUL), so sorting compares whole keys only on a tie.
    uint64_t key_prefix;
  };
  std::string arena_;
  std::vector<Field> fields_;
};

// Watchers let the Python runtime await "the first event matching a predicate": a watcher is a
// set of key = JSON value pairs, and an event that carries all of them fires it.
class EventWatchers {
 public:
  using Match = std::vector<std::pair<std::string, std::string>>;
  using Fn = std::function<void(uint64_t watcher_id, const std::string& line)>;

  uint64_t add(Match match, bool once);
  void remove(uint64_t id);
  bool empty() const { return watchers_.empty(); }
  // The event categories a watcher may fire on (EventCategory::bit()): a watcher naming its
  // event needs only that event's category built; one that does not, every category.
  uint64_t categories() const;
  // Calls `fn` for every watcher the event fires, in the order they were added; a watcher added
  // `once` is removed before its call (a call may add or remove watchers). Returns whether one
  // was removed.
  bool fire(const EventFields& event, const std::string& line, const Fn& fn);

 private:
  struct Watcher {
    uint64_t id;
    Match match;
    bool once;
  };
  static bool matches(const Match& match, const EventFields& event);
  std::vector<Watcher> watchers_;
  uint64_t next_id_ = 1;
};

}  // namespace dpusim::pcie
