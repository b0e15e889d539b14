// Benchmarks against bmv2's own figures (see bench_bmv2.cpp): its pipeline stress tests and
// simple_router end to end through `dpusim p4 switch`, both from a folder holding bmv2's
// programs (behavioral-model's test data, named as in the p4-corpus folder).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace dpusim::p4::tool {

int bench_stress(const std::string& corpus, std::uint64_t seed, std::size_t repeats);
int bench_simple_router(const std::string& corpus, std::size_t frames);

}  // namespace dpusim::p4::tool
