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
  std::uint64_t w = 0;
  std::memcpy(&w, p, static_cast<std::size_t>(n));
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

std::uint64_t RecordHash::hash(const std::uint8_t* key, int len) const {
  return hash_bytes(key, key_bytes_) ^ (static_cast<std::uint64_t>(len + 1) * 0x9e3779b97f4a7c15ull);
}

namespace {

// An index bucket: 11 bits of the hash (its top, disjoint from the bits that pick the home
// bucket) to skip most non-matching records unread, and the record's slot + 1.
inline std::uint32_t tag_of(std::uint64_t h) { return static_cast<std::uint32_t>(h >> 53); }

}  // namespace

std::size_t RecordHash::home(const std::uint64_t* r) const {
  return static_cast<std::uint32_t>(hash(reinterpret_cast<const std::uint8_t*>(r), meta_rank(r[key_words_]))) & (index_.size() - 1);
}

const std::uint64_t* RecordHash::find(const std::uint8_t* key, int len, std::uint64_t h) const {
  if (index_.empty()) return nullptr;
  const std::size_t mask = index_.size() - 1;
  const std::uint32_t tag = tag_of(h);
  const auto kb = static_cast<std::size_t>(key_bytes_);
  for (std::size_t i = static_cast<std::uint32_t>(h) & mask;; i = (i + 1) & mask) {
    const std::uint32_t b = index_[i];
    if (b == 0) return nullptr;
    if ((b >> kSlotBits) != tag) continue;
    const std::uint64_t* r = rec(b);
    if (meta_rank(r[key_words_]) == len && std::memcmp(r, key, kb) == 0) return r + key_words_;
  }
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
  std::stable_sort(groups_.begin(), groups_.end(),
                   [](const std::unique_ptr<Group>& a, const std::unique_ptr<Group>& b) { return a->max_priority > b->max_priority; });
}

int TernaryIndex::lookup(const std::uint8_t* key, std::uint8_t* scratch) const {
  const int kb = store_->key_bytes;
  int best = -1;
  for (const auto& g : groups_) {
    // Groups come by their best priority: once that cannot beat the match, none can.
    if (best >= 0 && g->max_priority < store_->rank(best)) break;
    const std::uint8_t* m = g->mask.data();
    for (int i = 0; i < kb; ++i) scratch[i] = key[i] & m[i];
    int s = g->heads->find(scratch);
    if (s >= 0 && (best < 0 || better(s, best))) best = s;
  }
  return best;
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
  ++g->priorities[store_->rank(slot)];
  g->max_priority = g->priorities.rbegin()->first;
  reorder();
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
  auto it = g->priorities.find(store_->rank(slot));
  if (it != g->priorities.end() && --it->second == 0) g->priorities.erase(it);
  if (g->priorities.empty()) {
    groups_.erase(std::find_if(groups_.begin(), groups_.end(), [g](const std::unique_ptr<Group>& x) { return x.get() == g; }));
  } else {
    g->max_priority = g->priorities.rbegin()->first;
  }
  reorder();
}

}  // namespace dpusim::p4
