// Bytes in buffers and DWs, the one place every model takes them from: byte enables (PCIe r5.0
// §2.2.5: bit i of a 4-bit First/Last DW BE enables byte i of its DW) and fields of wire formats
// read and written byte by byte at named offsets, never through a struct overlay. PCIe and
// virtio (virtio 1.2 §1.4: le16/le32/le64) are little-endian; the ionic RDMA work requests,
// completions and events big-endian (Linux drivers/infiniband/hw/ionic/ionic_fw.h: __be32...).
#pragma once

#include <cstddef>
#include <cstdint>

namespace dpusim::bytes {

// ---- byte enables ---------------------------------------------------------------------------

// The DW mask of the enabled bytes (0x00ff00ff for 0b0101).
constexpr uint32_t byte_enable_mask(uint8_t be) {
  return (be & 1 ? 0xffu : 0) | (be & 2 ? 0xff00u : 0) | (be & 4 ? 0xff0000u : 0) | (be & 8 ? 0xff000000u : 0);
}
// The lowest and highest enabled byte of a DW (0 when none is).
constexpr unsigned first_enabled_byte(uint8_t be) { return be & 0xf ? unsigned(__builtin_ctz(be & 0xf)) : 0; }
constexpr unsigned last_enabled_byte(uint8_t be) { return be & 0xf ? 31u - unsigned(__builtin_clz(be & 0xf)) : 0; }
// `old` with the enabled bytes of `data` written over it.
constexpr uint32_t merge_enabled(uint32_t old, uint32_t data, uint8_t be) {
  return (old & ~byte_enable_mask(be)) | (data & byte_enable_mask(be));
}

// The DW at address `dw` (DW-aligned) with the bytes of a write of `n` bytes at `off` (`in`)
// that fall in it merged over `value`: a register file of DWs taking a byte-granular write.
constexpr uint32_t merge_written(uint32_t value, uint64_t dw, uint64_t off, const uint8_t* in, size_t n) {
  for (unsigned b = 0; b < 4; ++b) {
    const uint64_t a = dw + b;
    if (a >= off && a < off + n) value = (value & ~(0xffu << (8 * b))) | uint32_t(in[a - off]) << (8 * b);
  }
  return value;
}

// ---- little-endian ----------------------------------------------------------------------------

inline uint64_t get_le(const uint8_t* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= uint64_t(p[i]) << (8 * i);
  return v;
}
inline void put_le(uint8_t* p, uint64_t v, size_t n) {
  for (size_t i = 0; i < n; ++i) p[i] = uint8_t(v >> (8 * i));
}
inline uint16_t get_le16(const uint8_t* p) { return uint16_t(get_le(p, 2)); }
inline uint32_t get_le32(const uint8_t* p) { return uint32_t(get_le(p, 4)); }
inline uint64_t get_le64(const uint8_t* p) { return get_le(p, 8); }
inline void put_le16(uint8_t* p, uint16_t v) { put_le(p, v, 2); }
inline void put_le32(uint8_t* p, uint32_t v) { put_le(p, v, 4); }
inline void put_le64(uint8_t* p, uint64_t v) { put_le(p, v, 8); }

// ---- big-endian -------------------------------------------------------------------------------

inline uint64_t get_be(const uint8_t* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v = v << 8 | p[i];
  return v;
}
inline void put_be(uint8_t* p, uint64_t v, size_t n) {
  for (size_t i = 0; i < n; ++i) p[i] = uint8_t(v >> (8 * (n - 1 - i)));
}
inline uint16_t get_be16(const uint8_t* p) { return uint16_t(get_be(p, 2)); }
inline uint32_t get_be32(const uint8_t* p) { return uint32_t(get_be(p, 4)); }
inline uint64_t get_be64(const uint8_t* p) { return get_be(p, 8); }
inline void put_be16(uint8_t* p, uint16_t v) { put_be(p, v, 2); }
inline void put_be32(uint8_t* p, uint32_t v) { put_be(p, v, 4); }
inline void put_be64(uint8_t* p, uint64_t v) { put_be(p, v, 8); }

}  // namespace dpusim::bytes
