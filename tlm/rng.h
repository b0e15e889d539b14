// Seeded randomness. Each component draws from its own stream, derived from the platform seed
// and the component's name, so adding a component never changes another's stream.
#pragma once

#include <cstdint>
#include <string_view>

#include "tlm/fnv1a.h"

namespace dpusim::pcie {

class Rng {
 public:
  Rng(uint64_t platform_seed, std::string_view component) {
    state_ = platform_seed ^ (fnv1a(component) * 0x9e3779b97f4a7c15ull);
  }
  // SplitMix64 (Steele, Lea, Flood 2014): fast, full period, good enough for traffic/jitter.
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n) without modulo bias.
  uint64_t below(uint64_t n) {
    if (n == 0) return 0;
    const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do x = next(); while (x >= limit);
    return x % n;
  }

 private:
  uint64_t state_;
};

}  // namespace dpusim::pcie
