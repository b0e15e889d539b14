// bmv2's hash algorithms against their catalogued check values ("123456789") and RFC 1071's
// worked example, the xor folds and identity by hand.
#include <string>

#include <gtest/gtest.h>

#include "hash_algos.h"

namespace dpusim::p4::test {
namespace {

const std::string kCheck = "123456789";
const auto* kData = reinterpret_cast<const std::uint8_t*>(kCheck.data());

std::uint64_t crc_of(HashAlgo algo) {
  Crc c;
  c.init(crc_spec(algo));
  return c.compute(kData, kCheck.size());
}

TEST(HashAlgos, CrcsGiveTheirCatalogueCheckValues) {
  EXPECT_EQ(crc_of(HashAlgo::kCrc16), 0xbb3du);        // CRC-16/ARC
  EXPECT_EQ(crc_of(HashAlgo::kCrc16Custom), 0xbb3du);  // crc16_custom starts as crc16
  EXPECT_EQ(crc_of(HashAlgo::kCrc32), 0xcbf43926u);    // CRC-32/ISO-HDLC
  EXPECT_EQ(crc_of(HashAlgo::kCrc32Custom), 0xcbf43926u);
  EXPECT_EQ(crc_of(HashAlgo::kCrcCcitt), 0x29b1u);     // CRC-16/CCITT-FALSE
  EXPECT_EQ(crc_of(HashAlgo::kCrc8Custom), 0xf4u);     // CRC-8 (poly 0x07)
  // bmv2's crc64_custom: poly 0x1b reflected, init and xorout 0 (not a catalogued CRC):
  // against the bit-at-a-time form of a reflected CRC.
  std::uint64_t reg = 0;
  for (unsigned char c : kCheck) {
    reg ^= c;
    for (int k = 0; k < 8; ++k) reg = (reg & 1) ? (reg >> 1) ^ 0xd800000000000000ull : reg >> 1;  // 0x1b reflected
  }
  EXPECT_EQ(crc_of(HashAlgo::kCrc64Custom), reg);
}

TEST(HashAlgos, Csum16IsTheInternetChecksum) {
  // RFC 1071 section 3: the words 0001 f203 f4f5 f6f7 sum to ddf2; the checksum is ~ddf2.
  const std::uint8_t words[] = {0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7};
  EXPECT_EQ(csum16(words, sizeof words), 0x220du);
  // An odd length pads the last byte on the right; all zeros give all ones.
  const std::uint8_t odd[] = {0x12, 0x34, 0x56};
  EXPECT_EQ(csum16(odd, 3), static_cast<std::uint64_t>(~(0x1234 + 0x5600) & 0xffff));
  const std::uint8_t zeros[4] = {};
  EXPECT_EQ(csum16(zeros, 4), 0xffffu);
}

TEST(HashAlgos, XorFoldsAndIdentity) {
  const std::uint8_t b[] = {0x12, 0x34, 0x56, 0x78, 0x9a};
  EXPECT_EQ(xor_fold(b, 5, 2), 0x1234u ^ 0x5678u ^ 0x9a00u);
  EXPECT_EQ(xor_fold(b, 5, 4), 0x12345678u ^ 0x9a000000u);
  EXPECT_EQ(identity_hash(b, 5), 0x123456789aull);
  const std::uint8_t nine[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  EXPECT_EQ(identity_hash(nine, 9), 0x0102030405060708ull);  // the first eight bytes
}

TEST(HashAlgos, NamesAreBmv2s) {
  HashAlgo a;
  for (const char* n : {"crc16", "crc32", "crcCCITT", "crc8_custom", "crc16_custom", "crc32_custom", "crc64_custom", "csum16",
                        "cksum16", "identity", "xor16", "xor32", "round_robin"}) {
    ASSERT_TRUE(hash_algo_by_name(n, &a)) << n;
    EXPECT_STREQ(hash_algo_name(a), n);
  }
  EXPECT_FALSE(hash_algo_by_name("xxh64", &a));
  EXPECT_FALSE(hash_algo_by_name("random", &a));
}

}  // namespace
}  // namespace dpusim::p4::test
