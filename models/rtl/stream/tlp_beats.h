// A TLP as the beats of a 32-bit TLP stream (docs/cosim.md, "How TLPs map onto the stream"):
// one DW a beat, the header's 3 or 4 DWs first, in tlp::pack's wire layout with each DW read as
// a 32-bit word (its first byte on the wire in bits [31:24]: Fmt/Type in DW0[31:24], Length in
// DW0[9:0], as PCIe r5.0 §2.2 draws them), then the payload's DWs with the byte at the lowest
// address in bits [7:0] (byte 4i + j of the payload in bits [8j+7:8j] of payload beat i), as a
// little-endian memory holds them. The stream's `last` marks the final beat.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tlm/tlp.h"

namespace dpusim::rtl {

// The beats of a TLP with header `h` and the payload bytes it carries (h.payload_bytes() of
// them; missing bytes are zero). Empty, with *error set, for a header tlp::pack refuses.
std::vector<uint32_t> tlp_to_beats(const tlp::Header& h, const uint8_t* payload, size_t payload_bytes,
                                   std::string* error);

// The TLP that `beats` carry: its header and payload bytes. False, with *error naming the
// problem, for a header tlp::unpack refuses, a memory request below 4 GiB in a 4DW header (PCIe
// r5.0 §2.2.4.1 requires 3DW there), or a beat count other than the header's DWs plus the
// payload's.
bool beats_to_tlp(const std::vector<uint32_t>& beats, tlp::Header& h, std::vector<uint8_t>& payload,
                  std::string* error);

}  // namespace dpusim::rtl
