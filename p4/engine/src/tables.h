// Table entries and the structures that find them.
//
// bmv2's reference engine reads every installed entry of a ternary or LPM table on each
// lookup; a 65536-entry table then costs each frame 65536 comparisons. Here:
//   exact   - a hash of the key (RecordHash): a compact index, then one record holding
//             the key, action and runtime data together;
//   LPM     - a directory on the key's first bits plus a hash per prefix length
//             (LpmTable): cost bounded by the key's width, usually one probe;
//   ternary - tuple-space search (TernaryIndex): one hash probe per distinct mask, visited
//             in order of their best priority, stopping once no mask can beat the match.
// A table takes memory when its first entry arrives.
//
// Every lookup returns the entry's "meta" word (action id in the low 32 bits, rank in the
// high 32: priority for ternary, prefix length for LPM), followed in memory by the entry's
// runtime data, so the executor never looks anything else up.
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <vector>

namespace dpusim::p4 {

inline std::int32_t meta_action(std::uint64_t meta) { return static_cast<std::int32_t>(meta & 0xffffffffu); }
inline std::int32_t meta_rank(std::uint64_t meta) { return static_cast<std::int32_t>(meta >> 32); }
inline std::uint64_t make_meta(std::int32_t action, std::int32_t rank) {
  return static_cast<std::uint32_t>(action) | static_cast<std::uint64_t>(static_cast<std::uint32_t>(rank)) << 32;
}

std::uint64_t hash_bytes(const std::uint8_t* data, int n);

// An indirect table's entry names a profile member, or a group (flagged), in place of an
// action: ids below 2^30.
inline constexpr std::uint32_t kIndirectGroupFlag = 1u << 30;
inline constexpr std::uint32_t kIndirectIdMask = kIndirectGroupFlag - 1;

// Entries by stable slot (ternary tables, short LPM prefixes). Record: key words | meta |
// runtime data. Slots are reused after a delete; the sequence number keeps "earliest insert
// wins among equal priorities" stable across reuse.
struct EntryStore {
  void init(int key_bytes, int data_limbs);
  int key_bytes = 0;
  int data_limbs = 0;
  int key_words = 0;
  int stride = 1;  // 64-bit words per record
  std::vector<std::uint64_t> recs;
  std::vector<std::uint8_t> masks;  // key_bytes per slot (ternary)
  std::vector<std::uint64_t> seq;
  std::vector<std::int32_t> next;   // chain within a ternary bucket
  std::vector<std::int32_t> free_slots;
  std::uint32_t count = 0;
  std::uint64_t next_seq = 0;

  std::size_t slots() const { return seq.size(); }
  const std::uint8_t* key(int slot) const { return reinterpret_cast<const std::uint8_t*>(&recs[rec(slot)]); }
  std::uint8_t* key_mut(int slot) { return reinterpret_cast<std::uint8_t*>(&recs[rec(slot)]); }
  const std::uint8_t* mask(int slot) const { return &masks[static_cast<std::size_t>(slot) * static_cast<std::size_t>(key_bytes)]; }
  std::uint8_t* mask_mut(int slot) { return &masks[static_cast<std::size_t>(slot) * static_cast<std::size_t>(key_bytes)]; }
  std::uint64_t* meta(int slot) { return &recs[rec(slot) + static_cast<std::size_t>(key_words)]; }
  const std::uint64_t* meta(int slot) const { return &recs[rec(slot) + static_cast<std::size_t>(key_words)]; }
  std::int32_t rank(int slot) const { return meta_rank(*meta(slot)); }
  bool live(int slot) const { return meta_action(*meta(slot)) >= 0; }
  // A new slot holding this key, meta and data (data_limbs words).
  int add(const std::uint8_t* key, std::uint64_t meta, const std::uint64_t* data);
  void release(int slot);

