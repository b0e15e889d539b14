// The bytes header every model takes its byte enables and field accessors from (tlm/bytes.h).
#include <gtest/gtest.h>

#include <array>

#include "tlm/bytes.h"

using namespace dpusim::bytes;

TEST(Bytes, ByteEnableMasksForEveryPattern) {
  for (unsigned be = 0; be < 16; ++be) {
    uint32_t want = 0;
    for (unsigned b = 0; b < 4; ++b)
      if (be & (1u << b)) want |= 0xffu << (8 * b);
    EXPECT_EQ(byte_enable_mask(uint8_t(be)), want) << be;
    EXPECT_EQ(merge_enabled(0x11223344u, 0xaabbccddu, uint8_t(be)), (0x11223344u & ~want) | (0xaabbccddu & want)) << be;
  }
  EXPECT_EQ(first_enabled_byte(0x6), 1u);
  EXPECT_EQ(last_enabled_byte(0x6), 2u);
  EXPECT_EQ(first_enabled_byte(0x0), 0u);
}

TEST(Bytes, MergeWrittenTakesOnlyTheBytesInsideTheDw) {
  const uint8_t in[6] = {0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5};
  // A 6-byte write at 0x102 touches bytes 2..3 of DW 0x100 and all of DW 0x104.
  EXPECT_EQ(merge_written(0x11223344u, 0x100, 0x102, in, 6), 0xa1a03344u);
  EXPECT_EQ(merge_written(0x11223344u, 0x104, 0x102, in, 6), 0xa5a4a3a2u);
  EXPECT_EQ(merge_written(0x11223344u, 0x108, 0x102, in, 6), 0x11223344u);
}

TEST(Bytes, LittleAndBigEndianRoundTrips) {
  std::array<uint8_t, 8> b{};
  put_le64(b.data(), 0x0102030405060708ull);
  EXPECT_EQ(b, (std::array<uint8_t, 8>{8, 7, 6, 5, 4, 3, 2, 1}));
  EXPECT_EQ(get_le64(b.data()), 0x0102030405060708ull);
  EXPECT_EQ(get_le32(b.data()), 0x05060708u);
  EXPECT_EQ(get_le16(b.data() + 6), 0x0102u);
  EXPECT_EQ(get_le(b.data(), 3), 0x060708u);
  put_be32(b.data(), 0x0a0b0c0du);
  EXPECT_EQ(b[0], 0x0a);
  EXPECT_EQ(get_be32(b.data()), 0x0a0b0c0du);
  EXPECT_EQ(get_be16(b.data() + 2), 0x0c0du);
  put_le16(b.data(), 0xbeef);
  put_be16(b.data() + 2, 0xbeef);
  EXPECT_EQ(get_le32(b.data()), 0xefbebeefu);
}
