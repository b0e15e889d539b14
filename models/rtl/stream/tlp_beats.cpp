#include "rtl/stream/tlp_beats.h"

#include <algorithm>
#include <array>

namespace dpusim::rtl {

std::vector<uint32_t> tlp_to_beats(const tlp::Header& h, const uint8_t* payload, size_t payload_bytes,
                                   std::string* error) {
  std::array<uint8_t, tlp::kMaxHeaderBytes> packed{};
  const size_t header_bytes = tlp::pack(h, packed, error);
  if (header_bytes == 0) return {};
  std::vector<uint32_t> beats;
  const size_t payload_dws = h.payload_bytes() / 4;
  beats.reserve(header_bytes / 4 + payload_dws);
  for (size_t i = 0; i < header_bytes; i += 4)
    beats.push_back(uint32_t(packed[i]) << 24 | uint32_t(packed[i + 1]) << 16 | uint32_t(packed[i + 2]) << 8 |
                    packed[i + 3]);
  for (size_t dw = 0; dw < payload_dws; ++dw) {
    uint32_t v = 0;
    for (size_t j = 0; j < 4; ++j)
      if (4 * dw + j < payload_bytes) v |= uint32_t(payload[4 * dw + j]) << (8 * j);
    beats.push_back(v);
  }
  return beats;
}

bool beats_to_tlp(const std::vector<uint32_t>& beats, tlp::Header& h, std::vector<uint8_t>& payload,
                  std::string* error) {
  std::array<uint8_t, tlp::kMaxHeaderBytes> packed{};
  const size_t header_dws = std::min(beats.size(), packed.size() / 4);
  for (size_t i = 0; i < header_dws; ++i)
    for (size_t j = 0; j < 4; ++j) packed[4 * i + j] = uint8_t(beats[i] >> (24 - 8 * j));
  const size_t header_bytes = tlp::unpack(packed.data(), 4 * header_dws, h, error);
  if (header_bytes == 0) return false;
  if (tlp::is_memory(h.type) && (header_bytes == 16) != h.four_dw()) {
    *error = "a 4DW header for a memory request below 4 GiB (PCIe r5.0 §2.2.4.1 requires 3DW there)";
    return false;
  }
  const size_t expect = header_bytes / 4 + h.payload_bytes() / 4;
  if (beats.size() != expect) {
    *error = std::string("a ") + tlp::type_name(h.type) + " of " + std::to_string(expect) + " DWs (header and Length) in " +
             std::to_string(beats.size()) + " beats";
    return false;
  }
  payload.assign(h.payload_bytes(), 0);
  for (size_t i = 0; i < payload.size(); ++i) payload[i] = uint8_t(beats[header_bytes / 4 + i / 4] >> (8 * (i % 4)));
  return true;
}

}  // namespace dpusim::rtl
