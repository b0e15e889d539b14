#include "guest/driver_ring.h"

#include <stdexcept>
#include <string>

#include "vnet/virtio/virtio_spec.h"

namespace dpusim::guest {

using namespace dpusim::virtio;

DriverRing::DriverRing(host::HostMemory& mem, const Layout& layout, State s)
    : mem_(mem), layout_(layout), avail_idx_(s.avail_idx), last_used_(s.last_used), slots_(layout.size) {
  const uint16_t n = layout.size;
  if (n == 0 || (n & (n - 1))) throw std::invalid_argument("queue size " + std::to_string(n) + " is not a power of 2");
  std::vector<bool> seen(n, false);
  auto claim = [&](uint16_t id, const char* what) {
    if (id >= n)
      throw std::invalid_argument(std::string(what) + " descriptor " + std::to_string(id) + " outside the ring of " +
                                  std::to_string(n));
    if (seen[id]) throw std::invalid_argument("descriptor " + std::to_string(id) + " is listed twice");
    seen[id] = true;
  };
  for (uint16_t id : s.free_ids) {
    claim(id, "free");
    free_.push_back(id);
  }
  for (Posted& p : s.posted) {
    if (p.ids.empty() || p.ids.front() != p.head) throw std::invalid_argument("a posted chain does not start at its head");
    for (uint16_t id : p.ids) claim(id, "posted");
    slots_[p.head] = std::move(p);
    ++in_flight_;
  }
}

bool DriverRing::add(const Buf* bufs, size_t n_out, size_t n_in, uint64_t token) {
  const size_t n = n_out + n_in;
  if (n == 0 || n > free_.size()) return false;
  // Built in its slot (a free head's slot holds no chain), reusing the slot's id storage.
  Posted& p = slots_[free_.front()];
  p.token = token;
  p.ids.clear();
  for (size_t k = 0; k < n; ++k) {
    p.ids.push_back(free_.front());
    free_.pop_front();
  }
  p.head = p.ids.front();
  for (size_t k = 0; k < n; ++k) {
    uint8_t d[VRING_DESC_SIZE];
    const bool last = k + 1 == n;
    put_le64(d + VRING_DESC_ADDR, bufs[k].addr);
    put_le32(d + VRING_DESC_LEN, bufs[k].len);
    put_le16(d + VRING_DESC_FLAGS, uint16_t((k >= n_out ? VRING_DESC_F_WRITE : 0) | (last ? 0 : VRING_DESC_F_NEXT)));
    put_le16(d + VRING_DESC_NEXT, last ? 0 : p.ids[k + 1]);
    mem_.write(layout_.desc + uint64_t(VRING_DESC_SIZE) * p.ids[k], d, sizeof d);
  }
  uint8_t v[2];
  put_le16(v, p.head);
  mem_.write(layout_.avail + VRING_AVAIL_RING + 2u * (avail_idx_ % layout_.size), v, 2);
  avail_idx_ = uint16_t(avail_idx_ + 1);
  put_le16(v, avail_idx_);
  mem_.write(layout_.avail + VRING_AVAIL_IDX, v, 2);  // after the entry
  ++in_flight_;
  return true;
}

bool DriverRing::has_used() const {
  uint8_t v[2];
  mem_.read(layout_.used + VRING_USED_IDX, v, 2);
  return get_le16(v) != last_used_;
}

bool DriverRing::get(uint64_t* token, uint32_t* len) {
  if (!has_used()) return false;
  uint8_t e[VRING_USED_ELEM_SIZE];
  mem_.read(layout_.used + VRING_USED_RING + uint64_t(VRING_USED_ELEM_SIZE) * (last_used_ % layout_.size), e, sizeof e);
  last_used_ = uint16_t(last_used_ + 1);
  const uint32_t head = get_le32(e + VRING_USED_ELEM_ID);
  if (head >= layout_.size || slots_[head].ids.empty())
    throw std::runtime_error("the device used descriptor " + std::to_string(head) +
                             ", which heads no chain the driver posted");
  Posted& p = slots_[head];
  *token = p.token;
  *len = get_le32(e + VRING_USED_ELEM_LEN);
  for (uint16_t id : p.ids) free_.push_back(id);
  p.ids.clear();
  --in_flight_;
  return true;
}

void DriverRing::set_avail_flags(uint16_t flags) {
  uint8_t v[2];
  put_le16(v, flags);
  mem_.write(layout_.avail + VRING_AVAIL_FLAGS, v, 2);
}

DriverRing::State DriverRing::state() const {
  State s;
  s.free_ids.assign(free_.begin(), free_.end());
  s.avail_idx = avail_idx_;
  s.last_used = last_used_;
  for (const Posted& p : slots_)
    if (!p.ids.empty()) s.posted.push_back(p);
  return s;
}

}  // namespace dpusim::guest
