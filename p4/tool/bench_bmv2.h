// Benchmarks against bmv2's own figures (see bench_bmv2.cpp): its pipeline stress tests and
// simple_router end to end through `dpusim p4 switch`, both from a folder holding bmv2's
// programs (behavioral-model's test data, named as in the p4-corpus folder).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "bench_ss.h"

#include "dpusim/p4/engine.h"

namespace dpusim::p4::tool {

// bmv2's stress traffic file: a line "COUNT SIZE", then COUNT frames of SIZE bytes.
struct Traffic {
  std::size_t size = 0;
  std::vector<std::vector<std::uint8_t>> frames;
};
bool read_traffic(const std::string& path, Traffic* t);

struct StressCase {
  const char* program;
  const char* kind;  // exact, lpm, ternary or none
  double bmv2_pps;   // the corpus's figure for bmv2 built for speed on this kind of machine
};
const StressCase* stress_cases(std::size_t* n);
// Fills a stress program's tables as bmv2's test does, from `seed`; returns the entries
// installed (each appended to *installed when given), -1 when one is refused (said on stderr).
long fill_stress_tables(Engine& e, const char* program, const char* kind, const Traffic& traffic, std::uint64_t seed,
                        std::vector<TableUpdate>* installed);

int bench_stress(const std::string& corpus, std::uint64_t seed, std::size_t repeats);
// A fresh folder PREFIX<pid> under the temporary directory; false, said on stderr, when it
// cannot be made.
bool bench_temp_dir(const std::string& prefix, std::filesystem::path* dir);
// simple_router's frame: 60 bytes of UDP from 10.0.1.10 to 10.0.0.10, TTL 64, checksum right.
std::vector<std::uint8_t> simple_router_frame();
int bench_simple_router(const std::string& corpus, std::size_t frames);
// `bench --end-to-end` (bench_e2e.cpp); an empty corpus is the corpus folder beside the checkout.
int bench_end_to_end(std::string corpus, std::uint64_t seed, std::size_t router_frames, std::size_t stress_frames,
                     std::size_t memory_frames, SsOptions ss);

}  // namespace dpusim::p4::tool
