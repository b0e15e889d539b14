// Building completions (PCIe r5.0 §2.2.9, §2.3.1.1): config completions, and read completions
// split so that each carries at most Max_Payload_Size and every one but the last ends on a Read
// Completion Boundary.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>

#include "tlm/tlp_payload.h"

namespace dpusim::pcie {

// Byte count of a memory read request as its byte enables define it (PCIe Table 2-37): from
// the first enabled byte to the last, 1 for a zero-length read.
uint32_t request_byte_count(const tlp::Header& req);
// Address of the first byte a memory request touches.
uint64_t request_first_byte(const tlp::Header& req);

// A completion for `req` (status only, or with `n` data bytes placed at lower_address & 3).
Tlp* make_completion(TlpPool& pool, const tlp::Header& req, uint16_t completer_id, tlp::CplStatus status,
                     const uint8_t* bytes, size_t n, uint16_t byte_count, uint8_t lower_address);

// The completion of a config request: CplD with the DW for a successful read, Cpl otherwise.
Tlp* make_config_completion(TlpPool& pool, const tlp::Header& req, uint16_t completer_id,
                            tlp::CplStatus status, uint32_t value);

// The completion of a non-posted request that failed with `status` (UR, CA...): a config Cpl,
// or a memory Cpl carrying the request's byte count and lower address (PCIe §2.2.9).
Tlp* make_error_completion(TlpPool& pool, const tlp::Header& req, uint16_t completer_id, tlp::CplStatus status);

// The completions of a read of [first, end): chunks no larger than `max_payload` that, when split,
// end on Read Completion Boundaries (PCIe §2.3.1.1), calling fn(chunk_start, chunk_end) in order.
template <typename Fn>
void for_each_completion_chunk(uint64_t first, uint64_t end, unsigned max_payload, unsigned rcb, Fn fn) {
  uint64_t cur = first;
  while (cur < end) {
    const uint64_t dw_start = cur & ~uint64_t(3);
    const uint64_t limit = dw_start + max_payload;
    uint64_t chunk_end = end;
    if (limit < end) {
      chunk_end = limit & ~uint64_t(rcb - 1);
      if (chunk_end <= cur) chunk_end = std::min(end, (cur & ~uint64_t(rcb - 1)) + rcb);
    }
    fn(cur, chunk_end);
    cur = chunk_end;
  }
}

// Completes a memory read with `bytes` (request_byte_count(req) of them, starting at the first
// enabled byte), calling `send` once per completion TLP, in order.
void complete_memory_read(TlpPool& pool, const tlp::Header& req, uint16_t completer_id, const uint8_t* bytes,
                          unsigned max_payload, unsigned rcb, const std::function<void(Tlp*)>& send);

// Completes a memory read of a block of DW registers (an MMIO BAR a device serves register by
// register): `read_dw(k, be)` gives DW k of the request (k < length_dw, its byte enables `be`:
// First DW BE, Last DW BE, 0xf between); each DW is masked with its enabled bytes, laid out
// little-endian, and the completions carry them from the first enabled byte (PCIe §2.2.5).
void complete_register_read(TlpPool& pool, const tlp::Header& req, uint16_t completer_id, unsigned max_payload,
                            unsigned rcb, const std::function<uint32_t(unsigned k, uint8_t be)>& read_dw,
                            const std::function<void(Tlp*)>& send);

}  // namespace dpusim::pcie
