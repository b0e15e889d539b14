// How a job's elements map onto the fp8 unit's lanes (hdl/fp8_unit.sv) and back.
//
// Memory holds elements as docs/formats.md lays them out: multi-byte elements little-endian,
// fp4_e2m1 two a byte with element i in the low nibble when i is even. The unit takes one
// element a lane, LSB-aligned in 32 bits; beat k carries elements k*kLanes .. k*kLanes+kLanes-1,
// and a final partial beat pads its unused lanes with zero codes, whose results are dropped.
#pragma once

#include <cstddef>
#include <cstdint>

#include "dpusim/p4/rdma/fp8_backend.h"

namespace dpusim::rtl {

// Element i of a buffer of format f, as a code.
std::uint32_t load_element(formats::Format f, const std::uint8_t* data, std::size_t i);
// Stores code as element i. fp4_e2m1: an even i sets the byte to the code (high nibble clear),
// an odd i fills the high nibble, so elements are stored in order.
void store_element(formats::Format f, std::uint8_t* data, std::size_t i, std::uint32_t code);

// The status formats::apply or formats::convert would return for the job's formats and lengths
// (an element count, the destination's length, overlapping buffers), without computing it.
formats::Status check_job(const p4::rdma::Fp8Job& job);

// Elements the job streams: the operands' element count (check_job must have passed).
std::size_t job_elements(const p4::rdma::Fp8Job& job);

}  // namespace dpusim::rtl
