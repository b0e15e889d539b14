// Work ordered by (time, posting order): the queue behind TimedQueue and QuantumKeeper, a
// binary heap in a vector, so that entries allocate nothing once the vector has grown and the
// order never depends on anything but the times and the order of posting (determinism).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace dpusim::pcie {

class TimedHeap {
 public:
  void push(uint64_t when, std::function<void()> fn) {
    items_.push_back(Item{when, seq_++, std::move(fn)});
    std::push_heap(items_.begin(), items_.end(), Later{});
  }
  bool empty() const { return items_.empty(); }
  size_t size() const { return items_.size(); }
  uint64_t next_time() const { return items_.front().when; }
  // Takes the earliest entry (the first posted among equal times): its time and its work.
  std::pair<uint64_t, std::function<void()>> pop() {
    std::pop_heap(items_.begin(), items_.end(), Later{});
    std::pair<uint64_t, std::function<void()>> out{items_.back().when, std::move(items_.back().fn)};
    items_.pop_back();
    return out;
  }

 private:
  struct Item {
    uint64_t when, seq;
    std::function<void()> fn;
  };
  struct Later {
    bool operator()(const Item& a, const Item& b) const { return a.when != b.when ? a.when > b.when : a.seq > b.seq; }
  };
  std::vector<Item> items_;
  uint64_t seq_ = 0;
};

}  // namespace dpusim::pcie
