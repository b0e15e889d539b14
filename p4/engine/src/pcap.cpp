// Classic pcap, by offsets: a 24-byte global header (magic, version 2.4, thiszone, sigfigs,
// snaplen, linktype) and 16-byte record headers (seconds, sub-seconds, captured length,
// original length), in the writer's byte order.
#include "dpusim/p4/pcap.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <filesystem>

#include "dpusim/p4/limits.h"

namespace dpusim::p4 {

namespace {

constexpr std::size_t kGlobalHeaderBytes = 24;
constexpr std::size_t kRecordHeaderBytes = 16;
constexpr std::size_t kOffMagic = 0, kOffVersionMajor = 4, kOffVersionMinor = 6, kOffSnaplen = 16, kOffLinktype = 20;
constexpr std::size_t kOffTsSec = 0, kOffTsFrac = 4, kOffInclLen = 8, kOffOrigLen = 12;
static_assert(kOffLinktype + 4 == kGlobalHeaderBytes, "the global header ends after the link type");
static_assert(kOffOrigLen + 4 == kRecordHeaderBytes, "a record header ends after the original length");

std::uint32_t get32(const std::uint8_t* p, bool swapped) {
  std::uint32_t le = static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
                     static_cast<std::uint32_t>(p[2]) << 16 | static_cast<std::uint32_t>(p[3]) << 24;
  return swapped ? __builtin_bswap32(le) : le;
}

void put32(std::uint8_t* p, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}
void put16(std::uint8_t* p, std::uint16_t v) {
  p[0] = static_cast<std::uint8_t>(v);
  p[1] = static_cast<std::uint8_t>(v >> 8);
}

std::string pcap_hex32(std::uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "%08x", v);
  return b;
}

}  // namespace

PcapReader::~PcapReader() {
  if (fd_ >= 0) ::close(fd_);
}

bool PcapReader::open(const std::string& path, std::string* error) {
  path_ = path;
  std::error_code ec;
  fd_ = std::filesystem::is_directory(path, ec) ? -1 : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) {
    *error = "cannot open '" + path + "'";
    return false;
  }
  // One chunk beside the largest record a chunk boundary can cut: the buffer never grows.
  buffer_.resize(kChunkBytes + kRecordHeaderBytes + PCAP_MAX_RECORD_BYTES);
  bytes_ = buffer_.data();
  return header(error);
}

bool PcapReader::open_memory(const std::uint8_t* data, std::size_t size, const std::string& name, std::string* error) {
  path_ = name;
  bytes_ = data;
  end_ = size;
  eof_ = true;
  return header(error);
}

bool PcapReader::fill(std::size_t want, std::string* error) {
  if (end_ - pos_ >= want || eof_) return true;
  std::memmove(buffer_.data(), buffer_.data() + pos_, end_ - pos_);
  base_ += pos_;
  end_ -= pos_;
  pos_ = 0;
  while (end_ < want && !eof_) {
    ssize_t got = ::read(fd_, buffer_.data() + end_, buffer_.size() - end_);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      *error = "cannot read '" + path_ + "' at byte " + std::to_string(base_ + end_);
      return false;
    }
    if (got == 0) eof_ = true;
    end_ += static_cast<std::size_t>(got);
  }
  return true;
}

