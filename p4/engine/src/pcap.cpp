// Classic pcap, by offsets: a 24-byte global header (magic, version 2.4, thiszone, sigfigs,
// snaplen, linktype) and 16-byte record headers (seconds, sub-seconds, captured length,
// original length), in the writer's byte order.
#include "dpusim/p4/pcap.h"

#include <cstring>

#include <filesystem>
#include <fstream>

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

}  // namespace

bool read_pcap(const std::string& path, PcapFile* out, std::string* error) {
  std::error_code ec;
  std::ifstream in(path, std::ios::binary);
  if (!in || std::filesystem::is_directory(path, ec)) {
    *error = "cannot open '" + path + "'";
    return false;
  }
  // Whole chunks, not byte by byte: a capture of a million frames is tens of megabytes.
  std::vector<std::uint8_t> bytes;
  std::error_code size_ec;
  auto size = std::filesystem::file_size(path, size_ec);
  if (!size_ec && size < (1ull << 34)) bytes.reserve(static_cast<std::size_t>(size));
  char chunk[1 << 16];
  while (in) {
    in.read(chunk, sizeof chunk);
    bytes.insert(bytes.end(), chunk, chunk + in.gcount());
  }
  if (in.bad()) {
    *error = "cannot read '" + path + "'";
    return false;
  }
  return parse_pcap(bytes, path, out, error);
}

bool parse_pcap(const std::vector<std::uint8_t>& bytes, const std::string& path, PcapFile* out, std::string* error) {
  if (bytes.size() < kGlobalHeaderBytes) {
    *error = path + ": " + std::to_string(bytes.size()) + " bytes is shorter than a pcap header";
    return false;
  }
  // The magic, read little-endian, says both the byte order and the timestamp unit.
  std::uint32_t magic = get32(&bytes[kOffMagic], false);
  bool swapped;
  if (magic == PCAP_MAGIC_USEC || magic == PCAP_MAGIC_NSEC) {
    swapped = false;
  } else if (__builtin_bswap32(magic) == PCAP_MAGIC_USEC || __builtin_bswap32(magic) == PCAP_MAGIC_NSEC) {
    swapped = true;
    magic = __builtin_bswap32(magic);
  } else if (magic == PCAPNG_MAGIC) {
    *error = path + ": 'pcapng' is not supported yet (write classic pcap, e.g. editcap -F pcap)";
    return false;
  } else {
    *error = path + ": not a pcap file (magic 0x" + [&] {
      char b[16];
      std::snprintf(b, sizeof b, "%08x", magic);
      return std::string(b);
    }() + ")";
    return false;
  }
  out->nanosecond = magic == PCAP_MAGIC_NSEC;
  std::uint32_t version_major = bytes[kOffVersionMajor] | bytes[kOffVersionMajor + 1] << 8;
  if (swapped) version_major = __builtin_bswap16(static_cast<std::uint16_t>(version_major));
  (void)kOffVersionMinor;
  (void)kOffSnaplen;
  if (version_major != 2) {
    *error = path + ": pcap version " + std::to_string(version_major) + " is not 2";
    return false;
  }
  std::uint32_t linktype = get32(&bytes[kOffLinktype], swapped) & 0x0fffffffu;
  if (linktype != PCAP_LINKTYPE_ETHERNET) {
    *error = path + ": link type " + std::to_string(linktype) + " is not Ethernet (1)";
    return false;
  }
  std::size_t pos = kGlobalHeaderBytes;
  out->records.reserve(bytes.size() / 64);
  for (std::size_t n = 0; pos < bytes.size(); ++n) {
    auto where = [&] { return path + " record " + std::to_string(n); };
    if (bytes.size() - pos < kRecordHeaderBytes) {
      *error = where() + ": the file ends inside the record header";
      return false;
    }
    const std::uint8_t* h = &bytes[pos];
    std::uint32_t sec = get32(h + kOffTsSec, swapped), frac = get32(h + kOffTsFrac, swapped);
    std::uint32_t incl = get32(h + kOffInclLen, swapped), orig = get32(h + kOffOrigLen, swapped);
    if (incl > PCAP_MAX_RECORD_BYTES) {
      *error = where() + ": captured length " + std::to_string(incl) + " exceeds " + std::to_string(PCAP_MAX_RECORD_BYTES);
      return false;
    }
    if (incl < orig) {
      *error = where() + ": the capture kept " + std::to_string(incl) + " of the frame's " + std::to_string(orig) +
               " bytes; a frame the capture truncated cannot be run";
      return false;
    }
    if (frac >= (out->nanosecond ? 1000000000u : 1000000u)) {
      *error = where() + ": sub-second timestamp " + std::to_string(frac) + " is out of range";
      return false;
    }
    pos += kRecordHeaderBytes;
    if (bytes.size() - pos < incl) {
      *error = where() + ": the file ends inside the frame";
      return false;
    }
    PcapRecord r;
    r.ts_ns = static_cast<std::uint64_t>(sec) * 1000000000ull + (out->nanosecond ? frac : static_cast<std::uint64_t>(frac) * 1000);
    r.data.assign(bytes.begin() + static_cast<std::ptrdiff_t>(pos), bytes.begin() + static_cast<std::ptrdiff_t>(pos + incl));
    out->records.push_back(std::move(r));
    pos += incl;
  }
  return true;
}

PcapWriter::~PcapWriter() {
  if (f_ != nullptr) std::fclose(f_);
}

bool PcapWriter::open(const std::string& path, bool nanosecond, std::string* error) {
  f_ = std::fopen(path.c_str(), "wb");
  if (f_ == nullptr) {
    *error = "cannot create '" + path + "'";
    return false;
  }
  path_ = path;
  nanosecond_ = nanosecond;
  std::uint8_t h[kGlobalHeaderBytes] = {};
  put32(h + kOffMagic, nanosecond ? PCAP_MAGIC_NSEC : PCAP_MAGIC_USEC);
  put16(h + kOffVersionMajor, 2);
  put16(h + kOffVersionMinor, 4);
  put32(h + kOffSnaplen, P4_MAX_FRAME_BYTES);
  put32(h + kOffLinktype, PCAP_LINKTYPE_ETHERNET);
  if (std::fwrite(h, 1, sizeof h, f_) != sizeof h) {
    *error = "cannot write '" + path + "'";
    return false;
  }
  return true;
}

bool PcapWriter::write(std::uint64_t ts_ns, const std::uint8_t* data, std::size_t size, std::string* error) {
  std::uint8_t h[kRecordHeaderBytes];
  std::uint64_t sec = ts_ns / 1000000000ull, ns = ts_ns % 1000000000ull;
  put32(h + kOffTsSec, static_cast<std::uint32_t>(sec));
  put32(h + kOffTsFrac, static_cast<std::uint32_t>(nanosecond_ ? ns : ns / 1000));
  put32(h + kOffInclLen, static_cast<std::uint32_t>(size));
  put32(h + kOffOrigLen, static_cast<std::uint32_t>(size));
  // One call per record: header and frame together.
  record_.resize(sizeof h + size);
  std::memcpy(record_.data(), h, sizeof h);
  if (size) std::memcpy(record_.data() + sizeof h, data, size);
  if (std::fwrite(record_.data(), 1, record_.size(), f_) != record_.size()) {
    *error = "cannot write '" + path_ + "'";
    return false;
  }
  return true;
}

bool PcapWriter::close(std::string* error) {
  if (f_ == nullptr) return true;
  bool ok = std::fclose(f_) == 0;
  f_ = nullptr;
  if (!ok) *error = "cannot write '" + path_ + "'";
  return ok;
}

}  // namespace dpusim::p4
