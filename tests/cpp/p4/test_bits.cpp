// The wire writer (bits.h) that emits headers and builds calculation inputs: random runs of
// values of 0 to 64 bits against a writer that sets one bit at a time.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "bits.h"

namespace dpusim::p4::test {
namespace {

TEST(WireWriter, PacksValuesMostSignificantBitFirstAsABitAtATimeWriterDoes) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 2000; ++round) {
    std::vector<std::uint8_t> got(256 + 8, 0xee), want(256, 0);
    WireWriter w{got.data()};
    std::size_t bit = 0;
    const int count = static_cast<int>(rng() % 24);
    for (int i = 0; i < count; ++i) {
      const int n = static_cast<int>(rng() % 65);
      const std::uint64_t v = n == 0 ? 0 : rng() >> (64 - n);
      w.push(v, n);
      for (int b = n - 1; b >= 0; --b, ++bit)
        if (v >> b & 1) want[bit / 8] |= static_cast<std::uint8_t>(0x80 >> (bit % 8));
    }
    const std::uint8_t* end = w.finish();
    const std::size_t bytes = (bit + 7) / 8;
    ASSERT_EQ(static_cast<std::size_t>(end - got.data()), bytes) << "round " << round;
    for (std::size_t i = 0; i < bytes; ++i) ASSERT_EQ(got[i], want[i]) << "round " << round << " byte " << i;
    EXPECT_EQ(got[bytes], 0xee) << "round " << round << ": a byte past the end was written";
  }
}

}  // namespace
}  // namespace dpusim::p4::test
