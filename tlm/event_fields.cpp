#include "tlm/event_fields.h"

#include <algorithm>
#include <stdexcept>

#include "tlm/log_filter.h"

namespace dpusim::pcie {

void EventFields::begin(std::string_view key) {
  Field f;
  f.key_off = uint32_t(arena_.size());
  f.key_len = uint32_t(key.size());
  f.key_prefix = 0;
  for (size_t i = 0; i < key.size() && i < 8; ++i) f.key_prefix |= uint64_t(uint8_t(key[i])) << (56 - 8 * i);
  arena_.append(key);
  f.val_off = uint32_t(arena_.size());
  f.val_len = 0;
  fields_.push_back(f);
}

void EventFields::sort() {
  const std::string_view a(arena_);
  std::sort(fields_.begin(), fields_.end(), [&](const Field& x, const Field& y) {
    if (x.key_prefix != y.key_prefix) return x.key_prefix < y.key_prefix;
    return a.substr(x.key_off, x.key_len) < a.substr(y.key_off, y.key_len);
  });
  for (size_t i = 1; i < fields_.size(); ++i)
    if (key(i) == key(i - 1)) throw std::logic_error("event log: duplicate key " + std::string(key(i)));
}

std::string_view EventFields::raw(std::string_view k) const {
  size_t lo = 0, hi = size();
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    const int c = key(mid).compare(k);
    if (c == 0) return raw(mid);
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return {};
}

uint64_t EventWatchers::add(Match match, bool once) {
  watchers_.push_back(Watcher{next_id_, std::move(match), once});
  return next_id_++;
}

void EventWatchers::remove(uint64_t id) {
  watchers_.erase(std::remove_if(watchers_.begin(), watchers_.end(), [&](const Watcher& w) { return w.id == id; }),
                  watchers_.end());
}

uint64_t EventWatchers::categories() const {
  uint64_t mask = 0;
  for (const Watcher& w : watchers_) {
    uint64_t bit = ~uint64_t(0);
    for (const auto& [key, value] : w.match)
      if (key == "event" && value.size() >= 2 && value.front() == '"' && value.find('\\') == std::string::npos)
        bit = EventKind::category_of(std::string_view(value).substr(1, value.size() - 2)).bit();
    mask |= bit;
  }
  return mask;
}

bool EventWatchers::matches(const Match& match, const EventFields& event) {
  for (const auto& [key, value] : match) {
    bool found = false;
    for (size_t i = 0; i < event.size(); ++i) {
      if (event.key(i) == key) {
        found = event.raw(i) == value;
        break;
      }
    }
    if (!found) return false;
  }
  return true;
}

bool EventWatchers::fire(const EventFields& event, const std::string& line, const Fn& fn) {
  // The ids first: a callback may add or remove watchers.
  std::vector<uint64_t> hits;
  for (const Watcher& w : watchers_)
    if (matches(w.match, event)) hits.push_back(w.id);
  bool removed = false;
  for (uint64_t id : hits) {
    auto it = std::find_if(watchers_.begin(), watchers_.end(), [&](const Watcher& w) { return w.id == id; });
    if (it == watchers_.end()) continue;
    if (it->once) {
      watchers_.erase(it);
      removed = true;
    }
    fn(id, line);
  }
  return removed;
}

}  // namespace dpusim::pcie
