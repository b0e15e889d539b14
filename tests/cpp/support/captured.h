// A TLP as a test keeps it: its header, payload bytes, serial and the time it arrived.
#pragma once

#include <cstdint>
#include <vector>

#include "tlm/sim_context.h"
#include "tlm/tlp_payload.h"

namespace dpusim::testing {

struct Captured {
  uint64_t time_ps;
  tlp::Header h;
  std::vector<uint8_t> data;
  uint64_t serial;
};

inline Captured capture(pcie::Tlp& t) {
  return Captured{pcie::SimContext::now_ps(), pcie::hdr(t), std::vector<uint8_t>(pcie::data(t), pcie::data(t) + pcie::data_len(t)),
                  pcie::ext(t).serial};
}

// The captured TLPs of `type`, in arrival order.
inline std::vector<Captured> of_type(const std::vector<Captured>& all, tlp::Type type) {
  std::vector<Captured> out;
  for (const Captured& c : all)
    if (c.h.type == type) out.push_back(c);
  return out;
}

}  // namespace dpusim::testing
