// A split virtqueue in host memory as the device side walks it (virtio 1.2 §2.7), every access
// a DMA through the endpoint's requester, so in tlp mode each byte crosses the fabric as
// MRd/MWr: the avail ring's flags and idx, one ring entry, a descriptor chain (validated: an
// index out of range, a loop, a zero length, a descriptor of the wrong direction, an indirect
// one), the buffers it names, and the used ring's element and idx.
//
// In lt mode (tlm/dma.h) a read the fabric serves directly and whose completion falls within
// the quantum is done at once and its continuation runs nested at the read's completion time
// (Requester::read_now, the loosely timed coding style); otherwise it is a read() whose
// continuation comes later. Both give the continuation the same bytes, outcome and local time.
// The operations take their continuations as templates, so the direct path allocates nothing.
//
// A read that does not complete successfully (UR for an address outside host memory, a
// timeout) is reported as such; the caller treats a malformed ring as a device error.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tlm/function_dma.h"
#include "vnet/virtio/virtio_spec.h"

namespace dpusim::vnet {

// What the driver programmed for a queue (the application's set_conf).
struct VqConf {
  uint16_t size = 0, msix = 0xffff;
  uint64_t desc = 0, driver = 0, device = 0;
};

struct Desc {
  uint64_t addr;
  uint32_t len;
  uint16_t flags;
};

// A chain's descriptors of one direction, in chain order: the first kInline in place (a frame's
// chain has one or two), so walking a chain allocates nothing; longer chains on the heap.
class DescList {
 public:
  static constexpr size_t kInline = 4;
  void push_back(const Desc& d) {
    if (n_ < kInline) {
      inline_[n_] = d;
    } else {
      if (heap_.empty()) heap_.assign(inline_, inline_ + kInline);
      heap_.push_back(d);
    }
    ++n_;
  }
  size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  const Desc* begin() const { return n_ <= kInline ? inline_ : heap_.data(); }
  const Desc* end() const { return begin() + n_; }
  const Desc& front() const { return *begin(); }

 private:
  Desc inline_[kInline]{};
  std::vector<Desc> heap_;  // all of them once there are more than kInline
  size_t n_ = 0;
};

struct Chain {
  uint16_t head = 0;
  DescList readable, writable;  // split by VRING_DESC_F_WRITE
};

class SplitRing {
 public:
  // Continuations (on success `error` is empty; otherwise it says what was malformed):
  //   avail:   done(uint16_t flags, uint16_t idx, const std::string& error)
  //   entry:   done(uint16_t head, const std::string& error)
  //   chain:   done(Chain chain, const std::string& error)
  //   buffers: done(std::vector<uint8_t> bytes, const std::string& error)

  SplitRing(pcie::FunctionDma& dma, const VqConf& conf) : dma_(dma), conf_(conf) {}
  // Held by its queue (continuations refer to it): not copied or moved.
  SplitRing(const SplitRing&) = delete;
  SplitRing& operator=(const SplitRing&) = delete;
  void set_conf(const VqConf& conf) { conf_ = conf; }
  const VqConf& conf() const { return conf_; }

  template <typename Done>
  void read_avail(Done done);
  template <typename Done>
  void read_entry(uint16_t avail_index, Done done);
  // Walks the chain from `head`: at most `size` descriptors, every index < size, no zero
  // length, no indirect descriptors (VIRTIO_F_RING_INDIRECT_DESC is not offered), readable
  // descriptors before writable ones.
  template <typename Done>
  void read_chain(uint16_t head, Done done);
  // The bytes of `descs`, concatenated (read in parallel).
  template <typename Done>
  void read_buffers(const DescList& descs, Done done);
  // Writes `bytes` into `descs` in order (the caller checked they fit); posted.
  void write_buffers(const DescList& descs, const uint8_t* bytes, size_t len);
  // Writes used ring elements for slots [used_idx, used_idx + n) and then the new idx; posted,
  // so they reach host memory in this order.
  using UsedElem = std::pair<uint32_t, uint32_t>;  // (id, len)
  void publish_used(uint16_t used_idx, const UsedElem* elems, size_t n);
  // A single byte back into host memory (the CVQ's ack).
  void write_byte(uint64_t addr, uint8_t value);

 private:
  // A descriptor read at `index` of the chain being walked: added to `chain`; "" and *more set
  // when the walk goes on to *next, an error otherwise ("" and !*more: the chain is complete).
  std::string take_desc(Chain& chain, uint16_t index, unsigned count, const uint8_t* d, bool* more, uint16_t* next) const;
  std::string check_entry(uint16_t head) const;
  std::string loop_error(const Chain& chain) const;
  static std::string failed(const char* what, pcie::Outcome o);
  uint64_t desc_addr(uint16_t index) const { return conf_.desc + uint64_t(virtio::VRING_DESC_SIZE) * index; }
  template <typename Done>
  void walk(Chain chain, uint16_t index, unsigned count, Done done);

