#include "net/frame_source.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "net/frame.h"
#include "tlm/bytes.h"

namespace dpusim::net {

namespace {
uint64_t splitmix(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
}  // namespace

size_t SizeDistribution::smallest() const {
  if (weighted.empty()) return min;
  size_t s = weighted.front().first;
  for (const auto& [n, w] : weighted) s = std::min(s, n);
  return s;
}

size_t SizeDistribution::largest() const {
  if (weighted.empty()) return max;
  size_t s = 0;
  for (const auto& [n, w] : weighted) s = std::max(s, n);
  return s;
}

void SizeDistribution::check(size_t lo, size_t hi) const {
  const std::string range = std::to_string(lo) + ".." + std::to_string(hi);
  if (weighted.empty()) {
    if (max == 0 || min > max) throw std::invalid_argument("frame size range " + describe() + " is empty");
  } else {
    uint64_t total = 0;
    for (const auto& [n, w] : weighted) {
      if (w == 0) throw std::invalid_argument("frame size " + std::to_string(n) + " has weight 0");
      total += w;
    }
    if (total == 0) throw std::invalid_argument("frame sizes have no weight");
  }
  if (smallest() < lo || largest() > hi)
    throw std::invalid_argument("frame sizes " + describe() + " outside " + range + " bytes");
}

size_t SizeDistribution::draw(pcie::Rng& rng) const {
  if (weighted.size() == 1) return weighted.front().first;
  if (weighted.empty()) return min + size_t(rng.below(max - min + 1));
  uint64_t total = 0;
  for (const auto& [n, w] : weighted) total += w;
  uint64_t x = rng.below(total);
  for (const auto& [n, w] : weighted) {
    if (x < w) return n;
    x -= w;
  }
  return weighted.back().first;
}

std::string SizeDistribution::describe() const {
  if (weighted.empty()) return std::to_string(min) + ".." + std::to_string(max);
  if (weighted.size() == 1) return std::to_string(weighted.front().first);
  std::string s;
  for (const auto& [n, w] : weighted) s += (s.empty() ? "" : ",") + std::to_string(n) + "x" + std::to_string(w);
  return s;
}

FrameSource::FrameSource(uint64_t key, pcie::Rng rng, SizeDistribution sizes, const uint8_t dst[6], const uint8_t src[6])
    : key_(key), rng_(rng), sizes_(std::move(sizes)) {
  sizes_.check(kTrafficHeaderBytes, 65535);
  std::memcpy(header_, dst, 6);
  std::memcpy(header_ + 6, src, 6);
  header_[12] = uint8_t(kTrafficEtherType >> 8);
  header_[13] = uint8_t(kTrafficEtherType);
}

void FrameSource::pattern(uint64_t key, uint16_t flow, uint64_t seq, uint8_t* out, size_t n) {
  uint64_t state = key ^ (uint64_t(flow) << 48) ^ (seq * 0xff51afd7ed558ccdull);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) bytes::put_le(out + i, splitmix(state), 8);
  if (i < n) bytes::put_le(out + i, splitmix(state), unsigned(n - i));
}

size_t FrameSource::next(uint16_t flow, uint64_t now_ps, uint8_t* out) {
  if (flow >= seq_.size()) seq_.resize(size_t(flow) + 1, 0);
  const uint64_t seq = seq_[flow]++;
  const size_t len = sizes_.draw(rng_);
  std::memcpy(out, header_, sizeof header_);
  bytes::put_le(out + 14, seq, 8);
  bytes::put_le(out + 22, flow, 2);
  bytes::put_le(out + 24, len, 2);
  bytes::put_le(out + 26, now_ps, 8);
  pattern(key_, flow, seq, out + kTrafficHeaderBytes, len - kTrafficHeaderBytes);
  ++made_;
  return len;
}

void FrameChecker::problem(uint64_t& counter, const std::string& what) {
  ++counter;
  if (first_problem_.empty()) first_problem_ = what;
}

bool FrameChecker::check(unsigned rxq, const uint8_t* frame, size_t len, uint64_t now_ps) {
  if (len < kTrafficHeaderBytes || frame[12] != uint8_t(kTrafficEtherType >> 8) ||
      frame[13] != uint8_t(kTrafficEtherType) || bytes::get_le(frame + 24, 2) != len) {
    problem(counts_.malformed,
            "a frame of " + std::to_string(len) + " bytes is not one the source made (header or length field)");
    return false;
  }
  const uint64_t seq = bytes::get_le(frame + 14, 8);
  const uint16_t flow = uint16_t(bytes::get_le(frame + 22, 2));
  auto what = [&] { return "flow " + std::to_string(flow) + " frame " + std::to_string(seq); };  // for a problem only
  if (scratch_.size() < len) scratch_.resize(len);
  FrameSource::pattern(key_, flow, seq, scratch_.data(), len - kTrafficHeaderBytes);
  if (std::memcmp(scratch_.data(), frame + kTrafficHeaderBytes, len - kTrafficHeaderBytes) != 0) {
    problem(counts_.corrupt, what() + ": payload differs from what was sent");
    return false;
  }
  if (flow >= seen_.size()) {
    seen_.resize(size_t(flow) + 1);
    next_in_queue_.resize(size_t(flow) + 1);
  }
  std::vector<bool>& seen = seen_[flow];
  if (seq >= seen.size()) seen.resize(std::max<size_t>(size_t(seq) + 1, seen.size() * 2), false);
  if (seen[seq]) {
    problem(counts_.duplicate, what() + " received twice");
    return false;
  }
  seen[seq] = true;
  std::vector<uint64_t>& next = next_in_queue_[flow];
  if (rxq >= next.size()) next.resize(size_t(rxq) + 1, 0);
  if (seq < next[rxq]) {
    problem(counts_.reordered, what() + " on receive queue " + std::to_string(rxq) + " after frame " +
                                   std::to_string(next[rxq] - 1));
    return false;
  }
  next[rxq] = seq + 1;
  const uint64_t made = bytes::get_le(frame + 26, 8), latency = now_ps >= made ? now_ps - made : 0;
  if (counts_.good == 0 || latency < counts_.latency_min_ps) counts_.latency_min_ps = latency;
  counts_.latency_max_ps = std::max(counts_.latency_max_ps, latency);
  counts_.latency_sum_ps += latency;
  ++counts_.good;
  return true;
}

uint64_t FrameChecker::missing(uint16_t flow, uint64_t sent) const {
  uint64_t n = 0;
  const std::vector<bool>* seen = flow < seen_.size() ? &seen_[flow] : nullptr;
  for (uint64_t s = 0; s < sent; ++s)
    if (!seen || s >= seen->size() || !(*seen)[s]) ++n;
  return n;
}

}  // namespace dpusim::net
