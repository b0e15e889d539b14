#include "ionic/frame_filter.h"

#include <algorithm>
#include <cstdio>

namespace dpusim::ionic {

bool InbandEndpoint::claim(const NicFrame& frame) {
  if (frame.bytes.size() < 6 || !std::equal(mac_.begin(), mac_.end(), frame.bytes.begin())) return false;
  ++frames_;
  return true;
}

std::string mac_text(const std::array<uint8_t, 6>& m) {
  char b[20];
  std::snprintf(b, sizeof b, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
  return b;
}

bool parse_mac(const std::string& text, std::array<uint8_t, 6>* mac) {
  if (text.size() != 17) return false;
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (unsigned i = 0; i < 6; ++i) {
    const int hi = hex(text[3 * i]), lo = hex(text[3 * i + 1]);
    if (hi < 0 || lo < 0 || (i < 5 && text[3 * i + 2] != ':')) return false;
    (*mac)[i] = uint8_t(hi << 4 | lo);
  }
  return true;
}

}  // namespace dpusim::ionic
