// The lookup structures against a brute-force model that scans every entry, over seeded
// random inserts, deletes and lookups (tables.h is the engine's internal header).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "tables.h"

namespace dpusim::p4::test {
namespace {

using Key = std::vector<std::uint8_t>;

Key random_key(std::mt19937_64& rng, int bytes) {
  Key k(static_cast<std::size_t>(bytes));
  for (auto& b : k) b = static_cast<std::uint8_t>(rng());
  return k;
}

Key under_prefix(Key k, int bits) {
  for (std::size_t i = 0; i < k.size(); ++i) {
    int keep = std::clamp(bits - static_cast<int>(i) * 8, 0, 8);
    k[i] &= static_cast<std::uint8_t>(0xff00u >> keep);
  }
  return k;
}

TEST(RecordHash, MatchesAMapOverInsertsAndDeletes) {
  std::mt19937_64 rng(7);
  RecordHash h;
  h.init(6, 1);
  std::map<Key, std::uint64_t> model;
  for (int step = 0; step < 20000; ++step) {
    Key k = random_key(rng, 6);
    k[0] &= 0x03;  // a small key space, so deletes and re-inserts hit
    k[1] = k[2] = 0;
    if (rng() % 3 != 0) {
      if (model.count(k) == 0) {
        std::uint64_t data = rng();
        h.insert(k.data(), 0, make_meta(static_cast<std::int32_t>(data & 0xff), 0), &data);
        model[k] = data;
      }
    } else {
      EXPECT_EQ(h.erase(k.data(), 0), model.erase(k) == 1);
    }
    Key probe = random_key(rng, 6);
    probe[0] &= 0x03;
    probe[1] = probe[2] = 0;
    const std::uint64_t* m = h.find(probe.data(), 0);
    auto it = model.find(probe);
    ASSERT_EQ(m != nullptr, it != model.end());
    if (m) {
      EXPECT_EQ(m[1], it->second);
    }
  }
  EXPECT_EQ(h.size(), model.size());
}

struct Prefix {
  Key key;
  int bits;
  std::int32_t action;
};

int brute_lpm(const std::vector<Prefix>& live, const Key& key) {
  int best = -1, best_bits = -1;
  for (const Prefix& p : live)
    if (p.bits > best_bits && under_prefix(key, p.bits) == p.key) {
      best = p.action;
      best_bits = p.bits;
    }
  return best;
}

void check_lpm(int key_bytes, int max_bits, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  LpmTable t;
  t.init(key_bytes, 1);
  std::vector<Prefix> live;
  std::vector<std::uint8_t> scratch(static_cast<std::size_t>(key_bytes));
  auto lookups = [&](int n) {
    for (int i = 0; i < n; ++i) {
      Key k = random_key(rng, key_bytes);
      if (!live.empty() && rng() % 2) {  // a key under an installed prefix
        const Prefix& p = live[rng() % live.size()];
        for (std::size_t b = 0; b < k.size(); ++b) {
          int keep = std::clamp(p.bits - static_cast<int>(b) * 8, 0, 8);
          std::uint8_t m = static_cast<std::uint8_t>(0xff00u >> keep);
          k[b] = static_cast<std::uint8_t>((p.key[b] & m) | (k[b] & ~m));
        }
      }
      const std::uint64_t* m = t.lookup(k.data(), scratch.data());
      ASSERT_EQ(m ? meta_action(*m) : -1, brute_lpm(live, k));
    }
  };
  // Past P4_LPM_WIDE_ROOT_AT the directory widens from 8 to 16 bits and is rebuilt.
  for (int i = 0; i < 3000; ++i) {
    int bits = static_cast<int>(rng() % static_cast<std::uint64_t>(max_bits + 1));
    Key k = under_prefix(random_key(rng, key_bytes), bits);
    auto same = std::find_if(live.begin(), live.end(), [&](const Prefix& p) { return p.bits == bits && p.key == k; });
    if (same != live.end()) continue;
    std::uint64_t data = static_cast<std::uint64_t>(i);
    t.insert(k.data(), bits, make_meta(i, bits), &data);
    live.push_back({k, bits, i});
    ASSERT_NE(t.find(k.data(), bits), nullptr);
    if (i % 100 == 0) lookups(50);
  }
  EXPECT_EQ(t.size(), live.size());
  lookups(2000);
  // Delete most of them, shortest prefixes included (they are expanded in the directory).
  std::shuffle(live.begin(), live.end(), rng);
  while (live.size() > 200) {
    const Prefix p = live.back();
    live.pop_back();
    ASSERT_TRUE(t.erase(p.key.data(), p.bits));
    EXPECT_FALSE(t.erase(p.key.data(), p.bits));
    EXPECT_EQ(t.find(p.key.data(), p.bits), nullptr);
    if (live.size() % 250 == 0) lookups(50);
  }
  lookups(2000);
}

TEST(LpmTable, MatchesBruteForceOnIpv4Keys) { check_lpm(4, 32, 11); }
TEST(LpmTable, MatchesBruteForceOnWideKeys) { check_lpm(17, 136, 12); }  // past one bitmap word
TEST(LpmTable, MatchesBruteForceOnOneByteKeys) { check_lpm(1, 8, 13); }

struct Rule {
  Key value, mask;
  std::int32_t priority;
  std::uint64_t order;
  int slot;
};

TEST(TernaryIndex, HighestPriorityWinsAndEarliestInsertAmongEquals) {
  std::mt19937_64 rng(21);
  const int kb = 5;
  EntryStore store;
  store.init(kb, 0);
  TernaryIndex idx(&store);
  std::vector<Key> masks;
  for (int i = 0; i < 12; ++i) masks.push_back(random_key(rng, kb));
  masks.push_back(Key(kb, 0));  // the don't-care of everything
  std::vector<Rule> live;
  std::uint64_t order = 0;
  std::vector<std::uint8_t> scratch(kb);
  auto check = [&](int n) {
    for (int i = 0; i < n; ++i) {
      Key k = random_key(rng, kb);
      if (!live.empty() && rng() % 2) {
        const Rule& r = live[rng() % live.size()];
        for (int b = 0; b < kb; ++b) k[b] = static_cast<std::uint8_t>((r.value[b] & r.mask[b]) | (k[b] & ~r.mask[b]));
      }
      const Rule* best = nullptr;
      for (const Rule& r : live) {
        bool hit = true;
        for (int b = 0; b < kb; ++b) hit = hit && (k[b] & r.mask[b]) == r.value[b];
        if (hit && (!best || r.priority > best->priority || (r.priority == best->priority && r.order < best->order))) best = &r;
      }
      ASSERT_EQ(idx.lookup(k.data(), scratch.data()), best ? best->slot : -1);
    }
  };
  for (int step = 0; step < 4000; ++step) {
    if (live.empty() || rng() % 4 != 0) {
      Rule r;
      r.mask = masks[rng() % masks.size()];
      r.value = random_key(rng, kb);
      r.value[0] &= 0x01;  // few distinct values, so many rules overlap
      for (int b = 1; b < kb; ++b) r.value[b] &= 0x03;
      for (int b = 0; b < kb; ++b) r.value[b] &= r.mask[b];
      r.priority = static_cast<std::int32_t>(1 + rng() % 4);  // many equal priorities
      if (idx.find(r.value.data(), r.mask.data(), r.priority) >= 0) continue;
      r.slot = store.add(r.value.data(), make_meta(0, r.priority), nullptr);
      std::copy(r.mask.begin(), r.mask.end(), store.mask_mut(r.slot));
      idx.insert(r.slot);
      r.order = order++;
      live.push_back(r);
    } else {
      // Deleting one rule never changes which of two equal others wins.
      std::size_t i = rng() % live.size();
      idx.erase(live[i].slot);
      store.release(live[i].slot);
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
    }
    if (step % 50 == 0) check(40);
  }
  check(2000);
}

// A commands file's shape: thousands of inserts over many masks (the bit-vector search) before
// the first lookup, which brings the mask order and the bit vectors up to date once; then
// deletes and inserts between lookups, each followed by the next lookup's rebuild.
TEST(TernaryIndex, ABulkLoadOverManyMasksThenDeletesAndInsertsMatchesBruteForce) {
  std::mt19937_64 rng(23);
  const int kb = 6;
  EntryStore store;
  store.init(kb, 0);
  TernaryIndex idx(&store);
  std::vector<Key> masks;
  for (int i = 0; i < 40; ++i) masks.push_back(random_key(rng, kb));
  std::vector<Rule> live;
  std::uint64_t order = 0;
  auto add = [&] {
    const Key& mask = masks[rng() % masks.size()];
    Key value = random_key(rng, kb);
    for (int b = 0; b < kb; ++b) value[b] &= static_cast<std::uint8_t>(mask[b] & 0x11);
    Rule r{value, mask, static_cast<std::int32_t>(1 + rng() % 3), 0, -1};
    if (idx.find(r.value.data(), r.mask.data(), r.priority) >= 0) return;
    r.slot = store.add(r.value.data(), make_meta(0, r.priority), nullptr);
    std::copy(r.mask.begin(), r.mask.end(), store.mask_mut(r.slot));
    idx.insert(r.slot);
    r.order = order++;
    live.push_back(r);
  };
  std::vector<std::uint8_t> scratch(kb);
  int hits = 0;
  auto check = [&](int n) {
    for (int i = 0; i < n; ++i) {
      Key k = random_key(rng, kb);
      for (auto& b : k) b &= 0x33;
      const Rule* best = nullptr;
      for (const Rule& r : live) {
        bool hit = true;
        for (int b = 0; b < kb; ++b) hit = hit && (k[b] & r.mask[b]) == r.value[b];
        if (hit && (!best || r.priority > best->priority || (r.priority == best->priority && r.order < best->order))) best = &r;
      }
      hits += best != nullptr;
      ASSERT_EQ(idx.lookup(k.data(), scratch.data()), best ? best->slot : -1);
    }
  };
  for (int i = 0; i < 3000; ++i) add();
  ASSERT_GT(live.size(), 2000u);
  check(3000);
  for (int step = 0; step < 600; ++step) {
    if (rng() % 2) {
      add();
    } else {
      std::size_t i = rng() % live.size();
      idx.erase(live[i].slot);
      store.release(live[i].slot);
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
    }
    if (step % 20 == 0) check(30);
  }
  check(3000);
  EXPECT_GT(hits, 1000);  // the keys hit entries, not only the miss
}

}  // namespace
}  // namespace dpusim::p4::test
