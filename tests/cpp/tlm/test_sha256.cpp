// SHA-256 (tlm/sha256.h) against the examples of FIPS 180-4 (NIST's "SHA256.pdf" example
// values) and the same digests with and without the CPU's SHA extensions, fed in any pieces.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tlm/rng.h"
#include "tlm/sha256.h"

using dpusim::pcie::Sha256;

namespace {
std::string digest(const std::string& s, bool extensions, size_t piece = 0) {
  Sha256 h(extensions);
  if (piece == 0) {
    h.update(s);
  } else {
    for (size_t i = 0; i < s.size(); i += piece) h.update(std::string_view(s).substr(i, piece));
  }
  return h.hex();
}
}  // namespace

TEST(Sha256, Fips180Examples) {
  for (bool ext : {false, true}) {
    EXPECT_EQ(digest("abc", ext), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    EXPECT_EQ(digest("", ext), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(digest("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", ext),
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    EXPECT_EQ(digest(std::string(1000000, 'a'), ext, 4096),
              "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  }
}

TEST(Sha256, PiecesAndBothWaysAgree) {
  dpusim::pcie::Rng rng(7, "sha");
  std::string text;
  for (int i = 0; i < 5000; ++i) text.push_back(char(rng.below(256)));
  for (size_t len : {0u, 1u, 55u, 56u, 63u, 64u, 65u, 119u, 128u, 1000u, 5000u}) {
    const std::string s = text.substr(0, len);
    const std::string whole = digest(s, false);
    EXPECT_EQ(digest(s, true), whole) << len;
    for (size_t piece : {1u, 3u, 64u, 100u}) EXPECT_EQ(digest(s, true, piece), whole) << len << "/" << piece;
  }
  // hex() does not end the stream: more may follow.
  Sha256 h;
  h.update("ab");
  (void)h.hex();
  h.update("c");
  EXPECT_EQ(h.hex(), digest("abc", false));
}
