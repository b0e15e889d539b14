// FNV-1a, 64-bit (Fowler, Noll, Vo): the project's one non-cryptographic hash, for stream seeds
// derived from a component's name, frame digests in the event log and receive-queue steering.
// Stable across platforms and runs, as everything that reaches the log must be.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace dpusim {

inline constexpr uint64_t kFnv1aOffset = 0xcbf29ce484222325ull;
inline constexpr uint64_t kFnv1aPrime = 0x100000001b3ull;

constexpr uint64_t fnv1a(const uint8_t* p, size_t n, uint64_t h = kFnv1aOffset) {
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * kFnv1aPrime;
  return h;
}

constexpr uint64_t fnv1a(std::string_view s, uint64_t h = kFnv1aOffset) {
  for (unsigned char c : s) h = (h ^ c) * kFnv1aPrime;
  return h;
}

}  // namespace dpusim
