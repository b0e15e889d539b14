// Transmit offloads a NIC does for its driver, as pure functions on a frame's bytes (Ethernet
// header through payload): the checksum the driver left partial (virtio 1.2 §5.1.6.2 "Packet
// Transmission", VIRTIO_NET_HDR_F_NEEDS_CSUM; Linux's CHECKSUM_PARTIAL, skb_checksum_help in
// net/core/dev.c) and TCP segmentation of a frame larger than the MSS (the same section's
// gso_type TCPV4/TCPV6; what Linux's tcp_gso_segment, net/ipv4/tcp_offload.c, does in software),
// and UDP segmentation (UDP_L4).
// Used by the virtio-net offload engine's transmit path (models/vnet/virtio/datapath.cpp); the
// descriptor format a device reads the request from is its own business.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace dpusim::net {

// What the driver asked for with one frame.
struct TxOffload {
  // Fill the ones' complement checksum of bytes [csum_start, end of frame) at csum_start +
  // csum_offset, where the driver left the pseudo-header's sum.
  bool needs_csum = false;
  uint16_t csum_start = 0, csum_offset = 0;
  // Segment the TCP payload (tcpv4, tcpv6) or the UDP payload over IPv4 or IPv6 (udp_l4:
  // virtio's VIRTIO_NET_HDR_GSO_UDP_L4, Linux's __udp_gso_segment in net/ipv4/udp_offload.c)
  // into gso_size pieces.
  enum class Gso : uint8_t { none, tcpv4, tcpv6, udp_l4 } gso = Gso::none;
  bool ecn = false;       // the frame's TCP header may carry CWR (virtio's VIRTIO_NET_HDR_GSO_ECN)
  bool ecn_allowed = false;  // the device offered ECN with segmentation (VIRTIO_NET_F_HOST_ECN)
  uint16_t hdr_len = 0;   // the driver's hint: Ethernet + IP + L4 headers (checked, not relied on)
  uint16_t gso_size = 0;  // the MSS: payload bytes per segment
};

struct TxOffloadResult {
  std::vector<std::vector<uint8_t>> frames;  // what goes on the wire, in order; empty = dropped
  std::string drop;                          // why it was dropped, naming the values
  unsigned checksums = 0;                    // L4 checksums filled (one per segment)
};

// Applies `o` to `frame`. A frame without offloads comes back as it is. A frame the request does
// not fit (a checksum position outside it, a GSO frame that is not TCP over the IP version asked
// for, gso_size 0, hdr_len beyond the frame...) is dropped, with the reason.
TxOffloadResult apply_tx_offload(std::vector<uint8_t> frame, const TxOffload& o);

// The Internet checksum's ones' complement sum (RFC 1071) of `len` bytes, added to `sum`,
// unfolded; and its fold to 16 bits, complemented (the value a header stores).
uint64_t ones_sum(const uint8_t* p, size_t len, uint64_t sum = 0);
uint16_t fold_complement(uint64_t sum);

}  // namespace dpusim::net
