// bmv2's hash algorithms (see hash_algos.h). The CRC parameters are the catalogued ones
// bmv2's tables and custom defaults amount to: crc16 is CRC-16/ARC (0x8005, reflected),
// crc32 is CRC-32/ISO-HDLC (0x04c11db7, reflected, init and xorout all ones), crcCCITT is
// CRC-16/CCITT-FALSE (0x1021, init 0xffff), crc8_custom starts as CRC-8 (0x07) and
// crc64_custom as 0x1b reflected.
#include "hash_algos.h"

#include <cstring>

namespace dpusim::p4 {

namespace {

std::uint64_t width_mask(int width) { return width >= 64 ? ~0ull : (1ull << width) - 1; }

std::uint64_t reflect(std::uint64_t v, int bits) {
  std::uint64_t r = 0;
  for (int i = 0; i < bits; ++i)
    if ((v >> i) & 1u) r |= 1ull << (bits - 1 - i);
  return r;
}

struct AlgoName {
  const char* name;
  HashAlgo algo;
};
const AlgoName kAlgos[] = {
    {"crc16", HashAlgo::kCrc16},           {"crc32", HashAlgo::kCrc32},
    {"crcCCITT", HashAlgo::kCrcCcitt},     {"crc8_custom", HashAlgo::kCrc8Custom},
    {"crc16_custom", HashAlgo::kCrc16Custom}, {"crc32_custom", HashAlgo::kCrc32Custom},
    {"crc64_custom", HashAlgo::kCrc64Custom}, {"csum16", HashAlgo::kCsum16},
    {"cksum16", HashAlgo::kCksum16},       {"identity", HashAlgo::kIdentity},
    {"xor16", HashAlgo::kXor16},           {"xor32", HashAlgo::kXor32},
    {"round_robin", HashAlgo::kRoundRobin},
};

}  // namespace

bool is_crc(HashAlgo algo) {
  switch (algo) {
    case HashAlgo::kCrc16: case HashAlgo::kCrc32: case HashAlgo::kCrcCcitt: case HashAlgo::kCrc8Custom:
    case HashAlgo::kCrc16Custom: case HashAlgo::kCrc32Custom: case HashAlgo::kCrc64Custom:
      return true;
    default:
      return false;
  }
}

CrcSpec crc_spec(HashAlgo algo) {
  switch (algo) {
    case HashAlgo::kCrc16:
    case HashAlgo::kCrc16Custom: return {16, 0x8005, 0, 0, true, true};
    case HashAlgo::kCrc32:
    case HashAlgo::kCrc32Custom: return {32, 0x04c11db7, 0xffffffffu, 0xffffffffu, true, true};
    case HashAlgo::kCrcCcitt: return {16, 0x1021, 0xffff, 0, false, false};
    case HashAlgo::kCrc8Custom: return {8, 0x07, 0, 0, false, false};
    case HashAlgo::kCrc64Custom: return {64, 0x1b, 0, 0, true, true};
    default: return {};
  }
}

void Crc::init(const CrcSpec& spec) {
  spec_ = spec;
  const int w = spec.width;
  const std::uint64_t top = 1ull << (w - 1), mask = width_mask(w);
  for (std::uint64_t d = 0; d < 256; ++d) {
    std::uint64_t r = (d << (w - 8)) & mask;
    for (int bit = 0; bit < 8; ++bit) r = (r & top) ? ((r << 1) ^ spec.poly) & mask : (r << 1) & mask;
    table_[d] = r;
  }
}

std::uint64_t Crc::compute(const std::uint8_t* data, std::size_t n) const {
  const int w = spec_.width;
  const std::uint64_t mask = width_mask(w);
  std::uint64_t r = spec_.init & mask;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t byte = spec_.reflect_in ? reflect(data[i], 8) : data[i];
    r = (table_[(byte ^ (r >> (w - 8))) & 0xff] ^ (r << 8)) & mask;
  }
  return ((spec_.reflect_out ? reflect(r, w) : r) ^ spec_.xor_out) & mask;
}

bool hash_algo_by_name(const std::string& name, HashAlgo* out) {
  for (const AlgoName& a : kAlgos)
    if (name == a.name) {
      *out = a.algo;
      return true;
    }
  return false;
}

const char* hash_algo_name(HashAlgo algo) {
  for (const AlgoName& a : kAlgos)
    if (a.algo == algo) return a.name;
  return "?";
}

std::uint64_t csum16(const std::uint8_t* data, std::size_t n) {
  // RFC 1071: the ones' complement of the ones' complement sum of big-endian 16-bit words,
  // an odd last byte padded with zero.
  std::uint64_t sum = 0;
  std::size_t i = 0;
  for (; i + 1 < n; i += 2) sum += static_cast<std::uint64_t>(data[i]) << 8 | data[i + 1];
  if (i < n) sum += static_cast<std::uint64_t>(data[i]) << 8;
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return ~sum & 0xffff;
}

std::uint64_t xor_fold(const std::uint8_t* data, std::size_t n, int word_bytes) {
  // Big-endian words xored together, the last one padded with zeros on the right.
  std::uint64_t acc = 0;
  for (std::size_t i = 0; i < n; i += static_cast<std::size_t>(word_bytes)) {
    std::uint64_t word = 0;
    for (int k = 0; k < word_bytes; ++k) word = word << 8 | (i + static_cast<std::size_t>(k) < n ? data[i + static_cast<std::size_t>(k)] : 0);
    acc ^= word;
  }
  return acc;
}

std::uint64_t identity_hash(const std::uint8_t* data, std::size_t n) {
  // The first eight bytes, big-endian (fewer bytes: just those).
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < n && i < 8; ++i) v = v << 8 | data[i];
  return v;
}

}  // namespace dpusim::p4
