// Table entries and the structures that find them.
//
// bmv2's reference engine reads every installed entry of a ternary or LPM table on each
// lookup; a 65536-entry table then costs each frame 65536 comparisons. Here:
//   exact   - a hash of the key (ExactIndex): one probe sequence;
//   LPM     - a 16-ary trie over the key's nibbles (LpmIndex): at most 2 nodes per key
//             byte, whatever the number of prefixes;
//   ternary - tuple-space search (TernaryIndex): one hash probe per distinct mask, visited
//             in order of their best priority, stopping once no mask can beat the match.
// A table takes memory when its first entry arrives (EntryStore grows on demand).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

namespace dpusim::p4 {

// The entries of one table, by slot. Slots are reused after a delete; the sequence number
// keeps "earliest insert wins among equal priorities" stable across reuse.
struct EntryStore {
  int key_bytes = 0;
  int data_limbs = 0;
  std::vector<std::uint8_t> keys;   // key_bytes per slot, already under the entry's mask
  std::vector<std::uint8_t> masks;  // key_bytes per slot
  std::vector<std::uint64_t> data;  // data_limbs per slot
  std::vector<std::int32_t> action; // -1: free slot
  std::vector<std::int32_t> priority;
  std::vector<std::int32_t> prefix_len;
  std::vector<std::uint64_t> seq;
  std::vector<std::int32_t> next;   // chain within a ternary bucket
  std::vector<std::int32_t> free_slots;
  std::uint32_t count = 0;
  std::uint64_t next_seq = 0;

  const std::uint8_t* key(int slot) const { return &keys[static_cast<std::size_t>(slot) * key_bytes]; }
  const std::uint8_t* mask(int slot) const { return &masks[static_cast<std::size_t>(slot) * key_bytes]; }
  const std::uint64_t* entry_data(int slot) const { return data.data() + static_cast<std::size_t>(slot) * data_limbs; }
  int allocate();
  void release(int slot);
};

std::uint64_t hash_bytes(const std::uint8_t* data, int n);

// Open addressing with linear probing and backward-shift deletion (no tombstones, so a
// long run of deletes cannot make lookups slower).
class ExactIndex {
 public:
  explicit ExactIndex(const EntryStore* store) : store_(store) {}
  // Slot whose stored key equals `key`, or -1.
  int find(const std::uint8_t* key) const { return find_hashed(key, hash_bytes(key, store_->key_bytes)); }
  int find_hashed(const std::uint8_t* key, std::uint64_t h) const;
  void insert(int slot);  // the slot's key must not be present
  void erase(int slot);
  std::size_t size() const { return size_; }

 private:
  struct Bucket {
    std::uint32_t tag;
    std::int32_t slot;  // -1: empty
  };
  void grow();
  const EntryStore* store_;
  std::vector<Bucket> buckets_;
  std::size_t size_ = 0;
};

class LpmIndex {
 public:
  explicit LpmIndex(const EntryStore* store) : store_(store) {}
  // The slot with the longest prefix matching `key`, or -1.
  int lookup(const std::uint8_t* key) const;
  // The slot holding exactly this prefix, or -1.
  int find(const std::uint8_t* key, int prefix_bits) const;
  void insert(int slot, int prefix_bits);
  void erase(int slot, int prefix_bits);

 private:
  // A node covers one nibble of the key. own[] holds the prefixes that end inside it: a
  // prefix of b bits into the nibble (b = 1..4) with value v sits at (1 << b) - 1 + v, and
  // a zero-length prefix (only at the root) at 0.
  struct Node {
    std::int32_t child[16];
    std::int32_t own[31];
    std::int32_t used;  // children + own entries, to free empty nodes
  };
  int new_node();
  const EntryStore* store_;
  std::vector<Node> nodes_;
  std::vector<std::int32_t> free_nodes_;
};

class TernaryIndex {
 public:
  explicit TernaryIndex(EntryStore* store) : store_(store) {}
  // The matching slot of highest priority (earliest insert among equals), or -1.
  // `scratch` must hold key_bytes bytes.
  int lookup(const std::uint8_t* key, std::uint8_t* scratch) const;
  // The slot with this masked key, mask and priority, or -1.
  int find(const std::uint8_t* key, const std::uint8_t* mask, std::int32_t priority) const;
  void insert(int slot);
  void erase(int slot);

 private:
  struct Group {
    std::vector<std::uint8_t> mask;
    std::unique_ptr<ExactIndex> heads;  // masked key -> best slot of its bucket
    std::map<std::int32_t, std::uint32_t> priorities;  // priority -> count
    std::int32_t max_priority = 0;
  };
  Group* group_for(const std::uint8_t* mask) const;
  void reorder();
  bool better(int a, int b) const;  // a beats b
  EntryStore* store_;
  std::vector<std::unique_ptr<Group>> groups_;  // by max_priority, highest first
};

}  // namespace dpusim::p4
