// The benchmarks that compare with bmv2 (`dpusim p4 bench`, see bench_bmv2.h):
//
//  - bmv2's four pipeline stress tests (behavioral-model tests/stress_tests): their
//    programs and traffic file (1000 frames of 512 bytes), tables filled as those tests fill
//    them (each frame's addresses, each table with probability 0.9; LPM prefixes of at least
//    4 bits favouring short ones; ternary masks of whole bytes, each byte kept with
//    probability 0.5), from a seeded generator in place of theirs. Each frame runs the whole
//    simple_switch flow (Engine::run), where bmv2's test runs parser, ingress and deparser.
//  - simple_router end to end through `dpusim p4 switch`: a pcap of UDP frames in, the
//    program and its commands file loaded, a pcap out.
//
// The runs are timed in CPU time of the process (CLOCK_PROCESS_CPUTIME_ID: user and
// system, so the pcap files' reads and writes count): the machine is shared, and time
// another process takes from this one is not the engine's. The best of several runs is
// kept. Nothing timed reaches the engine.
#include "bench_bmv2.h"

#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>

#include "dpusim/p4/engine.h"
#include "dpusim/p4/pcap.h"
#include "switch_files.h"
#include "tool.h"

namespace dpusim::p4::tool {

namespace {

// Seconds of CPU time this process has used.
double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

std::string hex_bytes(const std::uint8_t* p, int n) {
  static const char d[] = "0123456789abcdef";
  std::string s = "0x";
  for (int i = 0; i < n; ++i) {
    s.push_back(d[p[i] >> 4]);
    s.push_back(d[p[i] & 15]);
  }
  return s;
}

}  // namespace

bool read_traffic(const std::string& path, Traffic* t) {
  std::string text;
  if (!read_text(path, &text)) return false;
  std::size_t nl = text.find('\n');
  if (nl == std::string::npos) return false;
  std::istringstream head(text.substr(0, nl));
  std::size_t count = 0;
  head >> count >> t->size;
  if (!head || t->size == 0 || nl + 1 + count * t->size > text.size()) return false;
  for (std::size_t i = 0; i < count; ++i) {
    const auto* p = reinterpret_cast<const std::uint8_t*>(text.data() + nl + 1 + i * t->size);
    t->frames.emplace_back(p, p + t->size);
  }
  return true;
}

namespace {

// bmv2's get_pLen: at least 4 bits, each step of 8 more as likely as stopping early.
int prefix_length(std::mt19937_64& rng) {
  int len = 4;
  while (len <= 40) {
    int r = static_cast<int>(rng() % 13);
    if (r <= 8) return len + r;
    len += 8;
  }
  return len;
}

bool chance(std::mt19937_64& rng, double p) { return static_cast<double>(rng() >> 11) * 0x1.0p-53 < p; }

// One entry for `table` built from frame's destination (bytes 0-5) and source (6-11).
TableUpdate entry(const std::string& kind, const TableDesc& t, const std::vector<std::uint8_t>& f, std::mt19937_64& rng) {
  TableUpdate u;
  u.type = UpdateType::kInsert;
  u.table = t.name;
  u.action = "_nop";
  for (const KeyDesc& k : t.keys) {
    const std::uint8_t* at = f.data() + (k.target == "ethernet.dstAddr" ? 0 : 6);
    MatchField mf;
    mf.field = k.name;
    std::uint8_t v[6], m[6];
    for (int i = 0; i < 6; ++i) {
      m[i] = k.match_kind == "ternary" ? (chance(rng, 0.5) ? 0xff : 0x00) : 0xff;
      v[i] = at[i] & m[i];
    }
    if (k.match_kind == "lpm") {
      int len = prefix_length(rng);
      for (int i = 0; i < 6; ++i) {
        int keep = std::max(0, std::min(8, len - 8 * i));
        v[i] = static_cast<std::uint8_t>(at[i] & (0xff00 >> keep));
      }
      mf.prefix_len = len;
    }
    mf.value = hex_bytes(v, 6);
    if (k.match_kind == "ternary") mf.mask = hex_bytes(m, 6);
    u.match.push_back(mf);
  }
  if (kind == "ternary") u.priority = 1;  // bmv2's test adds them all at one priority
  return u;
}

}  // namespace

const StressCase* stress_cases(std::size_t* n) {
  static const StressCase cases[] = {
      {"tests_stress_tests_testdata_parser_deparser_1.json", "none", 281531},
      {"tests_stress_tests_testdata_exact_match_1.json", "exact", 1179245},
      {"tests_stress_tests_testdata_LPM_match_1.json", "lpm", 469704},
      {"tests_stress_tests_testdata_ternary_match_1.json", "ternary", 201816},
  };
  *n = std::size(cases);
  return cases;
}

long fill_stress_tables(Engine& e, const char* program, const char* kind, const Traffic& traffic, std::uint64_t seed,
                        std::vector<TableUpdate>* installed) {
  std::mt19937_64 rng(seed);
  long entries = 0;
  for (const auto& f : traffic.frames)
    for (const TableDesc& t : e.describe_tables()) {
      if (!chance(rng, 0.9)) continue;
      UpdateError ue;
      TableUpdate u = entry(kind, t, f, rng);
      // A repeat of an entry is refused as a duplicate, as bmv2's test expects.
      if (e.update(u, &ue)) {
        ++entries;
        if (installed) installed->push_back(std::move(u));
      } else if (ue.code != UpdateCode::kDuplicateEntry) {
        std::cerr << program << ": " << ue.message << "\n";
        return -1;
      }
    }
  return entries;
}

int bench_stress(const std::string& corpus, std::uint64_t seed, std::size_t repeats) {
  std::size_t ncases = 0;
  const StressCase* cases = stress_cases(&ncases);
  Traffic traffic;
  if (!read_traffic(corpus + "/tests_stress_tests_testdata_udp_tcp_traffic.bin", &traffic)) {
    std::printf("bmv2 stress programs: skipped (no traffic file in %s; give --corpus DIR)\n", corpus.c_str());
    return 0;
  }
  std::printf("bmv2 stress programs: %zu frames of %zu bytes, %zu passes, best of 3, per CPU second, seed %llu\n", traffic.frames.size(),
              traffic.size, repeats, static_cast<unsigned long long>(seed));
  bool all = true;
  for (std::size_t k = 0; k < ncases; ++k) {
    const StressCase& c = cases[k];
    LoadOptions options;
    options.policy = PortPolicy::kV1Model;
    LoadError error;
    auto e = Engine::load_file(corpus + "/" + c.program, options, &error);
    if (!e) return refused(c.program, error);
    const long entries = fill_stress_tables(*e, c.program, c.kind, traffic, seed, nullptr);
    if (entries < 0) return 1;
    double best = 1e300;
    std::size_t out = 0;
    for (int round = 0; round < 4; ++round) {
      double start = cpu_seconds();
      out = 0;
      for (std::size_t r = 0; r < (round == 0 ? 1 : repeats); ++r)
        for (const auto& f : traffic.frames) out += e->run(0, f.data(), f.size()).outputs.size();
      double s = cpu_seconds() - start;
      if (round > 0) best = std::min(best, s / static_cast<double>(repeats * traffic.frames.size()));
    }
    double pps = 1.0 / best;
    bool met = pps >= 5 * c.bmv2_pps;
    all = all && met;
    std::printf("  %-52s %5ld entries: %9.0f frames/s (%5.1f ns/frame, %zu out); bmv2 %7.0f: %5.1fx (goal >= 5x: %s)\n",
                c.program, entries, pps, best * 1e9, out, c.bmv2_pps, pps / c.bmv2_pps, met ? "met" : "NOT met");
  }
  (void)all;
  return 0;
}

std::vector<std::uint8_t> simple_router_frame() {
  // A 60-byte UDP frame 10.0.1.10 -> 10.0.0.10, TTL 64, checksum right: routed to port 1.
  std::vector<std::uint8_t> frame = {0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 0x08, 0x00,
                                     0x45, 0, 0, 46, 0, 1, 0, 0, 64, 17, 0, 0, 10, 0, 1, 10, 10, 0, 0, 10,
                                     0x04, 0xd2, 0, 80, 0, 26, 0, 0};
  frame.resize(60);
  std::uint32_t sum = 0;
  for (int i = 14; i < 34; i += 2) sum += static_cast<std::uint32_t>(frame[i] << 8 | frame[i + 1]);
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  frame[24] = static_cast<std::uint8_t>(~sum >> 8);
  frame[25] = static_cast<std::uint8_t>(~sum);
  return frame;
}

bool bench_temp_dir(const std::string& prefix, std::filesystem::path* dir) {
  std::error_code ec;
  *dir = std::filesystem::temp_directory_path(ec) / (prefix + std::to_string(::getpid()));
  std::filesystem::create_directories(*dir, ec);
  if (ec) std::cerr << dir->string() << ": cannot create: " << ec.message() << "\n";
  return !ec;
}

int bench_simple_router(const std::string& corpus, std::size_t frames) {
  const std::string program = corpus + "/targets_simple_switch_grpc_tests_testdata_simple_router.json";
  const std::string commands = corpus + "/targets_simple_router_commands.txt";
  std::error_code ec;
  if (!std::filesystem::exists(program, ec) || !std::filesystem::exists(commands, ec)) {
    std::printf("simple_router end to end: skipped (no simple_router program or commands in %s; give --corpus DIR)\n", corpus.c_str());
    return 0;
  }
  std::filesystem::path dir;
  if (!bench_temp_dir("dpusim-p4-bench-", &dir)) return 2;
  std::vector<std::uint8_t> frame = simple_router_frame();
  {
    PcapWriter w;
    std::string err;
    if (!w.open((dir / "veth1_in.pcap").string(), false, &err)) {
      std::cerr << err << "\n";
      return 2;
    }
    for (std::size_t i = 0; i < frames; ++i)
      if (!w.write(1000000000ull + i * 1000, frame.data(), frame.size(), &err)) {
        std::cerr << err << "\n";
        return 2;
      }
    if (!w.close(&err)) return 2;
  }
  SwitchOptions o;
  o.program = program;
  o.commands = commands;
  o.interfaces = {{1, (dir / "veth1").string()}, {2, (dir / "veth2").string()}};
  o.quiet = true;
  double best = 1e300;
  SwitchSummary s;
  for (int round = 0; round < 3; ++round) {
    double start = cpu_seconds();
    if (int rc = run_switch_files(o, &s)) return rc;
    best = std::min(best, cpu_seconds() - start);
  }
  std::filesystem::remove_all(dir, ec);
  double fps = static_cast<double>(frames) / best;
  std::printf("simple_router end to end (p4 switch: load, commands, pcap in, pcap out; best of 3, CPU time): %zu frames of 60 bytes "
              "in %.1f ms: %.2f M frames/s, %zu out (goal >= 1.2 M frames/s: %s; bmv2 simple_switch: 59,664)\n",
              frames, best * 1e3, fps / 1e6, s.frames_out, fps >= 1.2e6 ? "met" : "NOT met");
  return 0;
}

}  // namespace dpusim::p4::tool
