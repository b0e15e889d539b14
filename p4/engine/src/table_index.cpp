// Lookup structures of the tables (see tables.h for why each one).
#include <algorithm>
#include <cstring>

#include "tables.h"

namespace dpusim::p4 {

int EntryStore::allocate() {
  if (!free_slots.empty()) {
    int slot = free_slots.back();
    free_slots.pop_back();
    return slot;
  }
  int slot = static_cast<int>(action.size());
  keys.resize(keys.size() + static_cast<std::size_t>(key_bytes));
  masks.resize(masks.size() + static_cast<std::size_t>(key_bytes));
  data.resize(data.size() + static_cast<std::size_t>(data_limbs));
  action.push_back(-1);
  priority.push_back(0);
  prefix_len.push_back(0);
  seq.push_back(0);
  next.push_back(-1);
  return slot;
}

void EntryStore::release(int slot) {
  action[slot] = -1;
  free_slots.push_back(slot);
}

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

// --- ExactIndex ------------------------------------------------------------------------

int ExactIndex::find_hashed(const std::uint8_t* key, std::uint64_t h) const {
  if (buckets_.empty()) return -1;
  const std::size_t mask = buckets_.size() - 1;
  const auto tag = static_cast<std::uint32_t>(h);
  const auto kb = static_cast<std::size_t>(store_->key_bytes);
  for (std::size_t i = tag & mask;; i = (i + 1) & mask) {
    const Bucket& b = buckets_[i];
    if (b.slot < 0) return -1;
    if (b.tag == tag && std::memcmp(store_->key(b.slot), key, kb) == 0) return b.slot;
  }
}

void ExactIndex::grow() {
  std::vector<Bucket> old = std::move(buckets_);
  buckets_.assign(old.empty() ? 16 : old.size() * 2, Bucket{0, -1});
  const std::size_t mask = buckets_.size() - 1;
  for (const Bucket& b : old) {
    if (b.slot < 0) continue;
    std::size_t i = b.tag & mask;
    while (buckets_[i].slot >= 0) i = (i + 1) & mask;
    buckets_[i] = b;
  }
}

void ExactIndex::insert(int slot) {
  // Load factor at most 1/2 keeps probe sequences short.
  if ((size_ + 1) * 2 > buckets_.size()) grow();
  const auto tag = static_cast<std::uint32_t>(hash_bytes(store_->key(slot), store_->key_bytes));
  const std::size_t mask = buckets_.size() - 1;
  std::size_t i = tag & mask;
  while (buckets_[i].slot >= 0) i = (i + 1) & mask;
  buckets_[i] = Bucket{tag, slot};
  ++size_;
}

void ExactIndex::erase(int slot) {
  if (buckets_.empty()) return;
  const auto tag = static_cast<std::uint32_t>(hash_bytes(store_->key(slot), store_->key_bytes));
  const std::size_t mask = buckets_.size() - 1;
  std::size_t i = tag & mask;
  while (buckets_[i].slot != slot) {
    if (buckets_[i].slot < 0) return;
    i = (i + 1) & mask;
  }
  // Backward-shift deletion: pull later members of the run into the hole unless their
  // home position lies cyclically in (hole, their position].
  std::size_t k = i;
  for (;;) {
    k = (k + 1) & mask;
    if (buckets_[k].slot < 0) break;
    std::size_t home = buckets_[k].tag & mask;
    bool stays = (i <= k) ? (i < home && home <= k) : (i < home || home <= k);
    if (stays) continue;
    buckets_[i] = buckets_[k];
    i = k;
  }
  buckets_[i].slot = -1;
  --size_;
}

// --- LpmIndex --------------------------------------------------------------------------

namespace {

inline int nibble(const std::uint8_t* key, int i) { return (i & 1) ? (key[i >> 1] & 0xf) : (key[i >> 1] >> 4); }

}  // namespace

int LpmIndex::new_node() {
  int n;
  if (!free_nodes_.empty()) {
    n = free_nodes_.back();
    free_nodes_.pop_back();
  } else {
    n = static_cast<int>(nodes_.size());
    nodes_.emplace_back();
  }
  Node& node = nodes_[n];
  std::fill(std::begin(node.child), std::end(node.child), -1);
  std::fill(std::begin(node.own), std::end(node.own), -1);
  node.used = 0;
  return n;
}

int LpmIndex::lookup(const std::uint8_t* key) const {
  if (nodes_.empty()) return -1;
  const int nibbles = store_->key_bytes * 2;
  int best = nodes_[0].own[0];
  int node = 0;
  for (int d = 0; d < nibbles; ++d) {
    const Node& n = nodes_[node];
    const int nib = nibble(key, d);
    // Longest within this nibble first; a deeper node's match overrides later.
    if (n.own[15 + nib] >= 0) best = n.own[15 + nib];
    else if (n.own[7 + (nib >> 1)] >= 0) best = n.own[7 + (nib >> 1)];
    else if (n.own[3 + (nib >> 2)] >= 0) best = n.own[3 + (nib >> 2)];
    else if (n.own[1 + (nib >> 3)] >= 0) best = n.own[1 + (nib >> 3)];
    node = n.child[nib];
    if (node < 0) break;
  }
  return best;
}

int LpmIndex::find(const std::uint8_t* key, int prefix_bits) const {
  if (nodes_.empty()) return -1;
  if (prefix_bits == 0) return nodes_[0].own[0];
  int depth = (prefix_bits - 1) / 4, b = prefix_bits - 4 * depth;
  int node = 0;
  for (int d = 0; d < depth; ++d) {
    node = nodes_[node].child[nibble(key, d)];
    if (node < 0) return -1;
  }
  return nodes_[node].own[(1 << b) - 1 + (nibble(key, depth) >> (4 - b))];
}

void LpmIndex::insert(int slot, int prefix_bits) {
  if (nodes_.empty()) new_node();
  const std::uint8_t* key = store_->key(slot);
  if (prefix_bits == 0) {
    if (nodes_[0].own[0] < 0) ++nodes_[0].used;
    nodes_[0].own[0] = slot;
    return;
  }
  int depth = (prefix_bits - 1) / 4, b = prefix_bits - 4 * depth;
  int node = 0;
  for (int d = 0; d < depth; ++d) {
    int nib = nibble(key, d);
    int c = nodes_[node].child[nib];
    if (c < 0) {
      c = new_node();  // may move nodes_: index again below
      nodes_[node].child[nib] = c;
      ++nodes_[node].used;
    }
    node = c;
  }
  std::int32_t& own = nodes_[node].own[(1 << b) - 1 + (nibble(key, depth) >> (4 - b))];
  if (own < 0) ++nodes_[node].used;
  own = slot;
}

void LpmIndex::erase(int slot, int prefix_bits) {
  if (nodes_.empty()) return;
  const std::uint8_t* key = store_->key(slot);
  if (prefix_bits == 0) {
    if (nodes_[0].own[0] == slot) {
      nodes_[0].own[0] = -1;
      --nodes_[0].used;
    }
    return;
  }
  int depth = (prefix_bits - 1) / 4, b = prefix_bits - 4 * depth;
  std::vector<int> path{0};
  for (int d = 0; d < depth; ++d) {
    int c = nodes_[path.back()].child[nibble(key, d)];
    if (c < 0) return;
    path.push_back(c);
  }
  std::int32_t& own = nodes_[path.back()].own[(1 << b) - 1 + (nibble(key, depth) >> (4 - b))];
  if (own != slot) return;
  own = -1;
  --nodes_[path.back()].used;
  // Free nodes left empty, bottom up (never the root).
  for (int d = depth; d > 0 && nodes_[path[d]].used == 0; --d) {
    free_nodes_.push_back(path[d]);
    nodes_[path[d - 1]].child[nibble(key, d - 1)] = -1;
    --nodes_[path[d - 1]].used;
  }
}

// --- TernaryIndex ----------------------------------------------------------------------

bool TernaryIndex::better(int a, int b) const {
  if (store_->priority[a] != store_->priority[b]) return store_->priority[a] > store_->priority[b];
  return store_->seq[a] < store_->seq[b];
}

TernaryIndex::Group* TernaryIndex::group_for(const std::uint8_t* mask) const {
  const auto kb = static_cast<std::size_t>(store_->key_bytes);
  for (const auto& g : groups_)
    if (std::memcmp(g->mask.data(), mask, kb) == 0) return g.get();
  return nullptr;
}

void TernaryIndex::reorder() {
  std::stable_sort(groups_.begin(), groups_.end(),
                   [](const std::unique_ptr<Group>& a, const std::unique_ptr<Group>& b) {
                     return a->max_priority > b->max_priority;
                   });
}

int TernaryIndex::lookup(const std::uint8_t* key, std::uint8_t* scratch) const {
  const int kb = store_->key_bytes;
  int best = -1;
  for (const auto& g : groups_) {
    // Groups come by their best priority: once that cannot beat the match, none can.
    if (best >= 0 && g->max_priority < store_->priority[best]) break;
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
  for (int s = g->heads->find(key); s >= 0; s = store_->next[s])
    if (store_->priority[s] == priority) return s;
  return -1;
}

void TernaryIndex::insert(int slot) {
  Group* g = group_for(store_->mask(slot));
  if (g == nullptr) {
    auto ng = std::make_unique<Group>();
    ng->mask.assign(store_->mask(slot), store_->mask(slot) + store_->key_bytes);
    ng->heads = std::make_unique<ExactIndex>(store_);
    g = ng.get();
    groups_.push_back(std::move(ng));
  }
  int head = g->heads->find(store_->key(slot));
  if (head < 0) {
    store_->next[slot] = -1;
    g->heads->insert(slot);
  } else if (better(slot, head)) {
    store_->next[slot] = head;
    g->heads->erase(head);
    g->heads->insert(slot);
  } else {
    int prev = head;
    while (store_->next[prev] >= 0 && better(store_->next[prev], slot)) prev = store_->next[prev];
    store_->next[slot] = store_->next[prev];
    store_->next[prev] = slot;
  }
  ++g->priorities[store_->priority[slot]];
  g->max_priority = g->priorities.rbegin()->first;
  reorder();
}

void TernaryIndex::erase(int slot) {
  Group* g = group_for(store_->mask(slot));
  if (g == nullptr) return;
  int head = g->heads->find(store_->key(slot));
  if (head == slot) {
    g->heads->erase(slot);
    if (store_->next[slot] >= 0) g->heads->insert(store_->next[slot]);
  } else {
    for (int s = head; s >= 0; s = store_->next[s])
      if (store_->next[s] == slot) {
        store_->next[s] = store_->next[slot];
        break;
      }
  }
  store_->next[slot] = -1;
  auto it = g->priorities.find(store_->priority[slot]);
  if (it != g->priorities.end() && --it->second == 0) g->priorities.erase(it);
  if (g->priorities.empty()) {
    groups_.erase(std::find_if(groups_.begin(), groups_.end(), [g](const std::unique_ptr<Group>& x) { return x.get() == g; }));
  } else {
    g->max_priority = g->priorities.rbegin()->first;
  }
  reorder();
}

}  // namespace dpusim::p4