 private:
  std::size_t rec(int slot) const { return static_cast<std::size_t>(slot) * static_cast<std::size_t>(stride); }
};

// A hash of entries identified by their key bytes and a length (0 for exact tables, the
// prefix length for LPM, kept as the meta word's rank). Two arrays: a compact index of
// 32-bit buckets (an 11-bit tag of the hash and the record's slot) under open addressing
// with linear probing and backward-shift deletion, and the records themselves packed
// densely (key | meta | data). For a 65536-entry table that is 512 KiB of index and, for
// a MAC key, 1.5 MiB of records: a lookup's one likely miss is the record it needs anyway.
class RecordHash {
 public:
  void init(int key_bytes, int data_limbs);
  const std::uint64_t* find(const std::uint8_t* key, int len, std::uint64_t h) const;  // meta, or null
  const std::uint64_t* find(const std::uint8_t* key, int len) const { return find(key, len, hash(key, len)); }
  // An exact table's find (length 0) for a key whose last word is zero-padded, as every
  // record's is: whole-word compares, no call.
  const std::uint64_t* find_padded(const std::uint8_t* key) const {
    const auto kw = static_cast<std::size_t>(key_words_);
    return probe(hash(key, 0), [&](const std::uint64_t* r) {
      if (meta_rank(r[kw]) != 0) return false;
      for (std::size_t w = 0; w < kw; ++w) {
        std::uint64_t k;
        std::memcpy(&k, key + 8 * w, 8);
        if (k != r[w]) return false;
      }
      return true;
    });
  }
  std::uint64_t* find_mut(const std::uint8_t* key, int len) {
    return const_cast<std::uint64_t*>(static_cast<const RecordHash*>(this)->find(key, len));
  }
  void insert(const std::uint8_t* key, int len, std::uint64_t meta, const std::uint64_t* data);
  bool erase(const std::uint8_t* key, int len);
  std::size_t size() const { return size_; }
  std::uint64_t hash(const std::uint8_t* key, int len) const {
    return hash_bytes(key, key_bytes_) ^ (static_cast<std::uint64_t>(len + 1) * 0x9e3779b97f4a7c15ull);
  }
  // Calls f(key, meta pointer) for every entry.
  template <typename F>
  void for_each(F f) const {
    for (std::size_t s = 0; s < slots_; ++s) {
      const std::uint64_t* r = &recs_[s * static_cast<std::size_t>(stride_)];
      if (meta_action(r[key_words_]) >= 0) f(reinterpret_cast<const std::uint8_t*>(r), r + key_words_);
    }
  }

 private:
  static constexpr int kSlotBits = 21;  // slot + 1; the entry budget is 2^20
  // An index bucket: 11 bits of the hash (its top, disjoint from the bits that pick the home
  // bucket) to skip most non-matching records unread, and the record's slot + 1.
  static std::uint32_t tag_of(std::uint64_t h) { return static_cast<std::uint32_t>(h >> 53); }
  // The meta word of the record from h's home bucket on that `match` accepts, or null.
  template <typename Match>
  const std::uint64_t* probe(std::uint64_t h, Match match) const {
    if (index_.empty()) return nullptr;
    const std::size_t mask = index_.size() - 1;
    const std::uint32_t tag = tag_of(h);
    for (std::size_t i = static_cast<std::uint32_t>(h) & mask;; i = (i + 1) & mask) {
      const std::uint32_t b = index_[i];
      if (b == 0) return nullptr;
      if ((b >> kSlotBits) != tag) continue;
      const std::uint64_t* r = rec(b);
      if (match(r)) return r + key_words_;
    }
  }
  void grow();
  std::size_t home(const std::uint64_t* rec) const;
  const std::uint64_t* rec(std::uint32_t bucket) const {
    return &recs_[static_cast<std::size_t>((bucket & ((1u << kSlotBits) - 1)) - 1) * static_cast<std::size_t>(stride_)];
  }
  int key_bytes_ = 0, key_words_ = 0, data_limbs_ = 0, stride_ = 0;
  std::vector<std::uint32_t> index_;  // 0: empty
  std::vector<std::uint64_t> recs_;   // slots_ records; a free one has action -1
  std::vector<std::uint32_t> free_;
  std::size_t slots_ = 0, size_ = 0;
};

// Longest-prefix match in two parts, both sized by the key's width, not the entry count:
//  - prefixes of at most R bits (R = 8, or 16 once the table holds more than
//    P4_LPM_WIDE_ROOT_AT entries) are expanded into a directory of 2^R slots indexed by the
//    key's first R bits;
//  - longer prefixes go into one RecordHash keyed by (key under the prefix, length), and
//    each directory slot keeps a bitmap of the lengths present below it.
// A lookup reads its directory slot, then probes that bitmap's lengths, longest first, and
// stops at the first hit: at most key bits - R probes, on average about one.
class LpmTable {
 public:
  void init(int key_bytes, int data_limbs);
  const std::uint64_t* lookup(const std::uint8_t* key, std::uint8_t* scratch) const;
  std::uint64_t* find(const std::uint8_t* key, int prefix_bits);
  void insert(const std::uint8_t* key, int prefix_bits, std::uint64_t meta, const std::uint64_t* data);
  bool erase(const std::uint8_t* key, int prefix_bits);
  std::size_t size() const { return short_.count + long_.size(); }

