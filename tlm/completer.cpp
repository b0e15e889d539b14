#include "tlm/completer.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "tlm/bytes.h"

namespace dpusim::pcie {

using tlp::first_enabled_byte;
using tlp::last_enabled_byte;

uint32_t request_byte_count(const tlp::Header& req) {
  if (req.length_dw == 1) {
    if ((req.first_be & 0xf) == 0) return 1;
    return last_enabled_byte(req.first_be) - first_enabled_byte(req.first_be) + 1;
  }
  const uint32_t span = uint32_t(req.length_dw) * 4;
  const unsigned lead = first_enabled_byte(req.first_be);
  const unsigned trail = (req.last_be & 0xf) ? 3 - last_enabled_byte(req.last_be) : 0;
  return span - lead - trail;
}

uint64_t request_first_byte(const tlp::Header& req) { return req.address + first_enabled_byte(req.first_be); }

Tlp* make_completion(TlpPool& pool, const tlp::Header& req, uint16_t completer_id, tlp::CplStatus status,
                     const uint8_t* bytes, size_t n, uint16_t byte_count, uint8_t lower_address) {
  tlp::Header h;
  const bool with_data = bytes != nullptr && status == tlp::CplStatus::SC;
  const bool locked = req.type == tlp::Type::MRdLk;
  h.type = with_data ? (locked ? tlp::Type::CplDLk : tlp::Type::CplD) : (locked ? tlp::Type::CplLk : tlp::Type::Cpl);
  h.tc = req.tc;
  h.attr = req.attr;
  h.requester_id = req.requester_id;
  h.tag = req.tag;
  h.completer_id = completer_id;
  h.status = status;
  h.byte_count = byte_count;
  h.lower_address = uint8_t(lower_address & 0x7f);
  size_t payload = 0;
  if (with_data) {
    const size_t lead = lower_address & 3;
    h.length_dw = uint16_t((lead + n + 3) / 4);
    payload = size_t(h.length_dw) * 4;
  } else {
    h.length_dw = 1;
  }
  Tlp* t = pool.alloc(h, payload);
  if (with_data) std::memcpy(data(*t) + (lower_address & 3), bytes, n);
  return t;
}

Tlp* make_config_completion(TlpPool& pool, const tlp::Header& req, uint16_t completer_id,
                            tlp::CplStatus status, uint32_t value) {
  const bool read = req.type == tlp::Type::CfgRd0 || req.type == tlp::Type::CfgRd1;
  uint8_t bytes[4] = {uint8_t(value), uint8_t(value >> 8), uint8_t(value >> 16), uint8_t(value >> 24)};
  // Config completions carry Byte Count 4 and Lower Address 0 (PCIe §2.2.9).
  return make_completion(pool, req, completer_id, status, read ? bytes : nullptr, read ? 4 : 0, 4, 0);
}

Tlp* make_error_completion(TlpPool& pool, const tlp::Header& req, uint16_t completer_id, tlp::CplStatus status) {
  if (tlp::is_config(req.type)) return make_config_completion(pool, req, completer_id, status, 0);
  return make_completion(pool, req, completer_id, status, nullptr, 0, uint16_t(request_byte_count(req)),
                         uint8_t(request_first_byte(req) & 0x7f));
}

void complete_memory_read(TlpPool& pool, const tlp::Header& req, uint16_t completer_id, const uint8_t* bytes,
                          unsigned max_payload, unsigned rcb, const std::function<void(Tlp*)>& send) {
  const uint64_t first = request_first_byte(req);
  const uint64_t end = first + request_byte_count(req);
  for_each_completion_chunk(first, end, max_payload, rcb, [&](uint64_t cur, uint64_t chunk_end) {
    send(make_completion(pool, req, completer_id, tlp::CplStatus::SC, bytes + (cur - first), size_t(chunk_end - cur),
                         uint16_t(end - cur), uint8_t(cur & 0x7f)));
  });
}

void complete_register_read(TlpPool& pool, const tlp::Header& req, uint16_t completer_id, unsigned max_payload,
                            unsigned rcb, const std::function<uint32_t(unsigned k, uint8_t be)>& read_dw,
                            const std::function<void(Tlp*)>& send) {
  const unsigned len = req.length_dw;
  std::vector<uint8_t> dws(4 * size_t(len), 0);
  for (unsigned k = 0; k < len; ++k) {
    const uint8_t be = k == 0 ? req.first_be : k + 1 == len ? req.last_be : 0xf;
    bytes::put_le32(&dws[4 * k], read_dw(k, be) & bytes::byte_enable_mask(be));
  }
  complete_memory_read(pool, req, completer_id, dws.data() + first_enabled_byte(req.first_be), max_payload, rcb, send);
}

}  // namespace dpusim::pcie
