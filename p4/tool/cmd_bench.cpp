// `dpusim p4 bench`: frames per second of three programs and the cost of a lookup in a
// large table against a small one.
//
// The programs are written here as bmv2 JSON, in the shape p4c emits for v1model: an L2
// switch (exact table on the destination MAC), an L3 router (LPM on the IPv4 destination)
// and an ACL (ternary on source, destination and protocol). Entries and lookup keys come
// from a seeded generator, keys drawn uniformly from the installed entries. One frame
// buffer is reused and only its key bytes change between frames, so what differs between
// two figures is the table, not the memory traffic of the frames. The wall clock is read
// here only, to time the runs; nothing it reads reaches the engine.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "bench_bmv2.h"
#include "bench_programs.h"
#include "dpusim/p4/engine.h"
#include "tool.h"

namespace dpusim::p4::tool {

namespace {

std::string hex(std::uint64_t v, int nibbles) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "0x%0*llx", nibbles, static_cast<unsigned long long>(v));
  return buf;
}

struct Key {
  std::uint64_t a = 0, b = 0, c = 0;  // the key fields a frame carries
};

struct Case {
  std::unique_ptr<Engine> engine;
  std::vector<Key> keys;  // lookup keys, drawn from the installed entries
  std::size_t masks = 0;
};

std::unique_ptr<Engine> load(const std::string& json) {
  LoadError error;
  auto e = Engine::load(json, LoadOptions{}, &error);
  if (!e) std::cerr << "bench program refused: error[" << load_code_name(error.code) << "]: " << error.message << "\n";
  return e;
}

bool install(Engine& e, const TableUpdate& u) {
  UpdateError error;
  if (e.update(u, &error)) return true;
  std::cerr << "bench update refused: error[" << update_code_name(error.code) << "]: " << error.message << "\n";
  return false;
}

TableUpdate insert(const char* table, const char* action, std::vector<MatchField> match, std::uint32_t port) {
  TableUpdate u;
  u.type = UpdateType::kInsert;
  u.table = table;
  u.action = action;
  u.match = std::move(match);
  u.params.emplace_back("port", std::to_string(port));
  return u;
}

Case l2_case(std::size_t entries, std::mt19937_64& rng, std::size_t nkeys) {
  Case c;
  c.engine = load(bench_l2_program());
  std::set<std::uint64_t> macs;
  while (macs.size() < entries) macs.insert(rng() & 0xffffffffffffull);
  std::vector<std::uint64_t> list(macs.begin(), macs.end());
  for (std::uint64_t mac : list)
    if (!install(*c.engine, insert("ingress.dmac", "ingress.forward", {{"hdr.ethernet.dstAddr", hex(mac, 12), {}, {}, {}}},
                                   static_cast<std::uint32_t>(mac & 1))))
      return {};
  std::uniform_int_distribution<std::size_t> pick(0, list.size() - 1);
  for (std::size_t i = 0; i < nkeys; ++i) c.keys.push_back({list[pick(rng)], 0, 0});
  return c;
}

Case l3_case(std::size_t entries, std::mt19937_64& rng, std::size_t nkeys) {
  Case c;
  c.engine = load(bench_l3_program());
  // Prefix lengths as a routing table has them: mostly /24, the rest /8 to /32.
  std::set<std::pair<std::uint32_t, int>> prefixes;
  std::uniform_int_distribution<int> len_any(8, 32);
  while (prefixes.size() < entries) {
    int len = (rng() % 10 < 6) ? 24 : len_any(rng);
    std::uint32_t mask = len == 0 ? 0 : ~0u << (32 - len);
    prefixes.insert({static_cast<std::uint32_t>(rng()) & mask, len});
  }
  std::vector<std::pair<std::uint32_t, int>> list(prefixes.begin(), prefixes.end());
  for (auto [addr, len] : list) {
    MatchField mf{"hdr.ipv4.dstAddr", hex(addr, 8), len, {}, {}};
    if (!install(*c.engine, insert("ingress.ipv4_lpm", "ingress.route", {mf}, addr & 1))) return {};
  }
  std::uniform_int_distribution<std::size_t> pick(0, list.size() - 1);
  for (std::size_t i = 0; i < nkeys; ++i) {
    auto [addr, len] = list[pick(rng)];
    std::uint32_t host = len == 32 ? 0 : static_cast<std::uint32_t>(rng()) & (~0u >> len);
    c.keys.push_back({addr | host, 0, 0});
  }
  return c;
}

