// Reading and writing elements in a buffer, as they lie in memory.
//
// Multi-byte elements are little-endian and assembled byte by byte, never by casting the
// buffer to a wider type: the buffer is guest memory with no alignment promise, and the layout
// must not change with the host's byte order. fp4_e2m1 holds element i in byte i/2, in the low
// nibble when i is even (P4 engine guide, "Converting between formats").
#pragma once

#include <cstddef>
#include <cstdint>

#include "format_spec.h"

namespace dpusim::formats::detail {

template <Format F>
inline uint32_t load(const uint8_t* p, size_t i) {
  constexpr unsigned bits = spec(F).bits;
  if constexpr (bits == 32) {
    p += 4 * i;
    return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
  } else if constexpr (bits == 16) {
    p += 2 * i;
    return uint32_t{p[0]} | uint32_t{p[1]} << 8;
  } else if constexpr (bits == 8) {
    return p[i];
  } else {
    return (p[i / 2] >> (4 * (i & 1))) & 0xF;
  }
}

// Whole-byte formats only: a nibble is written with its neighbour, by store_fp4_pair.
template <Format F>
inline void store(uint8_t* p, size_t i, uint32_t code) {
  constexpr unsigned bits = spec(F).bits;
  static_assert(bits % 8 == 0, "fp4_e2m1 elements are stored in pairs");
  p += (bits / 8) * i;
  for (unsigned b = 0; b < bits / 8; ++b) p[b] = static_cast<uint8_t>(code >> (8 * b));
}

// Elements `even` (i, even) and `odd` (i + 1) of fp4_e2m1, into byte i/2.
inline void store_fp4_pair(uint8_t* p, size_t i, uint32_t even, uint32_t odd) {
  p[i / 2] = static_cast<uint8_t>((even & 0xF) | (odd & 0xF) << 4);
}

// Whether two byte ranges share a byte. Compared as integers: the buffers are separate
// objects, between whose pointers the built-in < is unspecified.
inline bool overlap(const uint8_t* a, size_t a_bytes, const uint8_t* b, size_t b_bytes) {
  const auto a0 = reinterpret_cast<uintptr_t>(a);
  const auto b0 = reinterpret_cast<uintptr_t>(b);
  return a_bytes != 0 && b_bytes != 0 && a0 < b0 + b_bytes && b0 < a0 + a_bytes;
}

}  // namespace dpusim::formats::detail
