// dpusim-bench-cosim: fp8 elements per wall second through the verilated RTL fp8 unit
// (models/rtl, docs/cosim.md) beside the C++ codec, each behind the RDMA path's Fp8Backend.
//
//   ./dpusim bench cosim [--elements N] [--seconds S] [--clock-ps P]
//
// Each row runs whole jobs of N elements (default 1 Mi) of one operation through each
// implementation until S seconds (default 0.5) of wall time have passed, and reports elements
// per wall second; for the RTL also the cycles a job takes (ceil(N / 4) + 5) and how many
// simulated seconds pass per wall second at the clock of P ps (default rtl.fp8.clock_ps's
// 1000). Operands are seeded: random codes of the 8- and 16-bit formats, and fp32 values with
// a random sign and mantissa and a magnitude between 2^-10 and 2^10. On a machine shared with
// other work the process's CPU time is printed too: elements per CPU second move less with the
// load than elements per wall second. Wall-clock time is read in benchmarks only.
#include <chrono>
#include <cstdint>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "rtl/fp8_impl.h"

namespace {

namespace fmt = dpusim::formats;
using dpusim::p4::rdma::Fp8Backend;
using dpusim::p4::rdma::Fp8Job;
using dpusim::p4::rdma::Fp8Outcome;
using Clock = std::chrono::steady_clock;

struct Options {
  std::size_t elements = std::size_t{1} << 20;
  double seconds = 0.5;
  std::uint64_t clock_ps = 0;  // rtl.fp8.clock_ps's default
};

[[noreturn]] void usage(const std::string& problem) {
  std::fprintf(stderr,
               "dpusim-bench-cosim: %s\nusage: dpusim-bench-cosim [--elements N] [--seconds S] [--clock-ps P]\n",
               problem.c_str());
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) usage("missing value after " + arg);
    const char* value = argv[++i];
    char* end = nullptr;
    if (arg == "--elements") {
      const unsigned long long n = std::strtoull(value, &end, 10);
      if (*end != '\0' || n < 2 || n % 2 != 0 || n > (1ull << 26)) usage("--elements must be an even number in 2..67108864");
      o.elements = n;
    } else if (arg == "--seconds") {
      o.seconds = std::strtod(value, &end);
      if (*end != '\0' || !(o.seconds > 0)) usage("--seconds must be a positive number");
    } else if (arg == "--clock-ps") {
      const unsigned long long p = std::strtoull(value, &end, 10);
      if (*end != '\0' || p == 0) usage("--clock-ps must be a positive whole number");
      o.clock_ps = p;
    } else {
      usage("unknown argument " + arg);
    }
  }
  return o;
}

struct Row {
  const char* label;
  bool convert;
  fmt::Op op;
  fmt::Format src, dst;
};

std::vector<std::uint8_t> operand(fmt::Format f, std::size_t elements, std::mt19937_64& rng) {
  std::size_t bytes = 0;
  fmt::byte_length(f, elements, &bytes);
  std::vector<std::uint8_t> out(bytes);
  if (f != fmt::Format::fp32) {
    for (auto& b : out) b = static_cast<std::uint8_t>(rng());
    return out;
  }
  for (std::size_t i = 0; i < elements; ++i) {
    const std::uint32_t field = 127 - 10 + static_cast<std::uint32_t>(rng() % 20);
    const std::uint32_t v = static_cast<std::uint32_t>(rng() & 1) << 31 | field << 23 | (static_cast<std::uint32_t>(rng()) & 0x7FFFFF);
    for (int k = 0; k < 4; ++k) out[4 * i + k] = static_cast<std::uint8_t>(v >> (8 * k));
  }
  return out;
}

struct Figure {
  double elements_per_s = 0;
  double elements_per_cpu_s = 0;
  Fp8Outcome last;
  double wall_per_job = 0;
};

