#include "vnet/split_ring.h"

#include <memory>

#include "vnet/virtio_spec.h"

namespace dpusim::vnet {

using namespace dpusim::virtio;

namespace {
std::string failed(const char* what, pcie::Outcome o) {
  return std::string(what) + " read completed " + pcie::outcome_name(o) +
         (o == pcie::Outcome::UR ? " (address outside host memory)" : "");
}
}  // namespace

void SplitRing::read_avail(AvailDone done) {
  dma_.read(conf_.driver + VRING_AVAIL_FLAGS, 4, [done](pcie::Result&& r) {
    if (r.outcome != pcie::Outcome::SC) return done(0, 0, failed("avail ring", r.outcome));
    done(le16(&r.data[0]), le16(&r.data[2]), "");
  });
}

void SplitRing::read_entry(uint16_t avail_index, EntryDone done) {
  const uint16_t size = conf_.size;
  dma_.read(conf_.driver + VRING_AVAIL_RING + 2u * (avail_index % size), 2, [done, size](pcie::Result&& r) {
    if (r.outcome != pcie::Outcome::SC) return done(0, failed("avail ring entry", r.outcome));
    const uint16_t head = le16(&r.data[0]);
    if (head >= size)
      return done(head, "avail ring entry " + std::to_string(head) + " out of range (queue size " + std::to_string(size) + ")");
    done(head, "");
  });
}

void SplitRing::read_chain(uint16_t head, ChainDone done) {
  auto chain = std::make_shared<Chain>();
  chain->head = head;
  walk(chain, head, 0, std::move(done));
}

void SplitRing::walk(std::shared_ptr<Chain> chain, uint16_t index, unsigned count, ChainDone done) {
  if (count >= conf_.size)
    return done(*chain, "descriptor loop: chain from " + std::to_string(chain->head) + " longer than the queue size " +
                            std::to_string(conf_.size));
  dma_.read(conf_.desc + uint64_t(VRING_DESC_SIZE) * index, VRING_DESC_SIZE,
            [this, chain, index, count, done](pcie::Result&& r) {
              if (r.outcome != pcie::Outcome::SC) return done(*chain, failed("descriptor", r.outcome));
              const Desc d{le64(&r.data[VRING_DESC_ADDR]), le32(&r.data[VRING_DESC_LEN]),
                           le16(&r.data[VRING_DESC_FLAGS])};
              const uint16_t next = le16(&r.data[VRING_DESC_NEXT]);
              const std::string at = "descriptor " + std::to_string(index);
              if (d.flags & VRING_DESC_F_INDIRECT) return done(*chain, at + " is indirect (not negotiated)");
              if (d.len == 0) return done(*chain, at + " has length 0");
              if (d.flags & VRING_DESC_F_WRITE) {
                chain->writable.push_back(d);
              } else if (!chain->writable.empty()) {
                return done(*chain, at + " is device-readable after a device-writable one");
              } else {
                chain->readable.push_back(d);
              }
              if (!(d.flags & VRING_DESC_F_NEXT)) return done(*chain, "");
              if (next >= conf_.size)
                return done(*chain, at + " chains to " + std::to_string(next) + ", out of range (queue size " +
                                        std::to_string(conf_.size) + ")");
              walk(chain, next, count + 1, done);
            });
}

void SplitRing::read_buffers(const std::vector<Desc>& descs, BytesDone done) {
  struct State {
    std::vector<uint8_t> bytes;
    size_t left;
    std::string error;
  };
  size_t total = 0;
  for (const Desc& d : descs) total += d.len;
  auto st = std::make_shared<State>(State{std::vector<uint8_t>(total), descs.size(), ""});
  if (descs.empty()) return done({}, "");
  size_t off = 0;
  for (const Desc& d : descs) {
    dma_.read(d.addr, d.len, [st, off, done](pcie::Result&& r) {
      if (r.outcome != pcie::Outcome::SC) {
        if (st->error.empty()) st->error = failed("buffer", r.outcome);
      } else {
        std::copy(r.data.begin(), r.data.end(), st->bytes.begin() + std::ptrdiff_t(off));
      }
      if (--st->left == 0) done(std::move(st->bytes), st->error);
    });
    off += d.len;
  }
}

void SplitRing::write_buffers(const std::vector<Desc>& descs, const std::vector<uint8_t>& bytes) {
  size_t off = 0;
  for (const Desc& d : descs) {
    if (off >= bytes.size()) break;
    const size_t n = std::min<size_t>(d.len, bytes.size() - off);
    dma_.write(d.addr, bytes.data() + off, n);
    off += n;
  }
}

void SplitRing::publish_used(uint16_t used_idx, const std::vector<std::pair<uint32_t, uint32_t>>& elems) {
  uint16_t idx = used_idx;
  for (const auto& [id, len] : elems) {
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