  pcie::FunctionDma& dma_;
  VqConf conf_;
};

// ---- the reads, templated on their continuations ----------------------------------------------

template <typename Done>
void SplitRing::read_avail(Done done) {
  const uint64_t addr = conf_.driver + virtio::VRING_AVAIL_FLAGS;
  uint8_t b[4];
  uint64_t due;
  if (dma_.read_now(addr, 4, b, &due))
    return dma_.run_now(due, [&] { done(virtio::get_le16(b), virtio::get_le16(b + 2), std::string()); });
  dma_.read(addr, 4, [done](pcie::Result&& r) mutable {
    if (r.outcome != pcie::Outcome::SC) return done(0, 0, failed("avail ring", r.outcome));
    done(virtio::get_le16(&r.data[0]), virtio::get_le16(&r.data[2]), std::string());
  });
}

template <typename Done>
void SplitRing::read_entry(uint16_t avail_index, Done done) {
  const uint64_t addr = conf_.driver + virtio::VRING_AVAIL_RING + 2u * (avail_index % conf_.size);
  uint8_t b[2];
  uint64_t due;
  if (dma_.read_now(addr, 2, b, &due))
    return dma_.run_now(due, [&] { done(virtio::get_le16(b), check_entry(virtio::get_le16(b))); });
  dma_.read(addr, 2, [this, done](pcie::Result&& r) mutable {
    if (r.outcome != pcie::Outcome::SC) return done(0, failed("avail ring entry", r.outcome));
    done(virtio::get_le16(&r.data[0]), check_entry(virtio::get_le16(&r.data[0])));
  });
}

template <typename Done>
void SplitRing::read_chain(uint16_t head, Done done) {
  Chain chain;
  chain.head = head;
  walk(std::move(chain), head, 0, std::move(done));
}

template <typename Done>
void SplitRing::walk(Chain chain, uint16_t index, unsigned count, Done done) {
  if (count >= conf_.size) return done(std::move(chain), loop_error(chain));
  auto step = [this, index, count](Chain& c, const uint8_t* d, Done& then) {
    bool more = false;
    uint16_t next = 0;
    std::string error = take_desc(c, index, count, d, &more, &next);
    if (!error.empty() || !more) return then(std::move(c), error);
    walk(std::move(c), next, count + 1, std::move(then));
  };
  uint8_t d[virtio::VRING_DESC_SIZE];
  uint64_t due;
  if (dma_.read_now(desc_addr(index), sizeof d, d, &due)) return dma_.run_now(due, [&] { step(chain, d, done); });
  dma_.read(desc_addr(index), sizeof d,
            [step, chain = std::move(chain), done](pcie::Result&& r) mutable {
              if (r.outcome != pcie::Outcome::SC) return done(std::move(chain), failed("descriptor", r.outcome));
              step(chain, r.data.data(), done);
            });
}

template <typename Done>
void SplitRing::read_buffers(const DescList& descs, Done done) {
  size_t total = 0;
  for (const Desc& d : descs) total += d.len;
  if (descs.empty()) return done(std::vector<uint8_t>(), std::string());
  std::vector<uint8_t> bytes(total);
  // Direct: every buffer read at once, the continuation at the last one's completion.
  uint64_t last = 0;
  bool direct = true;
  for (const Desc& d : descs) {
    uint64_t due;
    if (!dma_.direct_due(d.addr, d.len, &due) || !dma_.runs_now(due)) {
      direct = false;
      break;
    }
    last = std::max(last, due);
  }
  if (direct) {
    size_t off = 0;
    for (const Desc& d : descs) {
      uint64_t due;
      dma_.read_now(d.addr, d.len, bytes.data() + off, &due);
      off += d.len;
    }
    return dma_.run_now(last, [&] { done(std::move(bytes), std::string()); });
  }
  struct State {
    std::vector<uint8_t> bytes;
    size_t left;
    std::string error;
    Done done;
  };
  auto st = std::make_shared<State>(State{std::move(bytes), descs.size(), "", std::move(done)});
  size_t off = 0;
  for (const Desc& d : descs) {
    dma_.read(d.addr, d.len, [st, off](pcie::Result&& r) {
      if (r.outcome != pcie::Outcome::SC) {
        if (st->error.empty()) st->error = failed("buffer", r.outcome);
      } else {
        std::copy(r.data.begin(), r.data.end(), st->bytes.begin() + std::ptrdiff_t(off));
      }
      if (--st->left == 0) st->done(std::move(st->bytes), st->error);
    });
    off += d.len;
  }
}

}  // namespace dpusim::vnet