Figure measure(Fp8Backend& backend, const Fp8Job& job, std::size_t elements, double seconds) {
  Figure f;
  std::size_t jobs = 0;
  const auto start = Clock::now();
  const std::clock_t cpu_start = std::clock();
  double elapsed = 0;
  do {
    f.last = backend.compute(job);
    if (f.last.status != fmt::Status::ok) {
      std::fprintf(stderr, "dpusim-bench-cosim: %s refused a job: %s\n", backend.implementation(),
                   fmt::status_message(f.last.status));
      std::exit(1);
    }
    ++jobs;
    elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  } while (elapsed < seconds);
  f.elements_per_s = static_cast<double>(elements * jobs) / elapsed;
  const double cpu = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
  f.elements_per_cpu_s = static_cast<double>(elements * jobs) / (cpu > 0 ? cpu : elapsed);
  f.wall_per_job = elapsed / static_cast<double>(jobs);
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  std::string error;
  auto cpp = dpusim::rtl::make_fp8_backend(dpusim::rtl::kFp8ImplCpp, {}, &error);
  auto rtl = dpusim::rtl::make_fp8_backend(dpusim::rtl::kFp8ImplRtl, {o.clock_ps}, &error);
  const std::string rtl_missing = rtl ? "" : error;
  const std::uint64_t clock_ps = o.clock_ps != 0 ? o.clock_ps : 1000;

  const Row rows[] = {
      {"add fp8_e4m3", false, fmt::Op::add, fmt::Format::fp8_e4m3, fmt::Format::fp8_e4m3},
      {"mul fp8_e5m2", false, fmt::Op::mul, fmt::Format::fp8_e5m2, fmt::Format::fp8_e5m2},
      {"add bf16", false, fmt::Op::add, fmt::Format::bf16, fmt::Format::bf16},
      {"add fp32", false, fmt::Op::add, fmt::Format::fp32, fmt::Format::fp32},
      {"cvt fp32 -> fp8_e4m3", true, fmt::Op::add, fmt::Format::fp32, fmt::Format::fp8_e4m3},
      {"cvt fp8_e4m3 -> fp32", true, fmt::Op::add, fmt::Format::fp8_e4m3, fmt::Format::fp32},
      {"cvt fp16 -> fp4_e2m1", true, fmt::Op::add, fmt::Format::fp16, fmt::Format::fp4_e2m1},
  };
  std::printf("fp8 unit: elements per second (wall and process CPU), jobs of %zu elements, %.2f s a cell\n", o.elements,
              o.seconds);
  if (rtl) std::printf("RTL unit: verilated hdl/fp8_unit.sv, 4 lanes, clock %llu ps\n", static_cast<unsigned long long>(clock_ps));
  std::printf("%-22s %14s %14s %14s %14s %12s %15s\n", "", "C++ codec", "C++ codec", "RTL unit", "RTL unit", "RTL cycles",
              "simulated s");
  std::printf("%-22s %14s %14s %14s %14s %12s %15s\n", "operation", "per wall s", "per CPU s", "per wall s", "per CPU s",
              "a job", "per wall s");
  std::mt19937_64 rng(2026);
  for (const Row& row : rows) {
    const std::vector<std::uint8_t> a = operand(row.src, o.elements, rng), b = operand(row.src, o.elements, rng);
    std::size_t out_bytes = 0;
    fmt::converted_length(row.src, row.dst, a.size(), &out_bytes);
    std::vector<std::uint8_t> result(out_bytes), check(out_bytes);
    const Fp8Job job{row.convert, row.op, row.src, row.dst, a.data(), row.convert ? nullptr : b.data(), a.size(),
                     result.data(), out_bytes};
    const Figure c = measure(*cpp, job, o.elements, o.seconds);
    check = result;
    std::printf("%-22s %12.1f M %12.1f M", row.label, c.elements_per_s / 1e6, c.elements_per_cpu_s / 1e6);
    if (!rtl) {
      std::printf(" %14s\n", "not built");
      continue;
    }
    const Figure r = measure(*rtl, job, o.elements, o.seconds);
    if (result != check) {
      std::fprintf(stderr, "dpusim-bench-cosim: %s: the RTL unit's result differs from the codec's\n", row.label);
      return 1;
    }
    const double simulated = static_cast<double>(r.last.busy_ps) * 1e-12;
    std::printf(" %12.2f M %12.2f M %12llu %15.2e\n", r.elements_per_s / 1e6, r.elements_per_cpu_s / 1e6,
                static_cast<unsigned long long>(r.last.cycles), simulated / r.wall_per_job);
  }
  if (!rtl) std::printf("RTL unit: %s\n", rtl_missing.c_str());
  return 0;
}
