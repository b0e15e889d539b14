// A traffic source and its checker, for scenarios that move frames at scale without a Python
// await per frame (models/guest drives them from the guest's side of a virtio-net device).
//
// FrameSource makes Ethernet frames (IEEE 802.3 §3.1.1, no FCS) of a size drawn from a
// distribution with the platform's per-component random stream (tlm/rng.h), each carrying
// where it came from and where it is in its flow, so that the checker can verify every frame
// without a copy of what was sent:
//
//   0..5   destination MAC        6..11 source MAC       12..13 EtherType 0x88B5 (IEEE 802
//   14..21 sequence number (le64, from 0 per flow)        local experimental EtherType 1)
//   22..23 flow (le16)            24..25 frame length (le16)
//   26..33 when it was made (le64, simulated ps): the checker's latency figures
//   34..   payload: SplitMix64 of (stream key, flow, sequence), 8 bytes at a time
//
// FrameChecker verifies each frame it is given: the length field against the length
// received, the payload against what the source made, each sequence number received at most
// once per flow, and in order within what one receive queue delivers (a flow spread over several
// queues by receive steering may interleave between them, never within one); and it measures
// each good frame's latency from its making to its check.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tlm/rng.h"

namespace dpusim::net {

inline constexpr uint16_t kTrafficEtherType = 0x88B5;
inline constexpr size_t kTrafficHeaderBytes = 34;  // up to and including the time stamp

// Frame sizes: a fixed size, a uniform range [min, max], or sizes with integer weights.
struct SizeDistribution {
  std::vector<std::pair<size_t, uint64_t>> weighted;  // (size, weight); one entry: fixed
  size_t min = 0, max = 0;                             // uniform when max > 0 and weighted is empty
  static SizeDistribution fixed(size_t n) { return SizeDistribution{{{n, 1}}, 0, 0}; }
  static SizeDistribution uniform(size_t lo, size_t hi) { return SizeDistribution{{}, lo, hi}; }
  size_t smallest() const;
  size_t largest() const;
  // Throws std::invalid_argument naming the problem (a size outside lo..hi, no weight...).
  void check(size_t lo, size_t hi) const;
  size_t draw(pcie::Rng& rng) const;
  std::string describe() const;  // "64", "64..1500", "64x7,576x4,1500x1"
};

class FrameSource {
 public:
  // `key` keys the payload pattern (the checker needs the same); `rng` draws the sizes.
  FrameSource(uint64_t key, pcie::Rng rng, SizeDistribution sizes, const uint8_t dst[6], const uint8_t src[6]);
  // Writes the next frame of `flow`, made at `now_ps`, into `out` (room for sizes.largest()
  // bytes); returns its length. Flows count their sequence numbers separately.
  size_t next(uint16_t flow, uint64_t now_ps, uint8_t* out);
  uint64_t made() const { return made_; }
  uint64_t sent_in(uint16_t flow) const { return flow < seq_.size() ? seq_[flow] : 0; }
  uint64_t key() const { return key_; }

  // The payload byte pattern of (key, flow, seq), written into out[0..n).
  static void pattern(uint64_t key, uint16_t flow, uint64_t seq, uint8_t* out, size_t n);

 private:
  uint64_t key_;
  pcie::Rng rng_;
  SizeDistribution sizes_;
  uint8_t header_[14];
  std::vector<uint64_t> seq_;  // next sequence number per flow
  uint64_t made_ = 0;
};

class FrameChecker {
 public:
  explicit FrameChecker(uint64_t key) : key_(key) {}
  // Checks one frame received on queue `rxq` at `now_ps`. Returns false (and counts why) if it
  // is bad.
  bool check(unsigned rxq, const uint8_t* frame, size_t len, uint64_t now_ps);
  struct Counts {
    uint64_t good = 0, malformed = 0, corrupt = 0, duplicate = 0, reordered = 0;
    uint64_t latency_min_ps = 0, latency_max_ps = 0, latency_sum_ps = 0;  // of the good ones
  };
  const Counts& counts() const { return counts_; }
  uint64_t received() const {
    return counts_.good + counts_.malformed + counts_.corrupt + counts_.duplicate + counts_.reordered;
  }
  // Sequence numbers below `sent` of `flow` never received.
  uint64_t missing(uint16_t flow, uint64_t sent) const;
  // The first problem seen, for a failure message ("" if none).
  const std::string& first_problem() const { return first_problem_; }

 private:
  void problem(uint64_t& counter, const std::string& what);
  uint64_t key_;
  Counts counts_;
  std::vector<std::vector<bool>> seen_;                          // per flow, by sequence number
  std::vector<std::vector<uint64_t>> next_in_queue_;            // per flow, per queue: lowest acceptable seq
  std::vector<uint8_t> scratch_;
  std::string first_problem_;
};

}  // namespace dpusim::net
