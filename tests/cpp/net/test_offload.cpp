// Transmit offloads (models/net/offload.h): checksum fill and TCP segmentation, byte for byte.
// The checksums are verified with the test's own RFC 1071 sum (end-around carry per word), not
// the unit's.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "net/offload.h"

using namespace dpusim::net;
using Bytes = std::vector<uint8_t>;

namespace {

// RFC 1071 §4.1, carry folded in at every word.
uint16_t rfc1071_sum(const Bytes& b, size_t from, size_t len, uint32_t start = 0) {
  uint32_t sum = start;
  for (size_t i = 0; i < len; i += 2) {
    uint32_t word = uint32_t(b[from + i]) << 8;
    if (i + 1 < len) word |= b[from + i + 1];
    sum += word;
    if (sum > 0xffff) sum = (sum & 0xffff) + 1;
  }
  return uint16_t(sum);
}
uint32_t add16(uint32_t sum, uint32_t word) {
  sum += word;
  return sum > 0xffff ? (sum & 0xffff) + 1 : sum;
}
uint16_t be16(const Bytes& b, size_t at) { return uint16_t(b[at] << 8 | b[at + 1]); }
uint32_t be32(const Bytes& b, size_t at) { return uint32_t(be16(b, at)) << 16 | be16(b, at + 2); }
void put16(Bytes& b, size_t at, uint16_t v) {
  b[at] = uint8_t(v >> 8);
  b[at + 1] = uint8_t(v);
}

// The pseudo-header's sum (not complemented), what a driver leaves in the L4 checksum field.
uint16_t pseudo4(const Bytes& f, uint8_t proto, uint16_t l4_len) {
  uint32_t s = rfc1071_sum(f, 14 + 12, 8);
  s = add16(s, proto);
  return uint16_t(add16(s, l4_len));
}
uint16_t pseudo6(const Bytes& f, uint8_t proto, uint32_t l4_len) {
  uint32_t s = rfc1071_sum(f, 14 + 8, 32);
  s = add16(s, l4_len >> 16);
  s = add16(s, l4_len & 0xffff);
  return uint16_t(add16(s, proto));
}

Bytes eth(uint16_t type) {
  Bytes f = {0x52, 0x54, 0x00, 0x12, 0x34, 0x57, 0x52, 0x54, 0x00, 0x12, 0x34, 0x56};
  f.push_back(uint8_t(type >> 8));
  f.push_back(uint8_t(type));
  return f;
}
void ipv4(Bytes& f, uint8_t proto, uint16_t total, uint16_t id) {
  const Bytes h = {0x45, 0x00, uint8_t(total >> 8), uint8_t(total), uint8_t(id >> 8), uint8_t(id), 0x40, 0x00, 64, proto,
                   0, 0, 192, 0, 2, 1, 192, 0, 2, 2};
  const size_t at = f.size();
  f.insert(f.end(), h.begin(), h.end());
  put16(f, at + 10, uint16_t(~rfc1071_sum(f, at, 20)));
}
void ipv6(Bytes& f, uint8_t next, uint16_t payload) {
  Bytes h = {0x60, 0, 0, 0, uint8_t(payload >> 8), uint8_t(payload), next, 64};
  for (uint8_t i = 0; i < 16; ++i) h.push_back(i == 0 ? 0x20 : i == 1 ? 0x01 : i == 15 ? 1 : 0);
  for (uint8_t i = 0; i < 16; ++i) h.push_back(i == 0 ? 0x20 : i == 1 ? 0x01 : i == 15 ? 2 : 0);
  f.insert(f.end(), h.begin(), h.end());
}
// A TCP header of 32 bytes (NOP, NOP, timestamps: what Linux sends), seq, ack 0x01020304.
void tcp(Bytes& f, uint32_t seq, uint8_t flags) {
  const Bytes h = {0xc0, 0x00, 0x13, 0x88, uint8_t(seq >> 24), uint8_t(seq >> 16), uint8_t(seq >> 8), uint8_t(seq),
                   1, 2, 3, 4, 0x80, flags, 0x01, 0xf5, 0, 0, 0, 0,
                   1, 1, 8, 10, 0, 0, 0, 7, 0, 0, 0, 9};
  f.insert(f.end(), h.begin(), h.end());
}
void payload(Bytes& f, size_t n) {
  for (size_t i = 0; i < n; ++i) f.push_back(uint8_t(i % 251));
}

constexpr uint8_t kFin = 0x01, kPsh = 0x08, kAck = 0x10, kCwr = 0x80;

// A TSO frame as Linux hands it over: IPv4 total length of the whole, TCP checksum field holding
// the pseudo-header sum.
Bytes tso4_frame(size_t data, uint8_t flags) {
  Bytes f = eth(0x0800);
  ipv4(f, 6, uint16_t(20 + 32 + data), 0x1234);
  tcp(f, 1000, flags);
  payload(f, data);
  put16(f, 34 + 16, pseudo4(f, 6, uint16_t(32 + data)));
  return f;
}
Bytes tso6_frame(size_t data, uint8_t flags) {
  Bytes f = eth(0x86dd);
  ipv6(f, 6, uint16_t(32 + data));
  tcp(f, 0xfffffa00, flags);
  payload(f, data);
  put16(f, 54 + 16, pseudo6(f, 6, uint32_t(32 + data)));
  return f;
}

TxOffload tso(TxOffload::Gso gso, uint16_t mss, uint16_t l4) {
  TxOffload o;
  o.needs_csum = true;
  o.csum_start = l4;
  o.csum_offset = 16;
  o.gso = gso;
  o.hdr_len = uint16_t(l4 + 32);
  o.gso_size = mss;
  return o;
}

void expect_drop(const Bytes& f, const TxOffload& o, const std::string& why) {
  const TxOffloadResult r = apply_tx_offload(f, o);
  EXPECT_TRUE(r.frames.empty());
  EXPECT_EQ(r.drop, why);
  EXPECT_EQ(r.checksums, 0u);
}

}  // namespace

