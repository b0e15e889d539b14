// simple_switch_CLI's number forms (see cli_values.h).
#include "cli_values.h"

#include <cctype>
#include <cstdlib>
#include <vector>

#include "dpusim/p4/limits.h"

namespace dpusim::p4 {

bool parse_cli_integer(const std::string& text, Value* out) {
  std::string t = text;
  int base = 10;
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) base = 16;
  else if (t.size() > 2 && t[0] == '0' && (t[1] == 'b' || t[1] == 'B')) base = 2;
  else if (t.size() > 2 && t[0] == '0' && (t[1] == 'o' || t[1] == 'O')) base = 8;
  if (base != 10) t = t.substr(2);
  if (t.empty() || t.size() > 600) return false;
  Value v = Value::zero();
  bool digit_before = false;
  for (char c : t) {
    // Python allows one underscore between digits.
    if (c == '_') {
      if (!digit_before) return false;
      digit_before = false;
      continue;
    }
    int d = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
            : std::isxdigit(static_cast<unsigned char>(c)) ? std::tolower(static_cast<unsigned char>(c)) - 'a' + 10
                                                            : 99;
    if (d >= base) return false;
    value_mul(v, v, Value::of(static_cast<std::uint64_t>(base)));
    value_add(v, v, Value::of(static_cast<std::uint64_t>(d)));
    if (v.bit_length() > P4_MAX_FIELD_BITS) return false;
    digit_before = true;
  }
  if (!digit_before) return false;
  *out = v;
  return true;
}

namespace {

// Bytes into a value, big-endian.
Value from_bytes(const std::vector<std::uint8_t>& b) {
  Value v;
  v.set_bytes_be(b.data(), b.size());
  return v;
}

bool split(const std::string& text, char sep, std::vector<std::string>* parts) {
  parts->clear();
  std::string cur;
  for (char c : text) {
    if (c == sep) {
      parts->push_back(cur);
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  parts->push_back(cur);
  return true;
}

bool ipv6(const std::string& text, std::vector<std::uint8_t>* out) {
  // Groups of up to four hex digits, "::" once for a run of zero groups.
  std::size_t gap = text.find("::");
  if (gap != std::string::npos && text.find("::", gap + 1) != std::string::npos) return false;
  auto groups = [](const std::string& s, std::vector<std::uint16_t>* g) {
    if (s.empty()) return true;
    std::vector<std::string> parts;
    split(s, ':', &parts);
    for (const std::string& p : parts) {
      if (p.empty() || p.size() > 4 || p.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) return false;
      g->push_back(static_cast<std::uint16_t>(std::strtoul(p.c_str(), nullptr, 16)));
    }
    return true;
  };
  std::vector<std::uint16_t> head, tail;
  if (gap == std::string::npos) {
    if (!groups(text, &head) || head.size() != 8) return false;
  } else {
    if (!groups(text.substr(0, gap), &head) || !groups(text.substr(gap + 2), &tail) || head.size() + tail.size() > 7) return false;
    head.resize(8 - tail.size(), 0);
    head.insert(head.end(), tail.begin(), tail.end());
  }
  out->clear();
  for (std::uint16_t g : head) {
    out->push_back(static_cast<std::uint8_t>(g >> 8));
    out->push_back(static_cast<std::uint8_t>(g));
  }
  return true;
}

}  // namespace

bool parse_cli_param(const std::string& text, int width, Value* out, std::string* error) {
  std::vector<std::string> parts;
  if (width == 32 && text.find('.') != std::string::npos) {
    split(text, '.', &parts);
    std::vector<std::uint8_t> b;
    for (const std::string& p : parts) {
      Value v;
      std::uint64_t n;
      if (parts.size() != 4 || p.empty() || p.find_first_not_of("0123456789") != std::string::npos || !parse_cli_integer(p, &v) ||
          !v.fits_u64(&n) || n > 255) {
        *error = "invalid IPv4 address '" + text + "'";
        return false;
      }
      b.push_back(static_cast<std::uint8_t>(n));
    }
    *out = from_bytes(b);
    return true;
  }
  if (width == 48 && text.find(':') != std::string::npos) {
    split(text, ':', &parts);
    std::vector<std::uint8_t> b;
    for (const std::string& p : parts) {
      if (parts.size() != 6 || p.empty() || p.size() > 2 || p.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) {
        *error = "invalid MAC address '" + text + "'";
        return false;
      }
      b.push_back(static_cast<std::uint8_t>(std::strtoul(p.c_str(), nullptr, 16)));
    }
    *out = from_bytes(b);
    return true;
  }
  if (width == 128 && text.find(':') != std::string::npos) {
    std::vector<std::uint8_t> b;
    if (!ipv6(text, &b)) {
      *error = "invalid IPv6 address '" + text + "'";
      return false;
    }
    *out = from_bytes(b);
    return true;
  }
  if (!parse_cli_integer(text, out)) {
    *error = "'" + text + "' is not a number (0x.., 0b.., 0o.. or decimal)";
    return false;
  }
  // runtime_CLI's int_to_bytes: the value must fit the field's bytes.
  if (out->bit_length() > (width + 7) / 8 * 8) {
    *error = "'" + text + "' does not fit " + std::to_string((width + 7) / 8) + " bytes";
    return false;
  }
  return true;
}

bool parse_cli_rate(const std::string& text, double* rate, std::uint64_t* burst) {
  std::size_t colon = text.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size()) return false;
  std::string r = text.substr(0, colon), b = text.substr(colon + 1);
  if (r.find_first_not_of("0123456789.eE+-") != std::string::npos) return false;
  char* end = nullptr;
  *rate = std::strtod(r.c_str(), &end);
  if (end == nullptr || *end != '\0' || !(*rate >= 0)) return false;
  Value v;
  return b.find_first_not_of("0123456789") == std::string::npos && parse_cli_integer(b, &v) && v.fits_u64(burst);
}

namespace cli_args {

bool count(const std::vector<std::string>& args, std::size_t lo, std::size_t hi, std::string* error) {
  if (args.size() >= lo && args.size() <= hi) return true;
  *error = lo == hi ? "takes " + std::to_string(lo) + " arguments, not " + std::to_string(args.size())
                    : "takes " + std::to_string(lo) + " to " + std::to_string(hi) + " arguments, not " + std::to_string(args.size());
  return false;
}

bool engine_error(const UpdateError& e, std::string* error) {
  *error = "error[" + std::string(update_code_name(e.code)) + "]: " + e.message;
  return false;
}

bool handle_arg(const std::string& word, const char* what, std::uint32_t* out, std::string* error) {
  Value v;
  std::uint64_t n = 0;
  if (!parse_cli_integer(word, &v) || !v.fits_u64(&n) || n > 0xffffffffu) {
    *error = std::string("bad ") + what + " '" + word + "'";
    return false;
  }
  // bmv2 puts a version in the top byte of an entry handle; the index is below it.
  *out = static_cast<std::uint32_t>(n);
  return true;
}

}  // namespace cli_args

}  // namespace dpusim::p4