bool PcapReader::header(std::string* error) {
  if (!fill(kGlobalHeaderBytes, error)) return false;
  if (end_ < kGlobalHeaderBytes) {
    *error = path_ + ": " + std::to_string(end_) + " bytes is shorter than a pcap header";
    return false;
  }
  const std::uint8_t* h = bytes_;
  // The magic, read little-endian, says both the byte order and the timestamp unit.
  std::uint32_t magic = get32(h + kOffMagic, false);
  if (magic == PCAP_MAGIC_USEC || magic == PCAP_MAGIC_NSEC) {
    swapped_ = false;
  } else if (__builtin_bswap32(magic) == PCAP_MAGIC_USEC || __builtin_bswap32(magic) == PCAP_MAGIC_NSEC) {
    swapped_ = true;
    magic = __builtin_bswap32(magic);
  } else if (magic == PCAPNG_MAGIC) {
    *error = path_ + ": 'pcapng' is not supported yet (write classic pcap, e.g. editcap -F pcap)";
    return false;
  } else {
    *error = path_ + ": not a pcap file (magic 0x" + pcap_hex32(magic) + " at byte 0)";
    return false;
  }
  nanosecond_ = magic == PCAP_MAGIC_NSEC;
  std::uint32_t version_major = h[kOffVersionMajor] | h[kOffVersionMajor + 1] << 8;
  if (swapped_) version_major = __builtin_bswap16(static_cast<std::uint16_t>(version_major));
  (void)kOffVersionMinor;
  if (version_major != 2) {
    *error = path_ + ": pcap version " + std::to_string(version_major) + " is not 2";
    return false;
  }
  std::uint32_t linktype = get32(h + kOffLinktype, swapped_) & 0x0fffffffu;
  if (linktype != PCAP_LINKTYPE_ETHERNET) {
    *error = path_ + ": link type " + std::to_string(linktype) + " is not Ethernet (1)";
    return false;
  }
  // 0 states no limit (libpcap reads it so); PCAP_MAX_RECORD_BYTES applies either way.
  snaplen_ = get32(h + kOffSnaplen, swapped_);
  pos_ = kGlobalHeaderBytes;
  return true;
}

bool PcapReader::fail(const std::string& why, std::string* error) const {
  *error = path_ + " record " + std::to_string(index_) + " at byte " + std::to_string(base_ + pos_) + ": " + why;
  return false;
}

PcapReader::Next PcapReader::next(PcapView* record, std::string* error) {
  if (!fill(kRecordHeaderBytes, error)) return Next::kError;
  if (pos_ == end_) return Next::kEnd;
  if (end_ - pos_ < kRecordHeaderBytes) {
    fail("the file ends inside the record header (" + std::to_string(end_ - pos_) + " of 16 bytes)", error);
    return Next::kError;
  }
  const std::uint8_t* h = bytes_ + pos_;
  std::uint32_t sec = get32(h + kOffTsSec, swapped_), frac = get32(h + kOffTsFrac, swapped_);
  std::uint32_t incl = get32(h + kOffInclLen, swapped_), orig = get32(h + kOffOrigLen, swapped_);
  std::string why;
  if (incl > PCAP_MAX_RECORD_BYTES)
    why = "captured length " + std::to_string(incl) + " exceeds " + std::to_string(PCAP_MAX_RECORD_BYTES);
  else if (snaplen_ != 0 && incl > snaplen_)
    why = "captured length " + std::to_string(incl) + " exceeds the file's snap length " + std::to_string(snaplen_);
  else if (incl < orig)
    why = "the capture kept " + std::to_string(incl) + " of the frame's " + std::to_string(orig) +
          " bytes; a frame the capture truncated cannot be run";
  else if (frac >= (nanosecond_ ? 1000000000u : 1000000u))
    why = "sub-second timestamp " + std::to_string(frac) + " is out of range";
  if (!why.empty()) {
    fail(why, error);
    return Next::kError;
  }
  if (!fill(kRecordHeaderBytes + incl, error)) return Next::kError;
  if (end_ - pos_ < kRecordHeaderBytes + incl) {
    fail("the file ends inside the frame (" + std::to_string(end_ - pos_ - kRecordHeaderBytes) + " of its " + std::to_string(incl) +
             " bytes)",
         error);
    return Next::kError;
  }
  record->ts_ns = static_cast<std::uint64_t>(sec) * 1000000000ull + (nanosecond_ ? frac : static_cast<std::uint64_t>(frac) * 1000);
  record->data = bytes_ + pos_ + kRecordHeaderBytes;
  record->size = incl;
  pos_ += kRecordHeaderBytes + incl;
  ++index_;
  return Next::kRecord;
}