TEST(Offload, NothingAskedLeavesTheFrame) {
  const Bytes f = tso4_frame(100, kAck);
  const TxOffloadResult r = apply_tx_offload(f, TxOffload{});
  ASSERT_EQ(r.frames.size(), 1u);
  EXPECT_EQ(r.frames[0], f);
  EXPECT_EQ(r.checksums, 0u);
  EXPECT_EQ(r.drop, "");
}

TEST(Offload, FillsAUdpChecksum) {
  Bytes f = eth(0x0800);
  ipv4(f, 17, 20 + 8 + 11, 7);
  const Bytes udp = {0x9c, 0x40, 0x00, 0x35, 0x00, 19, 0, 0};
  f.insert(f.end(), udp.begin(), udp.end());
  for (char c : std::string("hello world")) f.push_back(uint8_t(c));  // odd length
  put16(f, 34 + 6, pseudo4(f, 17, 19));
  TxOffload o;
  o.needs_csum = true;
  o.csum_start = 34;
  o.csum_offset = 6;
  const TxOffloadResult r = apply_tx_offload(f, o);
  ASSERT_EQ(r.frames.size(), 1u);
  EXPECT_EQ(r.checksums, 1u);
  const Bytes& out = r.frames[0];
  ASSERT_EQ(out.size(), f.size());
  // The checksum as computed from scratch: pseudo-header plus the datagram with the field zero.
  Bytes zero = f;
  put16(zero, 40, 0);
  const uint16_t want = uint16_t(~rfc1071_sum(zero, 34, 19, pseudo4(f, 17, 19)));
  EXPECT_EQ(be16(out, 40), want);
  EXPECT_EQ(be16(out, 40), 0x4d80);
  EXPECT_EQ(rfc1071_sum(out, 34, 19, pseudo4(out, 17, 19)), 0xffff);  // verifies
  // Everything else is untouched.
  for (size_t i = 0; i < f.size(); ++i)
    if (i != 40 && i != 41) {
      EXPECT_EQ(out[i], f[i]) << "byte " << i;
    }
}

TEST(Offload, FillsATcpChecksum) {
  const Bytes f = tso4_frame(100, kPsh | kAck);
  const TxOffloadResult r = apply_tx_offload(f, tso(TxOffload::Gso::none, 0, 34));
  ASSERT_EQ(r.frames.size(), 1u);
  EXPECT_EQ(r.checksums, 1u);
  Bytes zero = f;
  put16(zero, 50, 0);
  EXPECT_EQ(be16(r.frames[0], 50), uint16_t(~rfc1071_sum(zero, 34, 132, pseudo4(f, 6, 132))));
  EXPECT_EQ(be16(r.frames[0], 50), 0x7904);
  EXPECT_EQ(rfc1071_sum(r.frames[0], 34, 132, pseudo4(f, 6, 132)), 0xffff);
}

