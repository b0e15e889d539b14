// The ionic operations on the mesh: rocm-ernic's "IONC" wire header (ionic_datapath.c, carried
// in its TCP mesh's TCP_MSG_IONIC), packed little-endian, 60 bytes, then the payload:
//   magic 0x434E4F49 @0, op @4, atomic_cs @5, rsvd le16 @6, src_qp @8, dst_qp @12, req_id @16,
//   rkey @20, length @24, imm @28 (big-endian, passed through), status @32, remote_va le64 @36,
//   swap_add le64 @44, compare le64 @52.
// Ops: SEND 1, SEND_IMM 2, SEND_INV 3, WRITE 4, WRITE_IMM 5, READ_REQ 6, READ_RESP 7,
// ATOMIC_REQ 8, ATOMIC_RESP 9, ACK 10.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace dpusim::ionic {

inline constexpr uint32_t IONIC_WIRE_MAGIC = 0x434e4f49;
inline constexpr uint32_t IONIC_WIRE_HDR_BYTES = 60;
enum : uint8_t {
  IONIC_WIRE_SEND = 1,
  IONIC_WIRE_SEND_IMM = 2,
  IONIC_WIRE_SEND_INV = 3,
  IONIC_WIRE_WRITE = 4,
  IONIC_WIRE_WRITE_IMM = 5,
  IONIC_WIRE_READ_REQ = 6,
  IONIC_WIRE_READ_RESP = 7,
  IONIC_WIRE_ATOMIC_REQ = 8,
  IONIC_WIRE_ATOMIC_RESP = 9,
  IONIC_WIRE_ACK = 10,
};
const char* ionic_wire_op_name(uint8_t op);

// The largest payload one message carries (rocm-ernic's 16 MiB mesh message less the header).
inline constexpr uint32_t IONIC_WIRE_MAX_PAYLOAD = (16u << 20) - IONIC_WIRE_HDR_BYTES;
// At most this many requests await their answer; the 1025th fails at once.
inline constexpr size_t IONIC_MAX_PENDING = 1024;
// A request's answer must come within this, else RETRY_EXCEEDED (rocm-ernic's PENDING_MS).
inline constexpr uint64_t IONIC_PENDING_PS = 30000000000000ull;  // 30 s
// An inbound SEND waits this long for a posted receive, then RNR_RETRY_EXCEEDED.
inline constexpr uint64_t IONIC_RNR_RETRY_PS = 5000000000000ull;  // 5 s

struct WireHdr {
  uint8_t op = 0;
  uint8_t atomic_cs = 0;
  uint32_t src_qp = 0, dst_qp = 0, req_id = 0, rkey = 0, length = 0;
  uint32_t imm = 0;  // host order; carried big-endian
  uint32_t status = 0;
  uint64_t remote_va = 0, swap_add = 0, compare = 0;
};
std::vector<uint8_t> encode_wire(const WireHdr& h, const uint8_t* payload, size_t len);
// False (with `why`) for a message shorter than the header, with another magic, or longer
// than the header and the largest payload.
bool decode_wire(const uint8_t* msg, size_t len, WireHdr* h, std::string* why);

}  // namespace dpusim::ionic
