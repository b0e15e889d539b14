// An Ethernet frame on a wire: destination MAC through payload, without preamble or FCS (what
// a pcap holds), and a platform-unique id that names it in the event log.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dpusim::net {

struct Frame {
  std::vector<uint8_t> bytes;
  uint64_t id = 0;
};

// Ethernet framing (IEEE 802.3 §3.1.1, §4.4.2): a frame shorter than 60 bytes is padded on the
// wire; every frame carries a 4-byte FCS and is preceded by 8 bytes of preamble/SFD and
// followed by a 12-byte inter-packet gap.
inline constexpr size_t kEthHeaderBytes = 14;
inline constexpr size_t kEthMinFrameBytes = 60;
inline constexpr size_t kEthFcsBytes = 4;
inline constexpr size_t kEthPreambleAndGapBytes = 20;

// FNV-1a of the frame bytes, for the log (a frame's contents without its size).
std::string frame_digest(const std::vector<uint8_t>& bytes);

}  // namespace dpusim::net
