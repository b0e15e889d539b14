// The LPM table (see tables.h).
#include <algorithm>
#include <cstring>

#include "dpusim/p4/limits.h"
#include "tables.h"

namespace dpusim::p4 {

namespace {

// Bits [start, start + n) of a big-endian key, n <= 16.
inline std::uint32_t key_bits(const std::uint8_t* key, int start, int n) {
  if (n == 0) return 0;
  int first = start / 8, last = (start + n - 1) / 8;
  std::uint32_t acc = 0;
  for (int i = first; i <= last; ++i) acc = (acc << 8) | key[i];
  int unused = (last + 1) * 8 - (start + n);
  return (acc >> unused) & ((1u << n) - 1);
}

// The key under a prefix of `bits` bits.
inline void mask_key(const std::uint8_t* key, int key_bytes, int bits, std::uint8_t* out) {
  int full = bits / 8;
  std::memcpy(out, key, static_cast<std::size_t>(full));
  if (full < key_bytes) {
    int rem = bits % 8;
    out[full] = rem ? static_cast<std::uint8_t>(key[full] & (0xff00u >> rem)) : 0;
    if (full + 1 < key_bytes) std::memset(out + full + 1, 0, static_cast<std::size_t>(key_bytes - full - 1));
  }
}

}  // namespace

void LpmTable::init(int key_bytes, int data_limbs) {
  key_bytes_ = key_bytes;
  data_limbs_ = data_limbs;
  short_.init(key_bytes, data_limbs);
  long_.init(key_bytes, data_limbs);
}

std::uint32_t LpmTable::root_index(const std::uint8_t* key) const { return key_bits(key, 0, root_bits_); }

std::uint64_t* LpmTable::length_word(std::uint32_t r, int bit) {
  return &dir_[static_cast<std::size_t>(r) * static_cast<std::size_t>(dir_words_) + (packed_ ? 0 : 1 + static_cast<std::size_t>(bit / 64))];
}

void LpmTable::set_best(std::uint32_t r, std::int32_t slot) {
  std::uint64_t& w = dir_[static_cast<std::size_t>(r) * static_cast<std::size_t>(dir_words_)];
  auto v = static_cast<std::uint64_t>(static_cast<std::uint32_t>(slot + 1));
  w = packed_ ? ((w & ~0xffffffffull) | v) : v;
}

const std::uint64_t* LpmTable::lookup(const std::uint8_t* key, std::uint8_t* scratch) const {
  if (root_bits_ == 0) return nullptr;
  const std::uint32_t r = root_index(key);
  const std::uint64_t* slot = &dir_[static_cast<std::size_t>(r) * static_cast<std::size_t>(dir_words_)];
  const std::uint64_t* words = packed_ ? slot : slot + 1;
  for (int w = words_ - 1; w >= 0; --w) {
    for (std::uint64_t bits = packed_ ? words[w] >> 32 : words[w]; bits != 0;) {
      int top = 63 - __builtin_clzll(bits);
      bits &= ~(1ull << top);
      int len = root_bits_ + 1 + 64 * w + top;
      mask_key(key, key_bytes_, len, scratch);
      if (const std::uint64_t* m = long_.find(scratch, len)) return m;
    }
  }
  auto best = static_cast<std::uint32_t>(slot[0]);
  return best == 0 ? nullptr : short_.meta(static_cast<int>(best - 1));
}

std::uint64_t* LpmTable::find(const std::uint8_t* key, int bits) {
  if (root_bits_ == 0) return nullptr;
  if (bits > root_bits_) return long_.find_mut(key, bits);
  std::int32_t s = own_[(std::size_t{1} << bits) - 1 + key_bits(key, 0, bits)];
  return s < 0 ? nullptr : short_.meta(s);
}

void LpmTable::place(const std::uint8_t* key, int bits, std::uint64_t meta, const std::uint64_t* data) {
  if (bits <= root_bits_) {
    int slot = short_.add(key, meta, data);
    // Expand over the directory slots it covers, unless a longer prefix holds them.
    const std::uint32_t v = key_bits(key, 0, bits);
    own_[(std::size_t{1} << bits) - 1 + v] = slot;
    const std::uint32_t lo = v << (root_bits_ - bits), hi = (v + 1) << (root_bits_ - bits);
    for (std::uint32_t i = lo; i < hi; ++i)
      if (best_len_[i] <= bits) {
        best_len_[i] = static_cast<std::int8_t>(bits);
        set_best(i, slot);
      }
    return;
  }
  const std::uint32_t r = root_index(key);
  const int bit = bits - root_bits_ - 1;
  if (length_count_[{r, bits}]++ == 0) *length_word(r, bit) |= length_bit(bit);
  long_.insert(key, bits, meta, data);
}

void LpmTable::rebuild(int root_bits) {
  // Collect every entry, then lay the table out again for the new directory width.
  std::vector<Entry> all;
  for (std::size_t s = 0; s < short_.slots(); ++s) {
    int slot = static_cast<int>(s);
    if (!short_.live(slot)) continue;
    const std::uint64_t* m = short_.meta(slot);
    all.push_back({std::vector<std::uint8_t>(short_.key(slot), short_.key(slot) + key_bytes_), meta_rank(*m), *m,
                   std::vector<std::uint64_t>(m + 1, m + 1 + data_limbs_)});
  }
  long_.for_each([&](const std::uint8_t* key, const std::uint64_t* m) {
    all.push_back({std::vector<std::uint8_t>(key, key + key_bytes_), meta_rank(*m), *m, std::vector<std::uint64_t>(m + 1, m + 1 + data_limbs_)});
  });
  root_bits_ = root_bits;
  const int key_bits_total = key_bytes_ * 8;
  words_ = std::max(1, (key_bits_total - root_bits + 63) / 64);
  packed_ = key_bits_total - root_bits <= 32;
  dir_words_ = packed_ ? 1 : 1 + words_;
  const std::size_t slots = std::size_t{1} << root_bits;
  dir_.assign(slots * static_cast<std::size_t>(dir_words_), 0);
  best_len_.assign(slots, -1);
  own_.assign((slots << 1) - 1, -1);
  length_count_.clear();
  short_ = EntryStore();
  short_.init(key_bytes_, data_limbs_);
  long_ = RecordHash();
  long_.init(key_bytes_, data_limbs_);
  for (const Entry& e : all) place(e.key.data(), e.bits, e.meta, e.data.data());
}

void LpmTable::insert(const std::uint8_t* key, int bits, std::uint64_t meta, const std::uint64_t* data) {
  // A wide directory costs about a megabyte, so a table takes it only once it is large.
  const int want = std::min(size() + 1 > P4_LPM_WIDE_ROOT_AT ? 16 : 8, key_bytes_ * 8);
  if (root_bits_ == 0 || want > root_bits_) rebuild(want);
  place(key, bits, meta, data);
}

bool LpmTable::erase(const std::uint8_t* key, int bits) {
  if (root_bits_ == 0) return false;
  if (bits > root_bits_) {
    if (!long_.erase(key, bits)) return false;
    const std::uint32_t r = root_index(key);
    auto it = length_count_.find({r, bits});
    if (it != length_count_.end() && --it->second == 0) {
      length_count_.erase(it);
      const int bit = bits - root_bits_ - 1;
      *length_word(r, bit) &= ~length_bit(bit);
    }
    return true;
  }
  const std::uint32_t v = key_bits(key, 0, bits);
  std::int32_t& own = own_[(std::size_t{1} << bits) - 1 + v];
  if (own < 0) return false;
  short_.release(own);
  own = -1;
  // Directory slots whose best was this prefix fall back to the longest shorter one that
  // covers them (one candidate value per length).
  const std::uint32_t lo = v << (root_bits_ - bits), hi = (v + 1) << (root_bits_ - bits);
  for (std::uint32_t i = lo; i < hi; ++i) {
    if (best_len_[i] != bits) continue;
    std::int32_t best = -1;
    int len = -1;
    for (int b = bits - 1; b >= 0 && best < 0; --b) {
      std::int32_t o = own_[(std::size_t{1} << b) - 1 + (i >> (root_bits_ - b))];
      if (o >= 0) {
        best = o;
        len = b;
      }
    }
    set_best(i, best);
    best_len_[i] = static_cast<std::int8_t>(len);
  }
  return true;
}

}  // namespace dpusim::p4
