// Classic libpcap files (tcpdump's pcap-savefile(5) format): read in either byte order,
// microsecond or nanosecond timestamps, Ethernet link type; written in the host's byte
// order. pcapng (the 0x0a0d0d0a section header) is refused by name.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace dpusim::p4 {

inline constexpr std::uint32_t PCAP_MAGIC_USEC = 0xa1b2c3d4;
inline constexpr std::uint32_t PCAP_MAGIC_NSEC = 0xa1b23c4d;
inline constexpr std::uint32_t PCAPNG_MAGIC = 0x0a0d0d0a;
inline constexpr std::uint32_t PCAP_LINKTYPE_ETHERNET = 1;
// A record longer than this is a corrupt file, not a frame (tcpdump's largest snaplen).
inline constexpr std::uint32_t PCAP_MAX_RECORD_BYTES = 262144;

struct PcapRecord {
  std::uint64_t ts_ns = 0;
  std::vector<std::uint8_t> data;
};

struct PcapFile {
  bool nanosecond = false;
  std::vector<PcapRecord> records;
};

// Reads a whole file; false with *error naming the file, the record and the problem.
bool read_pcap(const std::string& path, PcapFile* out, std::string* error);
// The same for the bytes of a file already in memory; `name` stands for the file in errors.
bool parse_pcap(const std::vector<std::uint8_t>& bytes, const std::string& name, PcapFile* out, std::string* error);

class PcapWriter {
 public:
  PcapWriter() = default;
  ~PcapWriter();
  PcapWriter(const PcapWriter&) = delete;
  PcapWriter& operator=(const PcapWriter&) = delete;
  bool open(const std::string& path, bool nanosecond, std::string* error);
  bool write(std::uint64_t ts_ns, const std::uint8_t* data, std::size_t size, std::string* error);
  bool close(std::string* error);

 private:
  std::FILE* f_ = nullptr;
  bool nanosecond_ = false;
  std::string path_;
  std::vector<std::uint8_t> record_;  // a record's header and bytes, written in one call
};

}  // namespace dpusim::p4
