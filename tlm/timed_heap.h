// Work ordered by (time, tie key, posting order): the queue behind TimedQueue and QuantumKeeper,
// a binary heap in a vector, so that entries allocate nothing once the vector has grown and the
// order never depends on anything but the times, the tie keys and the order of posting
// (determinism). A tie key orders entries due at the same time before posting order (schedule
// exploration draws them, tlm/explore.h); entries posted with equal keys keep posting order.
//
// A pending entry may be cancelled: it is marked and dropped when it reaches the top, so the
// earliest entry is never a cancelled one and size() counts only live entries.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

namespace dpusim::pcie {

class TimedHeap {
 public:
  using Key = std::tuple<uint64_t, uint64_t, uint64_t>;  // (time ps, tie, seq)

  Key push(uint64_t when, std::function<void()> fn, uint64_t tie = 0) {
    const Key key{when, tie, seq_++};
    items_.push_back(Item{key, std::move(fn)});
    std::push_heap(items_.begin(), items_.end(), Later{});
    return key;
  }
  // Forgets an entry that has not been popped yet (a key already popped must not be given).
  void cancel(const Key& key) {
    cancelled_.insert(key);
    drop_cancelled();
  }
  bool empty() const { return items_.empty(); }
  size_t size() const { return items_.size() - cancelled_.size(); }
  uint64_t next_time() const { return std::get<0>(items_.front().key); }
  const Key& next_key() const { return items_.front().key; }
  // Takes the earliest entry: its time and its work.
  std::pair<uint64_t, std::function<void()>> pop() {
    std::pair<uint64_t, std::function<void()>> out = take();
    drop_cancelled();
    return out;
  }

 private:
  struct Item {
    Key key;
    std::function<void()> fn;
  };
  struct Later {
    bool operator()(const Item& a, const Item& b) const { return a.key > b.key; }
  };
  std::pair<uint64_t, std::function<void()>> take() {
    std::pop_heap(items_.begin(), items_.end(), Later{});
    std::pair<uint64_t, std::function<void()>> out{std::get<0>(items_.back().key), std::move(items_.back().fn)};
    items_.pop_back();
    return out;
  }
  void drop_cancelled() {
    while (!cancelled_.empty() && !items_.empty()) {
      auto it = cancelled_.find(items_.front().key);
      if (it == cancelled_.end()) return;
      cancelled_.erase(it);
      take();
    }
  }
  std::vector<Item> items_;
  std::set<Key> cancelled_;  // pending entries cancelled, not yet at the top
  uint64_t seq_ = 0;
};

}  // namespace dpusim::pcie