TEST(Offload, Tso4MakesThreeSegments) {
  const Bytes f = tso4_frame(3000, kPsh | kAck | kFin);
  const TxOffloadResult r = apply_tx_offload(f, tso(TxOffload::Gso::tcpv4, 1448, 34));
  ASSERT_EQ(r.drop, "");
  ASSERT_EQ(r.frames.size(), 3u);
  EXPECT_EQ(r.checksums, 3u);
  const size_t data[3] = {1448, 1448, 104};
  const uint8_t flags[3] = {kAck, kAck, kPsh | kAck | kFin};
  size_t off = 0;
  for (size_t i = 0; i < 3; ++i) {
    const Bytes& s = r.frames[i];
    SCOPED_TRACE("segment " + std::to_string(i));
    ASSERT_EQ(s.size(), 14 + 20 + 32 + data[i]);
    EXPECT_TRUE(std::equal(f.begin(), f.begin() + 14, s.begin()));  // Ethernet header
    EXPECT_EQ(be16(s, 16), 20 + 32 + data[i]);                       // IPv4 total length
    EXPECT_EQ(be16(s, 18), 0x1234 + i);                              // IPv4 ID
    EXPECT_EQ(rfc1071_sum(s, 14, 20), 0xffff);                       // IPv4 header checksum
    EXPECT_EQ(be32(s, 34 + 4), 1000 + off);                          // sequence number
    EXPECT_EQ(be32(s, 34 + 8), 0x01020304u);                         // ack unchanged
    EXPECT_EQ(s[34 + 13], flags[i]);
    EXPECT_TRUE(std::equal(f.begin() + 66 + long(off), f.begin() + 66 + long(off + data[i]), s.begin() + 66));
    EXPECT_EQ(rfc1071_sum(s, 34, 32 + data[i], pseudo4(s, 6, uint16_t(32 + data[i]))), 0xffff);  // TCP checksum
    off += data[i];
  }
  EXPECT_EQ(be16(r.frames[0], 24), 0x9ee4);  // IPv4 header checksums, exact
  EXPECT_EQ(be16(r.frames[2], 24), 0xa422);
}

TEST(Offload, Tso4CwrOnTheFirstSegmentOnly) {
  const Bytes f = tso4_frame(2000, kCwr | kAck | kPsh);
  TxOffload o = tso(TxOffload::Gso::tcpv4, 1000, 34);
  o.ecn = true;
  o.ecn_allowed = true;
  const TxOffloadResult r = apply_tx_offload(f, o);
  ASSERT_EQ(r.frames.size(), 2u);
  EXPECT_EQ(r.frames[0][34 + 13], kCwr | kAck);
  EXPECT_EQ(r.frames[1][34 + 13], kAck | kPsh);
}

TEST(Offload, Tso6MakesThreeSegments) {
  const Bytes f = tso6_frame(3000, kPsh | kAck);
  const TxOffloadResult r = apply_tx_offload(f, tso(TxOffload::Gso::tcpv6, 1428, 54));
  ASSERT_EQ(r.drop, "");
  ASSERT_EQ(r.frames.size(), 3u);
  const size_t data[3] = {1428, 1428, 144};
  size_t off = 0;
  for (size_t i = 0; i < 3; ++i) {
    const Bytes& s = r.frames[i];
    SCOPED_TRACE("segment " + std::to_string(i));
    ASSERT_EQ(s.size(), 14 + 40 + 32 + data[i]);
    EXPECT_EQ(be16(s, 18), 32 + data[i]);  // IPv6 payload length
    EXPECT_EQ(be32(s, 54 + 4), uint32_t(0xfffffa00u + off));  // wraps past 2^32
    EXPECT_EQ(s[54 + 13], i == 2 ? kPsh | kAck : kAck);
    EXPECT_EQ(rfc1071_sum(s, 54, 32 + data[i], pseudo6(s, 6, uint32_t(32 + data[i]))), 0xffff);
    off += data[i];
  }
  EXPECT_EQ(be32(r.frames[1], 58), 0xffffff94u);
  EXPECT_EQ(be32(r.frames[2], 58), 0x00000528u);
}

