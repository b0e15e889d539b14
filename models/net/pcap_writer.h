// A classic libpcap capture file (the format Wireshark and tshark read): the global header with
// nanosecond timestamps (magic 0xa1b23c4d), link type Ethernet (1), then one record per frame
// stamped with its simulated time. Everything little-endian, written field by field.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace dpusim::net {

inline constexpr uint32_t kPcapMagicNanoseconds = 0xa1b23c4d;
inline constexpr uint16_t kPcapVersionMajor = 2, kPcapVersionMinor = 4;
inline constexpr uint32_t kPcapLinkTypeEthernet = 1;
inline constexpr uint32_t kPcapSnapLen = 65535;

class PcapWriter {
 public:
  // Creates or truncates `path` and writes the global header; throws std::runtime_error.
  explicit PcapWriter(const std::string& path);
  ~PcapWriter();
  PcapWriter(const PcapWriter&) = delete;
  PcapWriter& operator=(const PcapWriter&) = delete;

  void write(uint64_t time_ps, const std::vector<uint8_t>& frame);

 private:
  FILE* file_;
};

}  // namespace dpusim::net
