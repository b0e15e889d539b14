// TLP header packing against the PCIe r5.0 §2.2 layouts, byte by byte.
#include <gtest/gtest.h>

#include <vector>

#include "tlm/tlp.h"

using namespace dpusim::tlp;

namespace {
std::vector<uint8_t> pack_bytes(const Header& h) {
  std::array<uint8_t, kMaxHeaderBytes> out{};
  std::string err;
  const size_t n = pack(h, out, &err);
  EXPECT_NE(n, 0u) << err;
  return std::vector<uint8_t>(out.begin(), out.begin() + n);
}
}  // namespace

TEST(Tlp, MemoryRead3DwLayout) {
  Header h;
  h.type = Type::MRd;
  h.length_dw = 2;
  h.requester_id = Bdf{2, 0, 0}.id();
  h.tag = 0x5a;
  h.first_be = 0xf;
  h.last_be = 0x3;
  h.address = 0xc0001004;
  // DW0: Fmt 000, Type 00000, Length 2. DW1: RID 0x0200, tag 0x5a, BE 0x3f. DW2: address.
  EXPECT_EQ(pack_bytes(h), (std::vector<uint8_t>{0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x5a, 0x3f, 0xc0, 0x00, 0x10, 0x04}));
}

TEST(Tlp, MemoryWriteAbove4GiBUses4Dw) {
  Header h;
  h.type = Type::MWr;
  h.length_dw = 1;
  h.address = 0x4000000010ull;
  h.attr = 0x6;  // IDO + relaxed ordering
  h.tc = 3;
  // Fmt 011 (4DW with data), TC 3 at [22:20], Attr[2] bit 18, Attr[1:0]=10 at [13:12].
  EXPECT_EQ(pack_bytes(h), (std::vector<uint8_t>{0x60, 0x34, 0x20, 0x01, 0x00, 0x00, 0x00, 0x0f, 0x00, 0x00, 0x00,
                                                 0x40, 0x00, 0x00, 0x00, 0x10}));
}

TEST(Tlp, ConfigType1Layout) {
  Header h;
  h.type = Type::CfgWr1;
  h.target_id = Bdf{3, 0, 0}.id();
  h.register_offset = 0x104;  // extended register 1, register 0x04
  h.first_be = 0x3;
  h.tag = 7;
  EXPECT_EQ(pack_bytes(h), (std::vector<uint8_t>{0x45, 0x00, 0x00, 0x01, 0x00, 0x00, 0x07, 0x03, 0x03, 0x00, 0x01, 0x04}));
}

TEST(Tlp, CompletionLayout) {
  Header h;
  h.type = Type::CplD;
  h.length_dw = 1;
  h.completer_id = 0x0100;
  h.status = CplStatus::SC;
  h.byte_count = 4;
  h.requester_id = 0;
  h.tag = 9;
  h.lower_address = 0x44;
  EXPECT_EQ(pack_bytes(h), (std::vector<uint8_t>{0x4a, 0x00, 0x00, 0x01, 0x01, 0x00, 0x00, 0x04, 0x00, 0x00, 0x09, 0x44}));
  h.type = Type::Cpl;
  h.status = CplStatus::UR;
  // Status 001 at [15:13] of DW1.
  EXPECT_EQ(pack_bytes(h)[6], 0x20);
}

TEST(Tlp, LengthOf1024DwEncodesAsZeroAndByteCount4096AsZero) {
  Header h;
  h.type = Type::MWr;
  h.length_dw = 1024;
  auto b = pack_bytes(h);
  EXPECT_EQ(b[2] & 0x3, 0);
  EXPECT_EQ(b[3], 0);
  Header back;
  std::string err;
  ASSERT_EQ(unpack(b.data(), b.size(), back, &err), 12u) << err;
  EXPECT_EQ(back.length_dw, 1024);
  Header c;
  c.type = Type::CplD;
  c.length_dw = 1024;
  c.byte_count = 4096;
  b = pack_bytes(c);
  ASSERT_EQ(unpack(b.data(), b.size(), back, &err), 12u) << err;
  EXPECT_EQ(back.byte_count, 4096);
}

TEST(Tlp, EveryTypeRoundTrips) {
  for (int i = 0; i <= static_cast<int>(Type::CplDLk); ++i) {
    Header h;
    h.type = static_cast<Type>(i);
    h.requester_id = 0x1234;
    h.tag = 0xab;
    h.tc = 5;
    h.attr = 5;
    h.td = true;
    h.ep = false;
    h.length_dw = is_config(h.type) ? 1 : 17;
    h.first_be = 0xe;
    h.last_be = 0x7;
    h.address = (i % 2) ? 0x1234567890ull : 0x9abcdef0ull;
    h.target_id = 0x0518;
    h.register_offset = 0xabc;
    h.completer_id = 0x0200;
    h.status = CplStatus::CA;
    h.bcm = true;
    h.byte_count = 100;
    h.lower_address = 0x7c;
    h.message_code = 0x7f;
    h.message_routing = 4;
    std::array<uint8_t, kMaxHeaderBytes> out{};
    std::string err;
    const size_t n = pack(h, out, &err);
    ASSERT_NE(n, 0u) << type_name(h.type) << ": " << err;
    Header back;
    ASSERT_EQ(unpack(out.data(), n, back, &err), n) << type_name(h.type) << ": " << err;
    std::array<uint8_t, kMaxHeaderBytes> again{};
    ASSERT_EQ(pack(back, again, &err), n);
    EXPECT_EQ(out, again) << type_name(h.type);
    EXPECT_EQ(back.type, h.type);
    EXPECT_EQ(back.tag, h.tag);
  }
}

TEST(Tlp, RefusesWhatCannotBeEncoded) {
  std::array<uint8_t, kMaxHeaderBytes> out{};
  std::string err;
  Header h;
  h.type = Type::MRd;
  h.length_dw = 1025;
  EXPECT_EQ(pack(h, out, &err), 0u);
  EXPECT_NE(err.find("1025"), std::string::npos);
  h.length_dw = 1;
  h.address = 0x1002;
  EXPECT_EQ(pack(h, out, &err), 0u);
  EXPECT_NE(err.find("[1:0]"), std::string::npos);
  Header c;
  c.type = Type::CfgRd0;
  c.register_offset = 0x1000;
  EXPECT_EQ(pack(c, out, &err), 0u);
  const uint8_t shortbuf[8] = {};
  Header back;
  EXPECT_EQ(unpack(shortbuf, 8, back, &err), 0u);
  EXPECT_NE(err.find("shorter"), std::string::npos);
  // Reserved completion status 3.
  const uint8_t bad[12] = {0x0a, 0, 0, 1, 0, 0, 0x60, 4, 0, 0, 0, 0};
  EXPECT_EQ(unpack(bad, 12, back, &err), 0u);
  EXPECT_NE(err.find("reserved completion status 3"), std::string::npos);
}

TEST(Tlp, BdfFormatsAsLspci) {
  EXPECT_EQ(bdf_str(Bdf{0x1f, 3, 7}.id()), "1f:03.7");
  EXPECT_EQ(Bdf::from_id(0x0218).str(), "02:03.0");
}
