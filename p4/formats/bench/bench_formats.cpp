// dpusim-bench-formats: elements per second of the numeric-formats codec on one core, for
// every pair of formats (conversion) and every operation of every format (apply).
//
//   ./dpusim bench formats [--elements N] [--seconds S]
//
// Input: N elements per buffer (default 1 Mi: 4 MiB of fp32, which stays in the last-level
// cache, so the codec is measured rather than DRAM) of values with a random sign, a magnitude
// log-uniform between 2^-10 and 2^9 and a random binary32 mantissa, converted to the source format:
// the shape of scaled activations, spanning fp8_e4m3's subnormals, normals and saturation. The
// generator is seeded, so every run converts the same data. Each cell repeats whole-buffer calls
// until S seconds (default 0.25) have passed and reports elements / elapsed time. Wall-clock time
// is read here and nowhere else in dpusim.
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "formats/formats.h"

namespace {

using dpusim::formats::Format;
using dpusim::formats::kFormatCount;
using dpusim::formats::kOpCount;
using dpusim::formats::Op;
using dpusim::formats::Status;
using Clock = std::chrono::steady_clock;

struct Options {
  size_t elements = size_t{1} << 20;
  double seconds = 0.25;
};

[[noreturn]] void usage(const char* problem) {
  std::fprintf(
      stderr,
      "dpusim-bench-formats: %s\nusage: dpusim-bench-formats [--elements N] [--seconds S]\n",
      problem);
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) usage(("missing value after " + arg).c_str());
    const char* value = argv[++i];
    char* end = nullptr;
    if (arg == "--elements") {
      const unsigned long long n = std::strtoull(value, &end, 10);
      if (*end != '\0' || n < 2 || n % 2 != 0) usage("--elements must be an even number >= 2");
      o.elements = n;
    } else if (arg == "--seconds") {
      o.seconds = std::strtod(value, &end);
      if (*end != '\0' || !(o.seconds > 0)) usage("--seconds must be a positive number");
    } else {
      usage(("unknown option " + arg).c_str());
    }
  }
  return o;
}

size_t bytes_of(Format f, size_t elements) {
  size_t bytes = 0;
  if (dpusim::formats::byte_length(f, elements, &bytes) != Status::ok) usage("bad element count");
  return bytes;
}

void check(Status s, const char* what) {
  if (s != Status::ok) {
    std::fprintf(stderr, "dpusim-bench-formats: %s failed: %s\n", what,
                 dpusim::formats::status_message(s));
    std::exit(1);
  }
}

// The benchmark input, in format f: binary32 values (the random mantissa has 23 bits, so
// each is exact in binary32) converted by the codec itself.
std::vector<uint8_t> make_input(Format f, size_t elements) {
  std::mt19937_64 rng(0x5eed'f0f0'0004ULL);
  std::vector<uint8_t> fp32(4 * elements);
  for (size_t i = 0; i < elements; ++i) {
    const uint64_t r = rng();
    const int exponent = static_cast<int>(r % 20) - 10;  // 2^-10 .. 2^9
    const double magnitude =
        std::ldexp(1.0 + static_cast<double>((r >> 8) & 0x7FFFFF) / 0x800000, exponent);
    const uint32_t code = dpusim::formats::encode(Format::fp32, (r >> 63) ? -magnitude : magnitude);
    for (unsigned b = 0; b < 4; ++b) fp32[4 * i + b] = static_cast<uint8_t>(code >> (8 * b));
  }
  std::vector<uint8_t> out(bytes_of(f, elements));
  check(dpusim::formats::convert(Format::fp32, f, fp32.data(), fp32.size(), out.data(), out.size()),
        "convert");
  return out;
}

// Elements per second of `call` (one whole buffer of `elements` per call).
template <class Call>
double rate(size_t elements, double seconds, Call call) {
  call();  // first call builds the decode tables and warms the caches
  size_t calls = 0;
  const auto start = Clock::now();
  double elapsed = 0;
  do {
    call();
    ++calls;
    elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  } while (elapsed < seconds);
  return static_cast<double>(calls) * static_cast<double>(elements) / elapsed;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  std::vector<std::vector<uint8_t>> inputs;
  for (unsigned f = 0; f < kFormatCount; ++f)
    inputs.push_back(make_input(static_cast<Format>(f), o.elements));

  std::printf("# dpusim-bench-formats: %zu elements per call, %.2f s per cell, one core\n",
              o.elements, o.seconds);
  std::printf("# convert, M elements/s (rows: source, columns: destination)\n%-10s", "");
  for (unsigned d = 0; d < kFormatCount; ++d)
    std::printf(" %9s", dpusim::formats::format_name(static_cast<Format>(d)));
  std::printf("\n");
  for (unsigned s = 0; s < kFormatCount; ++s) {
    const auto src = static_cast<Format>(s);
    std::printf("%-10s", dpusim::formats::format_name(src));
    for (unsigned d = 0; d < kFormatCount; ++d) {
      const auto dst = static_cast<Format>(d);
      std::vector<uint8_t> out(bytes_of(dst, o.elements));
      const double r = rate(o.elements, o.seconds, [&] {
        check(dpusim::formats::convert(src, dst, inputs[s].data(), inputs[s].size(), out.data(),
                                       out.size()),
              "convert");
      });
      std::printf(" %9.0f", r / 1e6);
      std::fflush(stdout);
    }
    std::printf("\n");
  }

  std::printf("# apply, M elements/s (rows: format, columns: operation)\n%-10s", "");
  for (unsigned op = 0; op < kOpCount; ++op)
    std::printf(" %9s", dpusim::formats::op_name(static_cast<Op>(op)));
  std::printf("\n");
  for (unsigned f = 0; f < kFormatCount; ++f) {
    const auto fmt = static_cast<Format>(f);
    const std::vector<uint8_t>& a = inputs[f];
    // Rotated by one element (a byte: two of fp4), so the operands differ element for element.
    const size_t step =
        dpusim::formats::spec(fmt).bits == 4 ? 1 : dpusim::formats::spec(fmt).bits / 8;
    std::vector<uint8_t> b(a.begin() + static_cast<std::ptrdiff_t>(step), a.end());
    b.insert(b.end(), a.begin(), a.begin() + static_cast<std::ptrdiff_t>(step));
    std::vector<uint8_t> out(a.size());
    std::printf("%-10s", dpusim::formats::format_name(fmt));
    for (unsigned op = 0; op < kOpCount; ++op) {
      const double r = rate(o.elements, o.seconds, [&] {
        check(dpusim::formats::apply(static_cast<Op>(op), fmt, a.data(), a.size(), b.data(),
                                     b.size(), out.data(), out.size()),
              "apply");
      });
      std::printf(" %9.0f", r / 1e6);
      std::fflush(stdout);
    }
    std::printf("\n");
  }
  return 0;
}
