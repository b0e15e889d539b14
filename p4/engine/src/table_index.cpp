// Entry storage, the record hash and the ternary index (see tables.h for why each one).
#include <algorithm>
#include <cstring>

#include "tables.h"

namespace dpusim::p4 {

namespace {

// A record of up to a cache line is padded to a power of two words, so none straddles two.
int padded(int words) {
  if (words <= 8)
    while (words & (words - 1)) ++words;
  return words;
}

}  // namespace

std::uint64_t hash_bytes(const std::uint8_t* p, int n) {
  // A multiply-xorshift mix over 8-byte words: keys here are short and fixed-length, and
  // the mix is deterministic (no per-process seed), so runs replay exactly.
  std::uint64_t h = 0x9e3779b97f4a7c15ull ^ static_cast<std::uint64_t>(n);
  while (n >= 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
    h ^= h >> 31;
    p += 8;
    n -= 8;
  }
  // The last 0-7 bytes in two overlapping loads (or three bytes): every byte read, no call.
  std::uint64_t w = 0;
  if (n >= 4) {
    std::uint32_t a, b;
    std::memcpy(&a, p, 4);
    std::memcpy(&b, p + n - 4, 4);
    w = a | static_cast<std::uint64_t>(b) << 32;
  } else if (n > 0) {
    w = p[0] | static_cast<std::uint64_t>(p[n / 2]) << 8 | static_cast<std::uint64_t>(p[n - 1]) << 16;
  }
  h = (h ^ w ^ (static_cast<std::uint64_t>(n) << 56)) * 0x94d049bb133111ebull;
  h ^= h >> 29;
  h *= 0xd6e8feb86659fd93ull;
  h ^= h >> 32;
  return h;
}

// --- EntryStore ------------------------------------------------------------------------

void EntryStore::init(int key_bytes_, int data_limbs_) {
  key_bytes = key_bytes_;
  data_limbs = data_limbs_;
  key_words = (key_bytes + 7) / 8;
  stride = padded(key_words + 1 + data_limbs);
}

int EntryStore::add(const std::uint8_t* key, std::uint64_t m, const std::uint64_t* data) {
  int slot;
  if (!free_slots.empty()) {
    slot = free_slots.back();
    free_slots.pop_back();
  } else {
    slot = static_cast<int>(seq.size());
    recs.resize(recs.size() + static_cast<std::size_t>(stride), 0);
    masks.resize(masks.size() + static_cast<std::size_t>(key_bytes));
    seq.push_back(0);
    next.push_back(-1);
  }
  std::uint64_t* r = &recs[rec(slot)];
  std::fill(r, r + stride, 0);
  std::memcpy(r, key, static_cast<std::size_t>(key_bytes));
  r[key_words] = m;
  std::copy(data, data + data_limbs, r + key_words + 1);
  seq[static_cast<std::size_t>(slot)] = next_seq++;
  next[static_cast<std::size_t>(slot)] = -1;
  ++count;
  return slot;
}

void EntryStore::release(int slot) {
  *meta(slot) = make_meta(-1, 0);
  free_slots.push_back(slot);
  --count;
}

// --- RecordHash ------------------------------------------------------------------------

void RecordHash::init(int key_bytes, int data_limbs) {
  key_bytes_ = key_bytes;
  key_words_ = (key_bytes + 7) / 8;
  data_limbs_ = data_limbs;
  stride_ = key_words_ + 1 + data_limbs;
}

std::size_t RecordHash::home(const std::uint64_t* r) const {
  return static_cast<std::uint32_t>(hash(reinterpret_cast<const std::uint8_t*>(r), meta_rank(r[key_words_]))) & (index_.size() - 1);
}

const std::uint64_t* RecordHash::find(const std::uint8_t* key, int len, std::uint64_t h) const {
  const auto kb = static_cast<std::size_t>(key_bytes_);
  return probe(h, [&](const std::uint64_t* r) { return meta_rank(r[key_words_]) == len && std::memcmp(r, key, kb) == 0; });
}

void RecordHash::grow() {
  // Load factor at most 1/2 keeps probe runs short; the index is rebuilt from the records.
  index_.assign(index_.empty() ? 16 : index_.size() * 2, 0);
  const std::size_t mask = index_.size() - 1;
  for (std::size_t s = 0; s < slots_; ++s) {
    const std::uint64_t* r = &recs_[s * static_cast<std::size_t>(stride_)];
    if (meta_action(r[key_words_]) < 0) continue;
    std::uint64_t h = hash(reinterpret_cast<const std::uint8_t*>(r), meta_rank(r[key_words_]));
    std::size_t i = static_cast<std::uint32_t>(h) & mask;
    while (index_[i] != 0) i = (i + 1) & mask;
    index_[i] = (tag_of(h) << kSlotBits) | static_cast<std::uint32_t>(s + 1);
  }
}

void RecordHash::insert(const std::uint8_t* key, int len, std::uint64_t meta, const std::uint64_t* data) {
  std::size_t slot;
  if (!free_.empty()) {
    slot = free_.back();
    free_.pop_back();
  } else {
    slot = slots_++;
    recs_.resize(slots_ * static_cast<std::size_t>(stride_));
  }
  std::uint64_t* r = &recs_[slot * static_cast<std::size_t>(stride_)];
  std::fill(r, r + stride_, 0);
  std::memcpy(r, key, static_cast<std::size_t>(key_bytes_));
  r[key_words_] = meta;
  std::copy(data, data + data_limbs_, r + key_words_ + 1);
  ++size_;
  if (size_ * 2 > index_.size()) {
    grow();  // indexes every record, this one included
    return;
  }
  const std::uint64_t h = hash(key, len);
  const std::size_t mask = index_.size() - 1;
  std::size_t i = static_cast<std::uint32_t>(h) & mask;
  while (index_[i] != 0) i = (i + 1) & mask;
  index_[i] = (tag_of(h) << kSlotBits) | static_cast<std::uint32_t>(slot + 1);
}

bool RecordHash::erase(const std::uint8_t* key, int len) {
  const std::uint64_t* m = find(key, len);
  if (m == nullptr) return false;
  const std::size_t slot = static_cast<std::size_t>(m - key_words_ - recs_.data()) / static_cast<std::size_t>(stride_);
  const std::size_t mask = index_.size() - 1;
  std::size_t i = static_cast<std::uint32_t>(hash(key, len)) & mask;
  while ((index_[i] & ((1u << kSlotBits) - 1)) != slot + 1) i = (i + 1) & mask;
  // Backward-shift deletion: pull later members of the run into the hole unless their
  // home bucket lies cyclically in (hole, their position].
  std::size_t k = i;
  for (;;) {
    k = (k + 1) & mask;
    if (index_[k] == 0) break;
    std::size_t h = home(rec(index_[k]));
    bool stays = (i <= k) ? (i < h && h <= k) : (i < h || h <= k);
    if (stays) continue;
    index_[i] = index_[k];
    i = k;
  }
  index_[i] = 0;
  recs_[slot * static_cast<std::size_t>(stride_) + static_cast<std::size_t>(key_words_)] = make_meta(-1, 0);
  free_.push_back(static_cast<std::uint32_t>(slot));
  --size_;
  return true;
}

// --- TernaryIndex ----------------------------------------------------------------------

int TernaryIndex::Heads::find(const std::uint8_t* key) const {
  const std::uint64_t* m = hash.find(key, 0);
  return m == nullptr ? -1 : meta_action(*m);
}

void TernaryIndex::Heads::set(const std::uint8_t* key, int slot) {
  std::uint64_t* m = hash.find_mut(key, 0);
  if (slot < 0) {
    if (m != nullptr) hash.erase(key, 0);
  } else if (m != nullptr) {
    *m = make_meta(slot, 0);
  } else {
    hash.insert(key, 0, make_meta(slot, 0), nullptr);
  }
}

bool TernaryIndex::better(int a, int b) const {
  if (store_->rank(a) != store_->rank(b)) return store_->rank(a) > store_->rank(b);
  return store_->seq[static_cast<std::size_t>(a)] < store_->seq[static_cast<std::size_t>(b)];
}

TernaryIndex::Group* TernaryIndex::group_for(const std::uint8_t* mask) const {
  const auto kb = static_cast<std::size_t>(store_->key_bytes);
  for (const auto& g : groups_)
    if (std::memcmp(g->mask.data(), mask, kb) == 0) return g.get();
  return nullptr;
}

void TernaryIndex::reorder() {
  // By the best entry each mask holds: the highest priority, then the lowest handle. A
  // bucket's chain runs best first, so its head is its best.
  order_dirty_ = false;
  for (const auto& g : groups_) {
    if (!g->rescan) continue;
    g->rescan = false;
    int best = -1;
    g->heads->hash.for_each([&](const std::uint8_t*, const std::uint64_t* m) {
      const int head = meta_action(*m);
      if (best < 0 || better(head, best)) best = head;
    });
    g->max_priority = store_->rank(best);
    g->first_handle = store_->seq[static_cast<std::size_t>(best)];
  }
  std::stable_sort(groups_.begin(), groups_.end(), [](const std::unique_ptr<Group>& a, const std::unique_ptr<Group>& b) {
    if (a->max_priority != b->max_priority) return a->max_priority > b->max_priority;
    return a->first_handle < b->first_handle;
  });
}

int TernaryIndex::lookup(const std::uint8_t* key, std::uint8_t* scratch) {
  if (order_dirty_) reorder();
  if (bits_dirty_) rebuild_bits();
  if (use_bits_) return lookup_bits(key);
  const int kb = store_->key_bytes;
  int best = -1;
  for (const auto& g : groups_) {
    // Groups come by their best entry: once that cannot beat the match, none can.
    if (best >= 0) {
      const std::int32_t r = store_->rank(best);
      if (g->max_priority < r || (g->max_priority == r && g->first_handle > store_->seq[static_cast<std::size_t>(best)])) break;
    }
    const std::uint8_t* m = g->mask.data();
    for (int i = 0; i < kb; ++i) scratch[i] = key[i] & m[i];
    int s = g->heads->find(scratch);
    if (s >= 0 && (best < 0 || better(s, best))) best = s;
  }
  return best;
}

void TernaryIndex::rebuild_bits() {
  bits_dirty_ = false;
  const int kb = store_->key_bytes;
  use_bits_ = store_->count <= kBitVectorMaxEntries && kb <= kBitVectorMaxKeyBytes && groups_.size() >= kBitVectorMinMasks;
  rows_.clear();
  summary_.clear();
  order_.clear();
  if (!use_bits_) return;
  for (std::size_t slot = 0; slot < store_->slots(); ++slot)
    if (store_->live(static_cast<int>(slot))) order_.push_back(static_cast<std::int32_t>(slot));
  std::sort(order_.begin(), order_.end(), [this](std::int32_t a, std::int32_t b) { return better(a, b); });
  words_ = (order_.size() + 63) / 64;
  rows_.assign(static_cast<std::size_t>(kb) * 256 * words_, 0);
  for (std::size_t i = 0; i < order_.size(); ++i) {
    const std::uint8_t* k = store_->key(order_[i]);
    const std::uint8_t* m = store_->mask(order_[i]);
    for (int b = 0; b < kb; ++b) {
      // The byte values v with v & mask == key: the key with each subset of the bits the
      // mask leaves free (none where the key has a bit the mask clears).
      if (k[b] & ~m[b]) continue;
      const unsigned free_bits = ~m[b] & 0xffu;
      unsigned sub = 0;
      do {
        rows_[(static_cast<std::size_t>(b) * 256 + (k[b] | sub)) * words_ + i / 64] |= 1ull << (i % 64);
        sub = (sub - free_bits) & free_bits;
      } while (sub != 0);
    }
  }
  summary_.assign(static_cast<std::size_t>(kb) * 256, 0);
  for (std::size_t r = 0; r < summary_.size(); ++r)
    for (std::size_t w = 0; w < words_; ++w)
      if (rows_[r * words_ + w] != 0) summary_[r] |= 1ull << w;
}

int TernaryIndex::lookup_bits(const std::uint8_t* key) {
  const int kb = store_->key_bytes;
  const std::uint64_t* row[kBitVectorMaxKeyBytes];
  // The words every byte's row has a bit in: only those can hold a match.
  std::uint64_t candidates = ~0ull;
  for (int b = 0; b < kb; ++b) {
    const std::size_t r = static_cast<std::size_t>(b) * 256 + key[b];
    candidates &= summary_[r];
    row[b] = &rows_[r * words_];
  }
  // Word by word: the first word with a bit left holds the winner.
  for (; candidates != 0; candidates &= candidates - 1) {
    const auto w = static_cast<std::size_t>(__builtin_ctzll(candidates));
    std::uint64_t acc = ~0ull;
    for (int b = 0; b < kb && acc != 0; ++b) acc &= row[b][w];
    if (acc != 0) return order_[w * 64 + static_cast<std::size_t>(__builtin_ctzll(acc))];
  }
  return -1;
}

int TernaryIndex::find(const std::uint8_t* key, const std::uint8_t* mask, std::int32_t priority) const {
  Group* g = group_for(mask);
  if (g == nullptr) return -1;
  for (int s = g->heads->find(key); s >= 0; s = store_->next[static_cast<std::size_t>(s)])
    if (store_->rank(s) == priority) return s;
  return -1;
}

void TernaryIndex::insert(int slot) {
  Group* g = group_for(store_->mask(slot));
  if (g == nullptr) {
    auto ng = std::make_unique<Group>();
    ng->mask.assign(store_->mask(slot), store_->mask(slot) + store_->key_bytes);
    ng->heads = std::make_unique<Heads>(store_);
    ng->heads->hash.init(store_->key_bytes, 0);
    g = ng.get();
    groups_.push_back(std::move(ng));
  }
  auto& next = store_->next;
  const std::uint8_t* key = store_->key(slot);
  int head = g->heads->find(key);
  if (head < 0 || better(slot, head)) {
    next[static_cast<std::size_t>(slot)] = head;
    g->heads->set(key, slot);
  } else {
    int prev = head;
    while (next[static_cast<std::size_t>(prev)] >= 0 && better(next[static_cast<std::size_t>(prev)], slot))
      prev = next[static_cast<std::size_t>(prev)];
    next[static_cast<std::size_t>(slot)] = next[static_cast<std::size_t>(prev)];
    next[static_cast<std::size_t>(prev)] = slot;
  }
  const std::int32_t rank = store_->rank(slot);
  const std::uint64_t handle = store_->seq[static_cast<std::size_t>(slot)];
  if (g->entries++ == 0 || rank > g->max_priority || (rank == g->max_priority && handle < g->first_handle)) {
    g->max_priority = rank;
    g->first_handle = handle;
  }
  changed();
}

void TernaryIndex::erase(int slot) {
  Group* g = group_for(store_->mask(slot));
  if (g == nullptr) return;
  auto& next = store_->next;
  const std::uint8_t* key = store_->key(slot);
  int head = g->heads->find(key);
  if (head == slot) {
    g->heads->set(key, next[static_cast<std::size_t>(slot)]);
  } else {
    for (int s = head; s >= 0; s = next[static_cast<std::size_t>(s)])
      if (next[static_cast<std::size_t>(s)] == slot) {
        next[static_cast<std::size_t>(s)] = next[static_cast<std::size_t>(slot)];
        break;
      }
  }
  next[static_cast<std::size_t>(slot)] = -1;
  if (--g->entries == 0)
    groups_.erase(std::find_if(groups_.begin(), groups_.end(), [g](const std::unique_ptr<Group>& x) { return x.get() == g; }));
  else if (store_->rank(slot) == g->max_priority && store_->seq[static_cast<std::size_t>(slot)] == g->first_handle)
    g->rescan = true;
  changed();
}

}  // namespace dpusim::p4
