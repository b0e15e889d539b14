// Classic libpcap files (tcpdump's pcap-savefile(5) format): read in either byte order,
// microsecond or nanosecond timestamps, Ethernet link type; written in the host's byte
// order, through a bounded buffer. pcapng (the 0x0a0d0d0a section header) is refused by name.
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

// One record as the streaming reader hands it out: `data` points into the reader's buffer
// and stays valid until that reader's next call to next().
struct PcapView {
  std::uint64_t ts_ns = 0;
  const std::uint8_t* data = nullptr;
  std::uint32_t size = 0;
};

// A capture read in bounded chunks: memory is one chunk plus the largest record, whatever the
// number of records. The global header is checked by open(); each record by next(), which
// stops at the first damage (a record header or frame the file ends inside, a captured length
// over the file's snap length or PCAP_MAX_RECORD_BYTES, ...) with the file, the record's
// number (from 0) and its byte offset in the error, and hands out no part of that record.
class PcapReader {
 public:
  enum class Next { kRecord, kEnd, kError };
  static constexpr std::size_t kChunkBytes = 256 * 1024;

  PcapReader() = default;
  ~PcapReader();
  PcapReader(const PcapReader&) = delete;
  PcapReader& operator=(const PcapReader&) = delete;
  bool open(const std::string& path, std::string* error);
  // The same over bytes already in memory (not copied; they must outlive the reader).
  bool open_memory(const std::uint8_t* data, std::size_t size, const std::string& name, std::string* error);
  Next next(PcapView* record, std::string* error);
  bool nanosecond() const { return nanosecond_; }
  std::uint64_t records() const { return index_; }  // records handed out so far

 private:
  bool header(std::string* error);
  bool fill(std::size_t want, std::string* error);  // at least `want` bytes from pos_, or the file's end
  bool fail(const std::string& why, std::string* error) const;

  int fd_ = -1;
  std::string path_;
  std::vector<std::uint8_t> buffer_;
  const std::uint8_t* bytes_ = nullptr;  // buffer_ or the caller's memory
  std::size_t pos_ = 0, end_ = 0;        // unread bytes: bytes_[pos_, end_)
  std::uint64_t base_ = 0;               // file offset of bytes_[0]
  std::uint64_t index_ = 0;
  std::uint32_t snaplen_ = 0;
  bool swapped_ = false, nanosecond_ = false, eof_ = false;
};

// Reads a whole file (through PcapReader); false with *error naming the file, the record,
// its byte offset and the problem.
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
  bool flush(std::string* error);

  std::FILE* f_ = nullptr;
  bool nanosecond_ = false;
  std::string path_;
  std::vector<std::uint8_t> buffer_;  // records not yet written: one fwrite per kChunkBytes
};

}  // namespace dpusim::p4
