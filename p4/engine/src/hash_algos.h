// The hash algorithms of bmv2's calculations (src/bm_sim/calculations.cpp, the names
// simple_switch registers): the CRCs by their standard parameters, the Internet checksum
// (RFC 1071), the xor folds, identity and round robin. Each takes the calculation's input
// bytes and returns the value bmv2's hash functor returns, before any use truncates it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "program.h"

namespace dpusim::p4 {

// A CRC as bmv2 computes it: the table of `poly` (MSB first), each byte reflected in when
// `reflect_in`, the remainder reflected out when `reflect_out`, then xored.
struct CrcSpec {
  int width = 16;  // 8, 16, 32 or 64
  std::uint64_t poly = 0, init = 0, xor_out = 0;
  bool reflect_in = false, reflect_out = false;
};

// The parameters bmv2 gives each CRC algorithm (its custom ones start from these).
CrcSpec crc_spec(HashAlgo algo);
bool is_crc(HashAlgo algo);

class Crc {
 public:
  void init(const CrcSpec& spec);
  std::uint64_t compute(const std::uint8_t* data, std::size_t n) const;
  const CrcSpec& spec() const { return spec_; }

 private:
  CrcSpec spec_;
  std::uint64_t table_[256] = {};
};

// By bmv2's name ("crc16", "csum16"...); false when the engine does not compute it.
bool hash_algo_by_name(const std::string& name, HashAlgo* out);
const char* hash_algo_name(HashAlgo algo);

// The non-CRC algorithms. `counter` is the round robin state of the calculation.
std::uint64_t csum16(const std::uint8_t* data, std::size_t n);
std::uint64_t xor_fold(const std::uint8_t* data, std::size_t n, int word_bytes);
std::uint64_t identity_hash(const std::uint8_t* data, std::size_t n);

}  // namespace dpusim::p4
