// The benchmark's programs, as p4c would emit them for v1model, and a frame for each with
// where its lookup key fields sit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace dpusim::p4::tool {

struct BenchFrame {
  std::vector<std::uint8_t> bytes;
  std::size_t key_a = 0;  // byte offsets and sizes of up to three key fields
  int bytes_a = 0;
  std::size_t key_b = 0;
  int bytes_b = 0;
  std::size_t key_c = 0;
  int bytes_c = 0;
};

std::string bench_l2_program();   // ingress.dmac: exact on hdr.ethernet.dstAddr
std::string bench_l3_program();   // ingress.ipv4_lpm: lpm on hdr.ipv4.dstAddr
std::string bench_acl_program();  // ingress.acl: ternary on srcAddr, dstAddr, protocol
const BenchFrame& bench_l2_frame();
const BenchFrame& bench_l3_frame();
const BenchFrame& bench_acl_frame();

}  // namespace dpusim::p4::tool
