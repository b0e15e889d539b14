// Unsigned decimal text appended to a string without a heap allocation (std::to_string
// allocates per number): the numbers of the event log, the trace and the VCD.
#pragma once

#include <cstdint>
#include <string>

namespace dpusim::pcie {

inline void append_decimal(std::string& out, uint64_t v) {
  char buf[20];  // 2^64 - 1 has 20 digits
  char* p = buf + sizeof buf;
  do {
    *--p = char('0' + v % 10);
    v /= 10;
  } while (v);
  out.append(p, size_t(buf + sizeof buf - p));
}

}  // namespace dpusim::pcie
