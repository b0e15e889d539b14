// "0x" and lower-case hexadecimal digits, no padding: how log lines and error messages print
// addresses, keys, flags and register values.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace dpusim::pcie {

inline std::string hex(uint64_t v) {
  char buf[19];  // "0x" and 16 digits
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace dpusim::pcie
