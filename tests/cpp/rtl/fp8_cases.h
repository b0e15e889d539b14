// Element cases for the fp8 unit's tests: codes of one operation and format, the codec's
// expected results for them, and their beats for the unit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "unit_harness.h"

namespace dpusim::rtl::test {

struct Case {
  std::uint32_t op = kAdd, fmt = 0, dst_fmt = 0;  // dst_fmt: cvt only (apply's is fmt)
  std::vector<std::uint32_t> a, b;                // b: apply only
};

// n bytes first, first + step, first + 2 step ... (mod 256): operand codes that sweep a format.
inline std::vector<std::uint8_t> ramp(std::size_t n, std::uint8_t first, std::uint8_t step) {
  std::vector<std::uint8_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::uint8_t>(first + step * i);
  return v;
}

// The C++ codec's result for every element (formats::apply / formats::convert over the
// elements laid out in memory).
std::vector<std::uint32_t> codec_results(const Case& c);

// The cases' elements, kLanes a beat, each case starting a new beat.
std::vector<Beat> beats_of(const std::vector<Case>& cases);

// Streams the cases through the unit and compares every element with the codec; an empty
// string when all match, else the first mismatches (op, formats, operands, RTL, codec) and
// their count.
std::string check_against_codec(const std::vector<Case>& cases, unsigned ready_percent = 100,
                                unsigned valid_percent = 100, std::uint64_t seed = 1,
                                StreamResult* result = nullptr);

// check_against_codec as a gtest failure with its report.
#define EXPECT_BIT_EXACT(...)                                      \
  do {                                                             \
    const std::string report_ = check_against_codec(__VA_ARGS__);  \
    EXPECT_TRUE(report_.empty()) << report_;                       \
  } while (0)

}  // namespace dpusim::rtl::test
