// Read completion splitting (PCIe r5.0 §2.3.1.1) and request byte counts (Table 2-37).
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "tlm/completer.h"

using namespace dpusim::pcie;
namespace tlp = dpusim::tlp;

TEST(Completer, ByteCountFollowsByteEnables) {
  tlp::Header h;
  h.type = tlp::Type::MRd;
  h.length_dw = 1;
  struct Case { uint8_t be; uint32_t count; };
  // Table 2-37 for one DW: from the first enabled byte to the last; zero-length read is 1.
  for (Case c : {Case{0xf, 4}, Case{0x9, 4}, Case{0x7, 3}, Case{0xe, 3}, Case{0x3, 2}, Case{0x6, 2}, Case{0xc, 2},
                 Case{0x1, 1}, Case{0x8, 1}, Case{0x0, 1}}) {
    h.first_be = c.be;
    EXPECT_EQ(request_byte_count(h), c.count) << int(c.be);
  }
  h.length_dw = 3;
  h.first_be = 0xe;
  h.last_be = 0x3;
  EXPECT_EQ(request_byte_count(h), 12u - 1 - 2);
}

TEST(Completer, ReadCompletionsSplitAtMpsEndingOnRcb) {
  TlpPool pool;
  tlp::Header req;
  req.type = tlp::Type::MRd;
  req.address = 0x1010;
  req.length_dw = 1024;  // 4096 bytes from 0x1010
  req.first_be = 0xf;
  req.last_be = 0xf;
  std::vector<uint8_t> bytes(4096);
  std::iota(bytes.begin(), bytes.end(), 0);
  std::vector<Tlp*> cpls;
  complete_memory_read(pool, req, 0x0200, bytes.data(), 256, 64, [&](Tlp* t) { cpls.push_back(t); });
  // First completion: from 0x1010 up to the last RCB boundary within one MPS: 0x1100.
  ASSERT_EQ(cpls.size(), 17u);
  EXPECT_EQ(hdr(*cpls[0]).byte_count, 4096);
  EXPECT_EQ(hdr(*cpls[0]).lower_address, 0x10);
  EXPECT_EQ(hdr(*cpls[0]).length_dw, 240 / 4);
  uint32_t remaining = 4096 - 240;
  for (size_t i = 1; i + 1 < cpls.size(); ++i) {
    EXPECT_EQ(hdr(*cpls[i]).byte_count, remaining) << i;
    EXPECT_EQ(hdr(*cpls[i]).length_dw, 64) << i;
    EXPECT_EQ(hdr(*cpls[i]).lower_address, (0x1100 + 256 * (i - 1)) & 0x7f) << i;
    remaining -= 256;
  }
  EXPECT_EQ(hdr(*cpls.back()).byte_count, 16);
  EXPECT_EQ(hdr(*cpls.back()).length_dw, 4);
  // The data is the request's bytes in order.
  size_t off = 0;
  for (Tlp* t : cpls) {
    const size_t lead = hdr(*t).lower_address & 3;
    const size_t n = std::min<size_t>(data_len(*t) - lead, hdr(*t).byte_count);
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(data(*t)[lead + i], uint8_t(off + i));
    off += n;
    t->release();
  }
  EXPECT_EQ(off, 4096u);
}

TEST(Completer, UnalignedShortReadKeepsLowerAddress) {
  TlpPool pool;
  tlp::Header req;
  req.type = tlp::Type::MRd;
  req.address = 0x2004;
  req.length_dw = 1;
  req.first_be = 0xc;  // bytes 2 and 3
  const uint8_t bytes[2] = {0xaa, 0xbb};
  std::vector<Tlp*> cpls;
  complete_memory_read(pool, req, 0x0300, bytes, 128, 64, [&](Tlp* t) { cpls.push_back(t); });
  ASSERT_EQ(cpls.size(), 1u);
  EXPECT_EQ(hdr(*cpls[0]).lower_address, 0x06);
  EXPECT_EQ(hdr(*cpls[0]).byte_count, 2);
  EXPECT_EQ(data(*cpls[0])[2], 0xaa);
  EXPECT_EQ(data(*cpls[0])[3], 0xbb);
  cpls[0]->release();
}

TEST(Completer, RegisterReadMasksEachDwWithItsByteEnables) {
  TlpPool pool;
  tlp::Header req;
  req.type = tlp::Type::MRd;
  req.address = 0x3000;
  req.length_dw = 3;
  req.first_be = 0xe;  // bytes 1..3 of DW 0
  req.last_be = 0x3;   // bytes 0..1 of DW 2
  std::vector<std::pair<unsigned, uint8_t>> asked;
  auto read_dw = [&](unsigned k, uint8_t be) {
    asked.emplace_back(k, be);
    return 0x44332211u + 0x01010101u * k * 0x10;
  };
  std::vector<Tlp*> cpls;
  complete_register_read(pool, req, 0x0400, 128, 64, read_dw, [&](Tlp* t) { cpls.push_back(t); });
  EXPECT_EQ(asked, (std::vector<std::pair<unsigned, uint8_t>>{{0, 0xe}, {1, 0xf}, {2, 0x3}}));
  ASSERT_EQ(cpls.size(), 1u);
  EXPECT_EQ(hdr(*cpls[0]).byte_count, 9);
  EXPECT_EQ(hdr(*cpls[0]).lower_address, 0x01);
  EXPECT_EQ(hdr(*cpls[0]).requester_id, req.requester_id);
  // The 9 bytes from the first enabled one, at lower_address & 3 in the payload.
  const std::vector<uint8_t> want = {0x22, 0x33, 0x44, 0x21, 0x32, 0x43, 0x54, 0x31, 0x42};
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(data(*cpls[0])[1 + i], want[i]) << i;
  cpls[0]->release();
}
