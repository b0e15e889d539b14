#include "vnet/virtio/split_ring.h"

namespace dpusim::vnet {

using namespace dpusim::virtio;

std::string SplitRing::failed(const char* what, pcie::Outcome o) {
  return std::string(what) + " read completed " + pcie::outcome_name(o) +
         (o == pcie::Outcome::UR ? " (address outside host memory)" : "");
}

std::string SplitRing::check_entry(uint16_t head) const {
  if (head < conf_.size) return std::string();
  return "avail ring entry " + std::to_string(head) + " out of range (queue size " + std::to_string(conf_.size) + ")";
}

std::string SplitRing::loop_error(const Chain& chain) const {
  return "descriptor loop: chain from " + std::to_string(chain.head) + " longer than the queue size " +
         std::to_string(conf_.size);
}

std::string SplitRing::take_desc(Chain& chain, uint16_t index, unsigned count, const uint8_t* p, bool* more,
                                 uint16_t* next) const {
  *more = false;
  const Desc d{get_le64(p + VRING_DESC_ADDR), get_le32(p + VRING_DESC_LEN), get_le16(p + VRING_DESC_FLAGS)};
  *next = get_le16(p + VRING_DESC_NEXT);
  auto at = [index] { return "descriptor " + std::to_string(index); };  // built for an error only
  if (d.flags & VRING_DESC_F_INDIRECT) return at() + " is indirect (not negotiated)";
  if (d.len == 0) return at() + " has length 0";
  if (d.flags & VRING_DESC_F_WRITE) {
    chain.writable.push_back(d);
  } else if (!chain.writable.empty()) {
    return at() + " is device-readable after a device-writable one";
  } else {
    chain.readable.push_back(d);
  }
  if (!(d.flags & VRING_DESC_F_NEXT)) return std::string();
  if (*next >= conf_.size)
    return at() + " chains to " + std::to_string(*next) + ", out of range (queue size " + std::to_string(conf_.size) + ")";
  (void)count;
  *more = true;
  return std::string();
}

void SplitRing::write_buffers(const DescList& descs, const uint8_t* bytes, size_t len) {
  size_t off = 0;
  for (const Desc& d : descs) {
    if (off >= len) break;
    const size_t n = std::min<size_t>(d.len, len - off);
    dma_.write(d.addr, bytes + off, n);
    off += n;
  }
}

void SplitRing::publish_used(uint16_t used_idx, const UsedElem* elems, size_t n) {
  uint16_t idx = used_idx;
  for (size_t k = 0; k < n; ++k) {
    const auto& [id, len] = elems[k];
    uint8_t e[VRING_USED_ELEM_SIZE];
    put_le32(e + VRING_USED_ELEM_ID, id);
    put_le32(e + VRING_USED_ELEM_LEN, len);
    dma_.write(conf_.device + VRING_USED_RING + uint64_t(VRING_USED_ELEM_SIZE) * (idx % conf_.size), e, sizeof e);
    ++idx;
  }
  uint8_t i[2];
  put_le16(i, idx);
  dma_.write(conf_.device + VRING_USED_IDX, i, 2);
}

void SplitRing::write_byte(uint64_t addr, uint8_t value) { dma_.write(addr, &value, 1); }

}  // namespace dpusim::vnet
