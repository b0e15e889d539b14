// Hexadecimal rendering for the RDMA path's messages and log lines ("0x0000abcd").
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace dpusim::p4::rdma {

inline std::string hex32(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", static_cast<unsigned>(v));
  return buf;
}

inline std::string hex64(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace dpusim::p4::rdma
