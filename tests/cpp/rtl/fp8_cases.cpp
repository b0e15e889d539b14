// Expected results from the codec and the comparison with the unit (fp8_cases.h).
#include "fp8_cases.h"

#include <cstdio>

#include <gtest/gtest.h>

#include "formats/formats.h"
#include "rtl/fp8/fp8_lanes.h"

namespace dpusim::rtl::test {

namespace fmt = dpusim::formats;

namespace {

std::vector<std::uint8_t> pack(fmt::Format f, const std::vector<std::uint32_t>& codes) {
  std::size_t bytes = 0;
  EXPECT_EQ(fmt::byte_length(f, codes.size(), &bytes), fmt::Status::ok);
  std::vector<std::uint8_t> out(bytes);
  for (std::size_t i = 0; i < codes.size(); ++i) store_element(f, out.data(), i, codes[i]);
  return out;
}

}  // namespace

std::vector<std::uint32_t> codec_results(const Case& c) {
  const auto src = static_cast<fmt::Format>(c.fmt);
  const auto dst = static_cast<fmt::Format>(c.op == kCvt ? c.dst_fmt : c.fmt);
  const std::vector<std::uint8_t> a = pack(src, c.a);
  std::size_t out_bytes = 0;
  EXPECT_EQ(fmt::converted_length(src, dst, a.size(), &out_bytes), fmt::Status::ok);
  std::vector<std::uint8_t> out(out_bytes);
  if (c.op == kCvt) {
    EXPECT_EQ(fmt::convert(src, dst, a.data(), a.size(), out.data(), out.size()), fmt::Status::ok);
  } else {
    const std::vector<std::uint8_t> b = pack(src, c.b);
    EXPECT_EQ(fmt::apply(static_cast<fmt::Op>(c.op), src, a.data(), a.size(), b.data(), b.size(), out.data(), out.size()),
              fmt::Status::ok);
  }
  std::vector<std::uint32_t> codes(c.a.size());
  for (std::size_t i = 0; i < codes.size(); ++i) codes[i] = load_element(dst, out.data(), i);
  return codes;
}

std::vector<Beat> beats_of(const std::vector<Case>& cases) {
  std::vector<Beat> beats;
  for (const Case& c : cases) {
    for (std::size_t i = 0; i < c.a.size(); i += kLanes) {
      Beat b;
      b.op = c.op;
      b.fmt = c.fmt;
      b.dst_fmt = c.dst_fmt;
      b.lanes = 0;
      for (unsigned l = 0; l < kLanes && i + l < c.a.size(); ++l, ++b.lanes) {
        b.a[l] = c.a[i + l];
        b.b[l] = c.op == kCvt ? 0 : c.b[i + l];
      }
      beats.push_back(b);
    }
  }
  return beats;
}

std::string check_against_codec(const std::vector<Case>& cases, unsigned ready_percent, unsigned valid_percent,
                                std::uint64_t seed, StreamResult* result) {
  const std::vector<Beat> beats = beats_of(cases);
  StreamResult r = stream(beats, ready_percent, valid_percent, seed);
  std::string report;
  std::size_t mismatches = 0, beat = 0, elements = 0;
  if (r.data.size() != beats.size())
    return "the unit gave " + std::to_string(r.data.size()) + " result beats for " + std::to_string(beats.size());
  for (const Case& c : cases) {
    const std::vector<std::uint32_t> expect = codec_results(c);
    for (std::size_t i = 0; i < expect.size(); ++i, ++elements) {
      const std::uint32_t got = r.data[beat + i / kLanes][i % kLanes];
      if (got == expect[i]) continue;
      if (++mismatches <= 20) {
        char line[160];
        std::snprintf(line, sizeof line, "op %u fmt %u dst %u a %08x b %08x: rtl %08x, codec %08x\n", c.op, c.fmt,
                      c.dst_fmt, c.a[i], c.op == kCvt ? 0u : c.b[i], got, expect[i]);
        report += line;
      }
    }
    beat += (c.a.size() + kLanes - 1) / kLanes;
  }
  if (result != nullptr) *result = std::move(r);
  if (mismatches == 0) return "";
  return std::to_string(mismatches) + " of " + std::to_string(elements) + " elements differ:\n" + report;
}

}  // namespace dpusim::rtl::test