Case acl_case(std::size_t entries, std::mt19937_64& rng, std::size_t nkeys) {
  Case c;
  c.engine = load(bench_acl_program());
  // The common ACL shapes: source and destination as /0, /8, /16, /24 or /32, the
  // protocol exact or wildcard: at most 50 distinct masks, however many entries.
  static const int kLens[] = {0, 8, 16, 24, 32};
  struct Rule {
    std::uint32_t src, smask, dst, dmask;
    std::uint8_t proto, pmask;
  };
  std::vector<Rule> rules;
  std::set<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t, int>> seen;
  std::set<std::tuple<std::uint32_t, std::uint32_t, int>> masks;
  while (rules.size() < entries) {
    auto mask = [](int len) { return len == 0 ? 0u : ~0u << (32 - len); };
    Rule r;
    r.smask = mask(kLens[rng() % 5]);
    r.dmask = mask(kLens[rng() % 5]);
    r.src = static_cast<std::uint32_t>(rng()) & r.smask;
    r.dst = static_cast<std::uint32_t>(rng()) & r.dmask;
    r.pmask = (rng() & 1) ? 0xff : 0;
    r.proto = static_cast<std::uint8_t>((rng() & 1 ? 6 : 17) & r.pmask);
    if (!seen.insert({r.src, r.smask, r.dst, r.dmask, r.proto * 256 + r.pmask}).second) continue;
    masks.insert({r.smask, r.dmask, r.pmask});
    rules.push_back(r);
  }
  c.masks = masks.size();
  for (std::size_t i = 0; i < rules.size(); ++i) {
    const Rule& r = rules[i];
    TableUpdate u = insert("ingress.acl", "ingress.route",
                           {{"hdr.ipv4.srcAddr", hex(r.src, 8), {}, hex(r.smask, 8), {}},
                            {"hdr.ipv4.dstAddr", hex(r.dst, 8), {}, hex(r.dmask, 8), {}},
                            {"hdr.ipv4.protocol", hex(r.proto, 2), {}, hex(r.pmask, 2), {}}},
                           static_cast<std::uint32_t>(i & 1));
    u.priority = static_cast<std::int64_t>(1 + rng() % 1000);
    if (!install(*c.engine, u)) return {};
  }
  std::uniform_int_distribution<std::size_t> pick(0, rules.size() - 1);
  for (std::size_t i = 0; i < nkeys; ++i) {
    const Rule& r = rules[pick(rng)];
    auto fill = [&](std::uint32_t v, std::uint32_t m) { return v | (static_cast<std::uint32_t>(rng()) & ~m); };
    std::uint8_t proto = r.pmask ? r.proto : static_cast<std::uint8_t>(rng() & 1 ? 6 : 17);
    c.keys.push_back({fill(r.src, r.smask), fill(r.dst, r.dmask), proto});
  }
  return c;
}

// Runs `frames` frames, writing each key into the frame at the program's key offsets.
// Returns nanoseconds per frame.
double run(Case& c, const BenchFrame& f, std::size_t frames, std::uint64_t* forwarded) {
  std::vector<std::uint8_t> frame = f.bytes;
  auto put = [&](std::size_t off, int bytes, std::uint64_t v) {
    for (int i = 0; i < bytes; ++i) frame[off + i] = static_cast<std::uint8_t>(v >> (8 * (bytes - 1 - i)));
  };
  std::uint64_t fwd = 0;
  const std::size_t n = c.keys.size();
  auto start = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < frames; ++i) {
    const Key& k = c.keys[i % n];
    put(f.key_a, f.bytes_a, k.a);
    if (f.bytes_b) put(f.key_b, f.bytes_b, k.b);
    if (f.bytes_c) put(f.key_c, f.bytes_c, k.c);
    Verdict v = c.engine->process(static_cast<std::uint32_t>(i & 1), frame.data(), frame.size());
    fwd += v.dropped ? 0 : 1;
  }
  auto ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
  *forwarded = fwd;
  return ns / static_cast<double>(frames);
}

// A warm-up run (caches, branch predictors), then the best of three: the machine is shared,
// and the least disturbed run is the one that measures the engine.
double best_of(Case& c, const BenchFrame& f, std::size_t frames, std::uint64_t* forwarded) {
  run(c, f, frames / 10 + 1, forwarded);
  double best = run(c, f, frames, forwarded);
  for (int i = 0; i < 2; ++i) best = std::min(best, run(c, f, frames, forwarded));
  return best;
}

}  // namespace

