// Small pieces shared by the control-plane paths (update.cpp, update_profile.cpp,
// control.cpp): refusals, name checks and key printing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dpusim/p4/errors.h"
#include "dpusim/p4/limits.h"
#include "dpusim/p4/update.h"
#include "program.h"

namespace dpusim::p4 {

inline UpdateError fail(UpdateCode code, std::string message) { return UpdateError{code, std::move(message)}; }

// Names reach log lines: anything but printable ASCII is refused before it is echoed.
inline bool printable(const std::string& s) {
  if (s.empty() || s.size() > P4_MAX_NAME_BYTES) return false;
  for (unsigned char c : s)
    if (c < 0x20 || c > 0x7e) return false;
  return true;
}

inline std::string bytes_hex(const std::uint8_t* p, int n) {
  static const char digits[] = "0123456789abcdef";
  std::string s = "0x";
  for (int i = 0; i < n; ++i) {
    s.push_back(digits[p[i] >> 4]);
    s.push_back(digits[p[i] & 15]);
  }
  if (n == 0) s += "0";
  return s;
}

// The action of a table by name, or -1 with *error set (unknown, or not the table's).
int table_action(const Program& program, const TableInfo& t, const std::string& name, UpdateError* error);
// An action's runtime data from an update's params: every parameter once, within width.
bool action_arguments(const ActionInfo& a, const TableUpdate& u, int data_limbs, std::vector<std::uint64_t>* data,
                      UpdateError* error);

}  // namespace dpusim::p4