TEST(Offload, PayloadShorterThanTheMssIsOneSegment) {
  const Bytes f = tso4_frame(500, kAck | kPsh);
  const TxOffloadResult r = apply_tx_offload(f, tso(TxOffload::Gso::tcpv4, 1448, 34));
  ASSERT_EQ(r.frames.size(), 1u);
  EXPECT_EQ(r.frames[0].size(), f.size());
  EXPECT_EQ(r.frames[0][34 + 13], kAck | kPsh);
  EXPECT_EQ(rfc1071_sum(r.frames[0], 34, 532, pseudo4(f, 6, 532)), 0xffff);
}

TEST(Offload, VlanTaggedTso4) {
  Bytes f = tso4_frame(3000, kAck);
  const Bytes tag = {0x81, 0x00, 0x00, 0x05};
  f.insert(f.begin() + 12, tag.begin(), tag.end());
  const TxOffloadResult r = apply_tx_offload(f, tso(TxOffload::Gso::tcpv4, 1448, 38));
  ASSERT_EQ(r.frames.size(), 3u);
  EXPECT_EQ(be16(r.frames[2], 20), 20 + 32 + 104);
  EXPECT_EQ(be32(r.frames[1], 38 + 4), 1000u + 1448);
}

TEST(Offload, UdpL4OverIpv4MakesDatagrams) {
  Bytes f = eth(0x0800);
  ipv4(f, 17, 20 + 8 + 4000, 0xfffe);
  const Bytes udp = {0x9c, 0x40, 0x13, 0x89, 0x0f, 0xa8, 0, 0};  // length 4008
  f.insert(f.end(), udp.begin(), udp.end());
  payload(f, 4000);
  put16(f, 34 + 6, pseudo4(f, 17, 4008));
  TxOffload o = tso(TxOffload::Gso::udp_l4, 1472, 34);
  o.csum_offset = 6;
  o.hdr_len = 42;
  const TxOffloadResult r = apply_tx_offload(f, o);
  ASSERT_EQ(r.drop, "");
  ASSERT_EQ(r.frames.size(), 3u);
  EXPECT_EQ(r.checksums, 3u);
  const size_t data[3] = {1472, 1472, 1056};
  size_t off = 0;
  for (size_t i = 0; i < 3; ++i) {
    const Bytes& s = r.frames[i];
    SCOPED_TRACE("segment " + std::to_string(i));
    ASSERT_EQ(s.size(), 14 + 20 + 8 + data[i]);
    EXPECT_EQ(be16(s, 16), 20 + 8 + data[i]);
    EXPECT_EQ(be16(s, 18), uint16_t(0xfffe + i));  // the ID wraps
    EXPECT_EQ(rfc1071_sum(s, 14, 20), 0xffff);
    EXPECT_EQ(be16(s, 34), 0x9c40);
    EXPECT_EQ(be16(s, 38), 8 + data[i]);  // UDP length
    EXPECT_TRUE(std::equal(f.begin() + 42 + long(off), f.begin() + 42 + long(off + data[i]), s.begin() + 42));
    EXPECT_EQ(rfc1071_sum(s, 34, 8 + data[i], pseudo4(s, 17, uint16_t(8 + data[i]))), 0xffff);
    off += data[i];
  }
  EXPECT_EQ(be16(r.frames[2], 18), 0x0000);
}

TEST(Offload, UdpL4OverIpv6) {
  Bytes f = eth(0x86dd);
  ipv6(f, 17, 8 + 3000);
  const Bytes udp = {0x9c, 0x40, 0x13, 0x89, 0x0b, 0xc0, 0, 0};
  f.insert(f.end(), udp.begin(), udp.end());
  payload(f, 3000);
  put16(f, 54 + 6, pseudo6(f, 17, 3008));
  TxOffload o = tso(TxOffload::Gso::udp_l4, 1452, 54);
  o.csum_offset = 6;
  o.hdr_len = 62;
  const TxOffloadResult r = apply_tx_offload(f, o);
  ASSERT_EQ(r.frames.size(), 3u);
  const size_t data[3] = {1452, 1452, 96};
  for (size_t i = 0; i < 3; ++i) {
    const Bytes& s = r.frames[i];
    EXPECT_EQ(be16(s, 18), 8 + data[i]);  // IPv6 payload length
    EXPECT_EQ(be16(s, 58), 8 + data[i]);  // UDP length
    EXPECT_EQ(rfc1071_sum(s, 54, 8 + data[i], pseudo6(s, 17, uint32_t(8 + data[i]))), 0xffff);
  }
}

