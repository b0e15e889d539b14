// Fields in byte buffers: the ionic Ethernet interface is little-endian (ionic_if.h's
// __le16/__le32/__le64), the RDMA work requests, completions and events big-endian
// (ionic_fw.h's __be16/__be32/__be64); the structures are packed, so every field is read and
// written byte by byte rather than through a cast.
#pragma once

#include <cstddef>
#include <cstdint>

namespace dpusim::ionic {

inline uint64_t get_le(const uint8_t* p, unsigned bytes) {
  uint64_t v = 0;
  for (unsigned i = 0; i < bytes; ++i) v |= uint64_t(p[i]) << (8 * i);
  return v;
}
inline uint16_t get_le16(const uint8_t* p) { return uint16_t(get_le(p, 2)); }
inline uint32_t get_le32(const uint8_t* p) { return uint32_t(get_le(p, 4)); }
inline uint64_t get_le64(const uint8_t* p) { return get_le(p, 8); }

inline void put_le(uint8_t* p, uint64_t v, unsigned bytes) {
  for (unsigned i = 0; i < bytes; ++i) p[i] = uint8_t(v >> (8 * i));
}
inline void put_le16(uint8_t* p, uint16_t v) { put_le(p, v, 2); }
inline void put_le32(uint8_t* p, uint32_t v) { put_le(p, v, 4); }
inline void put_le64(uint8_t* p, uint64_t v) { put_le(p, v, 8); }

inline uint64_t get_be(const uint8_t* p, unsigned bytes) {
  uint64_t v = 0;
  for (unsigned i = 0; i < bytes; ++i) v = v << 8 | p[i];
  return v;
}
inline uint16_t get_be16(const uint8_t* p) { return uint16_t(get_be(p, 2)); }
inline uint32_t get_be32(const uint8_t* p) { return uint32_t(get_be(p, 4)); }
inline uint64_t get_be64(const uint8_t* p) { return get_be(p, 8); }

inline void put_be(uint8_t* p, uint64_t v, unsigned bytes) {
  for (unsigned i = 0; i < bytes; ++i) p[i] = uint8_t(v >> (8 * (bytes - 1 - i)));
}
inline void put_be16(uint8_t* p, uint16_t v) { put_be(p, v, 2); }
inline void put_be32(uint8_t* p, uint32_t v) { put_be(p, v, 4); }
inline void put_be64(uint8_t* p, uint64_t v) { put_be(p, v, 8); }

}  // namespace dpusim::ionic