int cmd_bench(const std::vector<std::string>& args) {
  std::size_t frames = 2000000;
  std::uint64_t seed = 1;
  std::string corpus;  // the folder of bmv2's programs (--corpus); none: those parts are skipped
  std::string only;
  bool end_to_end = false;
  std::size_t memory_frames = 10000000;
  SsOptions ss;  // --ss: bmv2's simple_switch beside each end-to-end row
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--frames" && i + 1 < args.size()) frames = std::stoull(args[++i]);
    else if (args[i] == "--seed" && i + 1 < args.size()) seed = std::stoull(args[++i]);
    else if (args[i] == "--corpus" && i + 1 < args.size()) corpus = args[++i];
    else if (args[i] == "--only" && i + 1 < args.size()) only = args[++i];
    else if (args[i] == "--end-to-end") end_to_end = true;
    else if (args[i] == "--memory-frames" && i + 1 < args.size()) memory_frames = std::stoull(args[++i]);
    else if (args[i] == "--ss" && i + 1 < args.size()) ss.binary = args[++i];
    else if (args[i] == "--ss-cli" && i + 1 < args.size()) ss.cli = args[++i];
    else if (args[i] == "--ss-thrift-port" && i + 1 < args.size()) ss.thrift_port = std::stoi(args[++i]);
    else {
      std::cerr << "usage: dpusim p4 bench [--frames N] [--seed S] [--corpus DIR] [--only tables|stress|router]\n"
                   "       dpusim p4 bench --end-to-end [--corpus DIR] [--seed S] [--memory-frames N]\n"
                   "                                  [--ss SIMPLE_SWITCH [--ss-cli CLI] [--ss-thrift-port P]]\n";
      return 2;
    }
  }
  // p4 switch in a child process: simple_router 1 M x 60 B, the stress programs 200 k x 512 B,
  // and the resident set over simple_router's N-frame capture (0 skips it).
  if (!ss.binary.empty() && !end_to_end) {
    std::cerr << "dpusim p4 bench: --ss runs beside --end-to-end only\n";
    return 2;
  }
  if (end_to_end) return bench_end_to_end(corpus, seed, 1000000, 200000, memory_frames, ss);
  if ((only == "stress" || only == "router") && corpus.empty()) {
    std::cerr << "dpusim p4 bench: --only " << only << " needs --corpus DIR (the folder of bmv2's programs)\n";
    return 2;
  }
  if (only == "stress") return bench_stress(corpus, seed, 200);
  if (only == "router") return bench_simple_router(corpus, 200000);
  if (!only.empty() && only != "tables") {
    std::cerr << "dpusim p4 bench: --only takes tables, stress or router\n";
    return 2;
  }
  if (frames == 0) frames = 1;
  const std::size_t nkeys = 1 << 16;
  std::printf("dpusim p4 bench: seed %llu, %zu frames per figure, lookup keys drawn uniformly from the installed entries\n",
              static_cast<unsigned long long>(seed), frames);
  struct Row {
    const char* name;
    Case (*make)(std::size_t, std::mt19937_64&, std::size_t);
    const BenchFrame& frame;
    std::size_t entries;
  };
  const Row rows[] = {
      {"L2  exact    ", l2_case, bench_l2_frame(), 65536},
      {"L3  lpm      ", l3_case, bench_l3_frame(), 10000},
      {"ACL ternary  ", acl_case, bench_acl_frame(), 1000},
  };
  double l2_rate = 0;
  for (const Row& row : rows) {
    std::mt19937_64 rng(seed);
    Case c = row.make(row.entries, rng, nkeys);
    if (!c.engine) return 1;
    std::uint64_t fwd = 0;
    double ns = best_of(c, row.frame, frames, &fwd);
    double rate = 1e3 / ns;
    if (row.make == l2_case) l2_rate = rate;
    std::printf("%s %6zu entries%s: %6.2f M frames/s (%6.1f ns/frame, %llu of %zu forwarded)\n", row.name, row.entries,
                c.masks ? (" (" + std::to_string(c.masks) + " masks)").c_str() : "", rate, ns,
                static_cast<unsigned long long>(fwd), frames);
  }
  std::printf("goal: >= 1 M frames/s per core on the L2 program: %s\n", l2_rate >= 1.0 ? "met" : "NOT met");
  // The cost of a lookup in a 65536-entry table against a 16-entry one: the same program,
  // the same frames, only the table's size differs.
  for (const Row& row : rows) {
    // Both tables are built first and measured in turns, so that whatever else the machine
    // does weighs on both figures alike.
    Case c[2];
    double ns[2] = {1e300, 1e300};
    for (int k = 0; k < 2; ++k) {
      std::mt19937_64 rng(seed);
      c[k] = row.make(k == 0 ? 16 : 65536, rng, nkeys);
      if (!c[k].engine) return 1;
    }
    // Seven rounds of half the frames each, the best of each kept: the large table's figure
    // is the one another process sharing the L3 cache disturbs, and it does so in bursts.
    std::uint64_t fwd = 0;
    const bool goal = row.make != acl_case;
    const std::size_t n = goal ? frames / 2 + 1 : frames / 8 + 1;
    for (int k = 0; k < 2; ++k) run(c[k], row.frame, n / 5 + 1, &fwd);
    for (int round = 0; round < 7; ++round)
      for (int k = 0; k < 2; ++k) ns[k] = std::min(ns[k], run(c[k], row.frame, n, &fwd));
    std::string masks = c[1].masks ? " (" + std::to_string(c[1].masks) + " vs " + std::to_string(c[0].masks) + " masks)" : "";
    std::printf("lookup cost %s 65536 vs 16 entries%s: %6.1f / %6.1f ns/frame, ratio %.3f%s\n", row.name, masks.c_str(), ns[1], ns[0],
                ns[1] / ns[0], goal ? (ns[1] / ns[0] <= 1.2 ? " (goal <= 1.2: met)" : " (goal <= 1.2: NOT met)") : "");
  }
  if (!only.empty()) return 0;
  if (corpus.empty()) {
    std::printf("bmv2 stress programs and simple_router end to end: skipped (give --corpus DIR)\n");
    return 0;
  }
  if (int rc = bench_stress(corpus, seed, 200)) return rc;
  return bench_simple_router(corpus, 200000);
}

}  // namespace dpusim::p4::tool