 private:
  struct Entry {
    std::vector<std::uint8_t> key;
    int bits;
    std::uint64_t meta;
    std::vector<std::uint64_t> data;
  };
  void place(const std::uint8_t* key, int bits, std::uint64_t meta, const std::uint64_t* data);
  void rebuild(int root_bits);
  std::uint32_t root_index(const std::uint8_t* key) const;
  std::uint64_t* length_word(std::uint32_t r, int bit);
  std::uint64_t length_bit(int bit) const { return 1ull << (packed_ ? 32 + bit : bit % 64); }
  void set_best(std::uint32_t r, std::int32_t slot);
  int key_bytes_ = 0, data_limbs_ = 0;
  int root_bits_ = 0;  // 0: no memory taken yet
  int words_ = 0;      // bitmap words per directory slot
  // Per directory slot, in one run of words so that a lookup reads one cache line: the
  // longest prefix of <= R bits covering it (short_ slot + 1, 0 none) and the bitmap of
  // longer lengths below it (bit L - R - 1 = a prefix of L bits). When the key has at most
  // R + 32 bits (IPv4 and narrower) both share one word: the prefix low, the bitmap high.
  std::vector<std::uint64_t> dir_;
  int dir_words_ = 0;
  bool packed_ = false;
  std::vector<std::int8_t> best_len_;  // length of each directory slot's best, -1 none
  std::vector<std::int32_t> own_;      // short prefixes: (1 << b) - 1 + value -> short_ slot
  std::map<std::pair<std::uint32_t, int>, std::uint32_t> length_count_;  // (slot, L) -> prefixes
  EntryStore short_;
  RecordHash long_;
};

// Two searches over the same entries, chosen by the table's shape:
//  - tuple-space search: one hash probe per distinct mask, masks visited by their best
//    entry (priority, then the lowest handle), stopped once none can win; cheap with few
//    masks, whatever the number of entries;
//  - bit vectors (Lakshman and Stiliadis, SIGCOMM 1998) for tables of at most
//    kBitVectorMaxEntries entries and many masks: per key byte and byte value, the set of
//    entries that byte value matches, entries numbered in rank order, so that the first bit
//    of the sets' intersection is the winner; a one-word summary per set (which of its 64-bit
//    words are not empty) skips the words that cannot hold it.
// Both are brought up to date by the first lookup after a change, so that a commands file's
// thousands of inserts cost one sort and one bit-vector build, not one each.
class TernaryIndex {
 public:
  static constexpr std::size_t kBitVectorMaxEntries = 4096;  // 64 words: the summary is one word
  static constexpr int kBitVectorMaxKeyBytes = 16;
  static constexpr std::size_t kBitVectorMinMasks = 16;
  static_assert(kBitVectorMaxEntries <= 64 * 64, "a bit-vector summary is one 64-bit word");

  explicit TernaryIndex(EntryStore* store) : store_(store) {}
  // The matching slot of highest priority (the lowest handle among equals), or -1.
  // `scratch` must hold key_bytes bytes.
  int lookup(const std::uint8_t* key, std::uint8_t* scratch);
  // The slot with this masked key, mask and priority, or -1.
  int find(const std::uint8_t* key, const std::uint8_t* mask, std::int32_t priority) const;
  void insert(int slot);
  void erase(int slot);

 private:
  // Masked key -> the best slot of its bucket (the others chain behind it through next).
  struct Heads {
    explicit Heads(const EntryStore* s) : store(s) {}
    int find(const std::uint8_t* key) const;
    void set(const std::uint8_t* key, int slot);  // slot -1 removes
    const EntryStore* store;
    RecordHash hash;  // key -> meta word holding the head slot
  };
  struct Group {
    std::vector<std::uint8_t> mask;
    std::unique_ptr<Heads> heads;
    std::size_t entries = 0;
    // Its best entry: kept by insert; after the delete of that entry, found again by reorder()
    // among its buckets' heads (rescan).
    std::int32_t max_priority = 0;
    std::uint64_t first_handle = 0;  // the lowest handle at max_priority
    bool rescan = false;
  };
  Group* group_for(const std::uint8_t* mask) const;
  void changed() { order_dirty_ = bits_dirty_ = true; }
  void reorder();
  bool better(int a, int b) const;  // a beats b
  int lookup_bits(const std::uint8_t* key);
  void rebuild_bits();
  // Bit vectors: rows_[(byte * 256 + value) * words_ + w], bit i = order_[i] matches;
  // summary_[byte * 256 + value], bit w = that row's word w is not zero (words_ <= 64), so
  // that a lookup ANDs only the words every byte's row has a bit in.
  bool order_dirty_ = false;  // groups_ needs reorder()
  bool bits_dirty_ = true;
  bool use_bits_ = false;
  std::size_t words_ = 0;
  std::vector<std::uint64_t> rows_;
  std::vector<std::uint64_t> summary_;
  std::vector<std::int32_t> order_;
  EntryStore* store_;
  std::vector<std::unique_ptr<Group>> groups_;  // by max_priority, highest first
};

}  // namespace dpusim::p4
