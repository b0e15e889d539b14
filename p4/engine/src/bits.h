// Moving fields between the wire (big-endian, bit-packed) and field storage (64-bit limbs,
// least significant first). Little-endian hosts (x86-64, arm64) are assumed. A field's bit k (k = 0 the least significant) sits at wire
// position start + width - 1 - k, so limb i is one contiguous run of at most 64 bits.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace dpusim::p4 {

// Reads n <= 64 bits starting at bit `start` (0 = the first byte's top bit).
inline std::uint64_t read_bits(const std::uint8_t* data, std::size_t start, int n) {
  std::size_t byte = start / 8;
  int shift = static_cast<int>(start % 8);
  int nbytes = (shift + n + 7) / 8;  // at most 9
  unsigned __int128 acc = 0;
  for (int i = 0; i < nbytes; ++i) acc = (acc << 8) | data[byte + i];
  acc >>= (nbytes * 8 - shift - n);
  return n == 64 ? static_cast<std::uint64_t>(acc) : static_cast<std::uint64_t>(acc) & ((1ull << n) - 1);
}

// Writes the low n <= 64 bits of v at bit `start`, leaving the other bits of the bytes.
inline void write_bits(std::uint8_t* data, std::size_t start, int n, std::uint64_t v) {
  std::size_t byte = start / 8;
  int shift = static_cast<int>(start % 8);
  int nbytes = (shift + n + 7) / 8;
  int low = nbytes * 8 - shift - n;  // unused bits after the run in the last byte
  unsigned __int128 mask = ((n == 64 ? ~static_cast<unsigned __int128>(0) >> 64
                                      : static_cast<unsigned __int128>((1ull << n) - 1)))
                           << low;
  unsigned __int128 val = (static_cast<unsigned __int128>(v) << low) & mask;
  for (int i = nbytes - 1; i >= 0; --i) {
    auto m = static_cast<std::uint8_t>(mask);
    data[byte + i] = static_cast<std::uint8_t>((data[byte + i] & ~m) | (static_cast<std::uint8_t>(val) & m));
    mask >>= 8;
    val >>= 8;
  }
}

inline void wire_to_limbs(const std::uint8_t* data, std::size_t bit_off, int width, std::uint64_t* limbs) {
  for (int i = 0, k = 0; k < width; ++i, k += 64) {
    int n = width - k < 64 ? width - k : 64;
    limbs[i] = read_bits(data, bit_off + static_cast<std::size_t>(width - k - n), n);
  }
}

inline void limbs_to_wire(const std::uint64_t* limbs, int width, std::uint8_t* data, std::size_t bit_off) {
  for (int i = 0, k = 0; k < width; ++i, k += 64) {
    int n = width - k < 64 ? width - k : 64;
    write_bits(data, bit_off + static_cast<std::size_t>(width - k - n), n, limbs[i]);
  }
}

// Eight bytes as a big-endian number, and back.
inline std::uint64_t load_be64(const std::uint8_t* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return __builtin_bswap64(v);  // wire order is big-endian; hosts here are little-endian
}
inline void store_be64(std::uint8_t* p, std::uint64_t v) {
  v = __builtin_bswap64(v);
  std::memcpy(p, &v, 8);
}

// The fast read for fields of at most 56 bits: one 8-byte window holds the field wherever
// it starts in its byte. The buffer must have 8 readable bytes from the field's first.
inline constexpr int kFastFieldBits = 56;
inline std::uint64_t read_bits_fast(const std::uint8_t* data, std::size_t start, int n) {
  std::uint64_t w = load_be64(data + start / 8) << (start % 8);
  return w >> (64 - n);
}

// Values appended bit after bit, most significant first, written out eight bytes at a time
// (one store per word: no store ever overlaps another, which partial read-modify-writes of
// 8-byte windows would, stalling each load behind the store before it).
struct WireWriter {
  std::uint8_t* out;
  std::uint64_t acc = 0;  // the pending bits, right-aligned (fewer than 64 between appends)
  int pending = 0;

  void push(std::uint64_t v, int n) {  // n <= 64, v < 2^n
    const int total = pending + n;
    if (total < 64) {  // so n < 64
      acc = acc << n | v;
      pending = total;
      return;
    }
    // A word is complete: the pending bits, then v's top 64 - pending bits.
    const int rest = total - 64;  // v's bits left over, 0 to 63
    store_be64(out, (pending == 0 ? 0 : acc << (64 - pending)) | v >> rest);
    out += 8;
    acc = rest == 0 ? 0 : v & ((1ull << rest) - 1);
    pending = rest;
  }
  void push_limbs(const std::uint64_t* limbs, int width) {
    int top = (width - 1) / 64;  // the most significant limb first
    push(limbs[top], width - top * 64);
    for (int i = top - 1; i >= 0; --i) push(limbs[i], 64);
  }
  // Writes the pending bits, the last byte padded with zeros; returns the end.
  std::uint8_t* finish() {
    while (pending >= 8) {
      pending -= 8;
      *out++ = static_cast<std::uint8_t>(acc >> pending);
    }
    if (pending > 0) *out++ = static_cast<std::uint8_t>(acc << (8 - pending));
    pending = 0;
    acc = 0;
    return out;
  }
};

// The low nbytes*8 bits of a field as big-endian bytes (table and select keys).
inline void limbs_to_be(const std::uint64_t* limbs, int nlimbs, int nbytes, std::uint8_t* out) {
  if (nbytes <= 8) {
    std::uint64_t v = __builtin_bswap64(limbs[0]) >> (8 * (8 - nbytes));
    std::memcpy(out, reinterpret_cast<const std::uint8_t*>(&v), static_cast<std::size_t>(nbytes));
    return;
  }
  for (int i = 0; i < nbytes; ++i) {
    int limb = i / 8;
    out[nbytes - 1 - i] = limb < nlimbs ? static_cast<std::uint8_t>(limbs[limb] >> (8 * (i % 8))) : 0;
  }
}

}  // namespace dpusim::p4
