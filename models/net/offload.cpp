// Transmit checksum and TCP segmentation offloads (offload.h).
#include "net/offload.h"

#include <algorithm>
#include <cstdio>

#include "net/frame.h"
#include "tlm/bytes.h"

namespace dpusim::net {

namespace {

constexpr uint16_t kEtherTypeIpv4 = 0x0800, kEtherTypeIpv6 = 0x86dd, kEtherTypeVlan = 0x8100, kEtherTypeQinQ = 0x88a8;
constexpr uint8_t kIpProtoTcp = 6, kIpProtoUdp = 17;
constexpr size_t kIpv4MinHeader = 20, kIpv6Header = 40, kTcpMinHeader = 20, kUdpHeader = 8;
// TCP header flags (RFC 9293 §3.1, RFC 3168 §6.1 for CWR) in byte 13.
constexpr uint8_t kTcpFin = 0x01, kTcpPsh = 0x08, kTcpCwr = 0x80;


TxOffloadResult dropped(std::string why) {
  TxOffloadResult r;
  r.drop = std::move(why);
  return r;
}

std::string n(uint64_t v) { return std::to_string(v); }
std::string hex16(uint16_t v) {
  char s[8];
  std::snprintf(s, sizeof s, "0x%04x", v);
  return s;
}

// Where a GSO frame's headers are (the device parses them: virtio 1.2 §5.1.6.2.1 lets it not
// rely on hdr_len).
struct L4Frame {
  size_t l3 = 0, l3_len = 0, l4 = 0, l4_len = 0;
  bool v4 = true, tcp = true;
};

const char* gso_name(TxOffload::Gso gso) {
  return gso == TxOffload::Gso::tcpv4 ? "TCPV4" : gso == TxOffload::Gso::tcpv6 ? "TCPV6" : "UDP_L4";
}

std::string parse_l4(const std::vector<uint8_t>& f, TxOffload::Gso gso, L4Frame& t) {
  const std::string kind = std::string("gso_type ") + gso_name(gso);
  size_t l3 = kEthHeaderBytes;
  uint16_t type = bytes::get_be16(&f[12]);
  if (type == kEtherTypeVlan || type == kEtherTypeQinQ) {
    if (f.size() < kEthHeaderBytes + 4) return kind + ": VLAN tag cut short";
    type = bytes::get_be16(&f[16]);
    l3 += 4;
  }
  t.l3 = l3;
  t.tcp = gso != TxOffload::Gso::udp_l4;
  // TCPV4 and TCPV6 name the IP version; UDP_L4 takes either.
  t.v4 = gso == TxOffload::Gso::tcpv4 || (gso == TxOffload::Gso::udp_l4 && type == kEtherTypeIpv4);
  uint8_t proto = 0;
  if (t.v4) {
    if (type != kEtherTypeIpv4) return kind + " on EtherType " + hex16(type) + ", not IPv4";
    if (f.size() < l3 + kIpv4MinHeader || (f[l3] >> 4) != 4 || (f[l3] & 0xf) < 5)
      return kind + ": no IPv4 header at byte " + n(l3);
    t.l3_len = size_t(f[l3] & 0xf) * 4;
    if (f.size() < l3 + t.l3_len) return kind + ": IPv4 header of " + n(t.l3_len) + " bytes cut short";
    if (bytes::get_be16(&f[l3 + 6]) & 0x3fff) return kind + ": the IPv4 packet is a fragment";
    proto = f[l3 + 9];
  } else {
    if (type != kEtherTypeIpv6) return kind + " on EtherType " + hex16(type) + (t.tcp ? ", not IPv6" : ", not IP");
    if (f.size() < l3 + kIpv6Header || (f[l3] >> 4) != 6) return kind + ": no IPv6 header at byte " + n(l3);
    t.l3_len = kIpv6Header;
    proto = f[l3 + 6];
  }
  t.l4 = l3 + t.l3_len;
  if (!t.tcp) {
    if (proto != kIpProtoUdp) return kind + " on IP protocol " + n(proto) + ", not UDP (17)";
    t.l4_len = kUdpHeader;
    if (f.size() < t.l4 + t.l4_len) return kind + ": UDP header cut short";
    return "";
  }
  if (proto != kIpProtoTcp) return kind + " on IP protocol " + n(proto) + ", not TCP (6)";
  if (f.size() < t.l4 + kTcpMinHeader) return kind + ": TCP header cut short";
  t.l4_len = size_t(f[t.l4 + 12] >> 4) * 4;
  if (t.l4_len < kTcpMinHeader || f.size() < t.l4 + t.l4_len)
    return kind + ": TCP data offset " + n(t.l4_len) + " bytes invalid or cut short";
  return "";
}

// The L4 checksum of segment `s` (headers at t's offsets): pseudo-header (RFC 9293 §3.1 for
// IPv4, RFC 8200 §8.1 for IPv6) plus the L4 header and payload, the field counted as zero; UDP's
// 0 is sent as 0xffff (RFC 768).
void fill_l4_checksum(std::vector<uint8_t>& s, const L4Frame& t) {
  const size_t l4_len = s.size() - t.l4, at = t.l4 + (t.tcp ? 16 : 6);
  uint64_t sum = 0;
  if (t.v4) {
    sum = ones_sum(&s[t.l3 + 12], 8);
  } else {
    sum = ones_sum(&s[t.l3 + 8], 32);
    sum += uint32_t(l4_len) >> 16;
  }
  sum += (t.tcp ? kIpProtoTcp : kIpProtoUdp) + (l4_len & 0xffff);
  bytes::put_be16(&s[at], 0);
  const uint16_t c = fold_complement(ones_sum(&s[t.l4], l4_len, sum));
  bytes::put_be16(&s[at], c == 0 && !t.tcp ? 0xffff : c);
}

TxOffloadResult segment(std::vector<uint8_t> f, const TxOffload& o) {
  L4Frame t;
  if (std::string why = parse_l4(f, o.gso, t); !why.empty()) return dropped(why);
  const uint8_t flags = t.tcp ? f[t.l4 + 13] : 0;
  if (t.tcp && o.ecn && !o.ecn_allowed) return dropped("gso_type has the ECN bit, and the device did not offer HOST_ECN");
  if (t.tcp && (flags & kTcpCwr) && !o.ecn) return dropped("a GSO frame with TCP CWR set and no ECN bit in gso_type");
  const size_t hdrs = t.l4 + t.l4_len, payload = f.size() - hdrs;
  const size_t count = std::max<size_t>(1, (payload + o.gso_size - 1) / o.gso_size);
  const uint32_t seq0 = t.tcp ? bytes::get_be32(&f[t.l4 + 4]) : 0;
  const uint16_t id0 = t.v4 ? bytes::get_be16(&f[t.l3 + 4]) : 0;
  TxOffloadResult r;
  r.frames.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    const size_t off = i * o.gso_size, len = std::min<size_t>(o.gso_size, payload - off);
    std::vector<uint8_t> s;
    s.reserve(hdrs + len);
    s.insert(s.end(), f.begin(), f.begin() + long(hdrs));
    s.insert(s.end(), f.begin() + long(hdrs + off), f.begin() + long(hdrs + off + len));
    if (t.v4) {
      bytes::put_be16(&s[t.l3 + 2], uint16_t(t.l3_len + t.l4_len + len));
      bytes::put_be16(&s[t.l3 + 4], uint16_t(id0 + i));
      bytes::put_be16(&s[t.l3 + 10], 0);
      bytes::put_be16(&s[t.l3 + 10], fold_complement(ones_sum(&s[t.l3], t.l3_len)));
    } else {
      bytes::put_be16(&s[t.l3 + 4], uint16_t(t.l4_len + len));
    }
    if (t.tcp) {
      bytes::put_be32(&s[t.l4 + 4], uint32_t(seq0 + off));
      uint8_t fl = flags;
      if (i + 1 < count) fl &= uint8_t(~(kTcpFin | kTcpPsh));
      if (i > 0) fl &= uint8_t(~kTcpCwr);
      s[t.l4 + 13] = fl;
    } else {
      bytes::put_be16(&s[t.l4 + 4], uint16_t(kUdpHeader + len));  // each segment its own datagram
    }
    fill_l4_checksum(s, t);
    r.frames.push_back(std::move(s));
  }
  r.checksums = unsigned(count);
  return r;
}

}  // namespace