namespace {

bool pcap_read_all(PcapReader& reader, PcapFile* out, std::string* error) {
  out->nanosecond = reader.nanosecond();
  PcapView v;
  for (;;) {
    switch (reader.next(&v, error)) {
      case PcapReader::Next::kEnd:
        return true;
      case PcapReader::Next::kError:
        return false;
      case PcapReader::Next::kRecord:
        out->records.push_back({v.ts_ns, std::vector<std::uint8_t>(v.data, v.data + v.size)});
    }
  }
}

}  // namespace

bool read_pcap(const std::string& path, PcapFile* out, std::string* error) {
  PcapReader reader;
  return reader.open(path, error) && pcap_read_all(reader, out, error);
}

bool parse_pcap(const std::vector<std::uint8_t>& bytes, const std::string& path, PcapFile* out, std::string* error) {
  PcapReader reader;
  return reader.open_memory(bytes.data(), bytes.size(), path, error) && pcap_read_all(reader, out, error);
}

PcapWriter::~PcapWriter() {
  std::string ignored;
  close(&ignored);
}

bool PcapWriter::open(const std::string& path, bool nanosecond, std::string* error) {
  f_ = std::fopen(path.c_str(), "wb");
  if (f_ == nullptr) {
    *error = "cannot create '" + path + "'";
    return false;
  }
  std::setvbuf(f_, nullptr, _IONBF, 0);  // buffer_ is the buffer
  path_ = path;
  nanosecond_ = nanosecond;
  buffer_.clear();
  buffer_.reserve(PcapReader::kChunkBytes);
  std::uint8_t h[kGlobalHeaderBytes] = {};
  put32(h + kOffMagic, nanosecond ? PCAP_MAGIC_NSEC : PCAP_MAGIC_USEC);
  put16(h + kOffVersionMajor, 2);
  put16(h + kOffVersionMinor, 4);
  put32(h + kOffSnaplen, P4_MAX_FRAME_BYTES);
  put32(h + kOffLinktype, PCAP_LINKTYPE_ETHERNET);
  buffer_.insert(buffer_.end(), h, h + sizeof h);
  return true;
}

bool PcapWriter::flush(std::string* error) {
  if (!buffer_.empty() && std::fwrite(buffer_.data(), 1, buffer_.size(), f_) != buffer_.size()) {
    *error = "cannot write '" + path_ + "'";
    return false;
  }
  buffer_.clear();
  return true;
}

bool PcapWriter::write(std::uint64_t ts_ns, const std::uint8_t* data, std::size_t size, std::string* error) {
  if (buffer_.size() + kRecordHeaderBytes + size > PcapReader::kChunkBytes && !flush(error)) return false;
  std::uint64_t sec = ts_ns / 1000000000ull, ns = ts_ns % 1000000000ull;
  std::uint8_t h[kRecordHeaderBytes];
  put32(h + kOffTsSec, static_cast<std::uint32_t>(sec));
  put32(h + kOffTsFrac, static_cast<std::uint32_t>(nanosecond_ ? ns : ns / 1000));
  put32(h + kOffInclLen, static_cast<std::uint32_t>(size));
  put32(h + kOffOrigLen, static_cast<std::uint32_t>(size));
  // Appended, not resized then copied over: the frame's bytes are written once.
  buffer_.insert(buffer_.end(), h, h + kRecordHeaderBytes);
  if (size) buffer_.insert(buffer_.end(), data, data + size);
  return true;
}

bool PcapWriter::close(std::string* error) {
  if (f_ == nullptr) return true;
  bool ok = flush(error);
  ok = std::fclose(f_) == 0 && ok;
  f_ = nullptr;
  if (!ok) *error = "cannot write '" + path_ + "'";
  return ok;
}

}  // namespace dpusim::p4