TEST(Offload, MalformedRequestsAreDropped) {
  const Bytes f4 = tso4_frame(3000, kAck), f6 = tso6_frame(3000, kAck);
  TxOffload o;
  o.needs_csum = true;
  o.csum_start = uint16_t(f4.size());
  expect_drop(f4, o, "csum_start 3066 + csum_offset 0 puts the checksum outside the 3066-byte frame");
  o.csum_start = 3000;
  o.csum_offset = 65;
  expect_drop(f4, o, "csum_start 3000 + csum_offset 65 puts the checksum outside the 3066-byte frame");
  o.csum_offset = 64;  // the last two bytes: fits
  EXPECT_EQ(apply_tx_offload(f4, o).frames.size(), 1u);

  expect_drop(f4, tso(TxOffload::Gso::tcpv4, 0, 34), "gso_size 0");
  TxOffload hl = tso(TxOffload::Gso::tcpv4, 1448, 34);
  hl.hdr_len = 3067;
  expect_drop(f4, hl, "hdr_len 3067 beyond the 3066-byte frame");
  TxOffload nocsum = tso(TxOffload::Gso::tcpv4, 1448, 34);
  nocsum.needs_csum = false;
  expect_drop(f4, nocsum, "a GSO frame without NEEDS_CSUM");
  expect_drop(f6, tso(TxOffload::Gso::tcpv4, 1448, 54), "gso_type TCPV4 on EtherType 0x86dd, not IPv4");
  expect_drop(f4, tso(TxOffload::Gso::tcpv6, 1448, 34), "gso_type TCPV6 on EtherType 0x0800, not IPv6");

  Bytes udp = eth(0x0800);
  ipv4(udp, 17, 20 + 8 + 3000, 1);
  payload(udp, 3008);
  expect_drop(udp, tso(TxOffload::Gso::tcpv4, 1448, 34), "gso_type TCPV4 on IP protocol 17, not TCP (6)");
  Bytes udp6 = eth(0x86dd);
  ipv6(udp6, 17, 3008);
  payload(udp6, 3008);
  expect_drop(udp6, tso(TxOffload::Gso::tcpv6, 1448, 54), "gso_type TCPV6 on IP protocol 17, not TCP (6)");

  Bytes frag = f4;
  frag[20] = 0x20;  // More Fragments
  expect_drop(frag, tso(TxOffload::Gso::tcpv4, 1448, 34), "gso_type TCPV4: the IPv4 packet is a fragment");
  Bytes shortf(f4.begin(), f4.begin() + 60);
  expect_drop(shortf, tso(TxOffload::Gso::tcpv4, 1448, 34), "hdr_len 66 beyond the 60-byte frame");
  TxOffload shorthl = tso(TxOffload::Gso::tcpv4, 1448, 34);
  shorthl.hdr_len = 0;  // a hint the device does not rely on
  expect_drop(shortf, shorthl, "gso_type TCPV4: TCP data offset 32 bytes invalid or cut short");
  Bytes noip(f4.begin(), f4.begin() + 30);
  shorthl.csum_start = 0;
  shorthl.csum_offset = 0;
  expect_drop(noip, shorthl, "gso_type TCPV4: no IPv4 header at byte 14");
  Bytes badoff = f4;
  badoff[34 + 12] = 0x40;  // data offset 16 bytes
  expect_drop(badoff, tso(TxOffload::Gso::tcpv4, 1448, 34), "gso_type TCPV4: TCP data offset 16 bytes invalid or cut short");

  expect_drop(f4, tso(TxOffload::Gso::udp_l4, 1472, 34), "gso_type UDP_L4 on IP protocol 6, not UDP (17)");
  Bytes arp = f4;
  arp[12] = 0x08;
  arp[13] = 0x06;
  expect_drop(arp, tso(TxOffload::Gso::udp_l4, 1472, 34), "gso_type UDP_L4 on EtherType 0x0806, not IP");

  TxOffload ecn = tso(TxOffload::Gso::tcpv4, 1448, 34);
  ecn.ecn = true;
  expect_drop(f4, ecn, "gso_type has the ECN bit, and the device did not offer HOST_ECN");
  expect_drop(tso4_frame(3000, kAck | kCwr), tso(TxOffload::Gso::tcpv4, 1448, 34),
              "a GSO frame with TCP CWR set and no ECN bit in gso_type");
}