uint64_t ones_sum(const uint8_t* p, size_t len, uint64_t sum) {
  size_t i = 0;
  for (; i + 1 < len; i += 2) sum += uint32_t(p[i] << 8 | p[i + 1]);
  if (i < len) sum += uint32_t(p[i] << 8);  // an odd byte, padded with zero
  return sum;
}

uint16_t fold_complement(uint64_t sum) {
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return uint16_t(~sum);
}

TxOffloadResult apply_tx_offload(std::vector<uint8_t> frame, const TxOffload& o) {
  const size_t len = frame.size();
  if (o.needs_csum && (o.csum_start >= len || size_t(o.csum_offset) + 2 > len - o.csum_start))
    return dropped("csum_start " + n(o.csum_start) + " + csum_offset " + n(o.csum_offset) +
                   " puts the checksum outside the " + n(len) + "-byte frame");
  if (o.gso != TxOffload::Gso::none) {
    // virtio 1.2 §5.1.6.2: a GSO frame has NEEDS_CSUM and its MSS in gso_size.
    if (!o.needs_csum) return dropped("a GSO frame without NEEDS_CSUM");
    if (o.gso_size == 0) return dropped("gso_size 0");
    if (o.hdr_len > len) return dropped("hdr_len " + n(o.hdr_len) + " beyond the " + n(len) + "-byte frame");
    if (len < kEthHeaderBytes) return dropped("a GSO frame of " + n(len) + " bytes, shorter than an Ethernet header");
    return segment(std::move(frame), o);
  }
  TxOffloadResult r;
  if (o.needs_csum) {
    // skb_checksum_help: the sum from csum_start on, the field holding the pseudo-header's sum;
    // a result of 0 is stored as 0xffff (CSUM_MANGLED_0: UDP's "no checksum" is 0).
    const size_t at = size_t(o.csum_start) + o.csum_offset;
    uint16_t c = fold_complement(ones_sum(&frame[o.csum_start], len - o.csum_start));
    bytes::put_be16(&frame[at], c ? c : 0xffff);
    r.checksums = 1;
  }
  r.frames.push_back(std::move(frame));
  return r;
}

}  // namespace dpusim::net
