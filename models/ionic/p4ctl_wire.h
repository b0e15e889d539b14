// The wire format of the guest's P4 control surface: device commands 70 (IDENTIFY), 71 (RPC)
// and 72 (QUERY), their completions, the buffers they name by guest address, and the request
// payloads of each RPC operation. Parsers only: every byte here comes from the guest, so each
// parser refuses what it cannot take with a reason, and nothing is truncated or clamped.
//
// The shape is upstream's pds_fwctl (include/linux/pds/pds_adminq.h: struct pds_fwctl_ident_cmd,
// pds_fwctl_query_cmd, pds_fwctl_rpc_cmd and their completions; include/uapi/fwctl/fwctl.h for
// the scopes), as the P4 engine guide describes ("Shaped like pds_fwctl, not pds_fwctl"): the
// commands travel on their own on the ionic devcmd window and admin queue rather than wrapped
// in a pds_core client command, and:
//  - the RPC's upstream reserved byte 1 carries the caller's claimed scope;
//  - a query reports both the entries that fitted the buffer and the entries that exist
//    (upstream reports one count, which its driver walks unchecked);
//  - only indirect request and response buffers are taken (no inline data, no SG lists).
//
// Layouts (little-endian, offsets in bytes):
//   IDENTIFY cmd: opcode @0, version @2, le32 len @4, le64 ident_pa @8.
//     ident (P4CTL_IDENT_BYTES): le64 features @0, version @8, le32 max_req_sz @12,
//     le32 max_resp_sz @16, max_req_sg_elems @20 (0), max_resp_sg_elems @21 (0),
//     granted scope @22, le32 endpoints @24.
//   QUERY cmd: opcode @0, entity @1 (0 endpoints, 1 operations of an endpoint), version @2,
//     le32 buf_len @4, le64 buf_pa @8, le32 ep @16. comp: version @4.
//   RPC cmd: opcode @0, claimed scope @1, le16 flags @2 (IND_REQ 1, IND_RESP 2), le32 ep @4,
//     le32 op @8, inline_req0[16] @12 (unused), le64 req_pa @28, le32 req_sz @36,
//     req_sg_elems @40, le64 resp_pa @44, le32 resp_sz @52, resp_sg_elems @56.
//     comp: status @0, le16 comp_index @2, le32 err @4, le32 resp_sz @8 (the response's
//     whole length; min(that, the buffer) bytes are written), color @15.
//   A list (query data, counters): version @0, le32 num_entries @4 (written), le32
//   total_entries @8, entries from @16. Endpoint entry: le32 id. Operation entry: le32 id,
//   scope @4. Counter entry: char name[24] (NUL-padded), le64 value @24.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "dpusim/p4/update.h"

namespace dpusim::ionic {

// The operator's grant and an operation's requirement, ordered: a wider scope includes the
// narrower ones (fwctl's FWCTL_RPC_CONFIGURATION < DEBUG_READ_ONLY < DEBUG_WRITE < ..., renamed
// to what each allows here).
enum class P4Scope : uint8_t { kNone = 0, kRead = 1, kWrite = 2, kLoad = 3 };
const char* p4_scope_name(P4Scope scope);                       // "none", "read", ...
bool p4_scope_from_name(std::string_view name, P4Scope* scope);  // false for anything else

inline constexpr uint8_t P4CTL_VERSION = 1;
inline constexpr uint32_t P4CTL_IDENT_BYTES = 32;
inline constexpr uint32_t P4CTL_LIST_HEADER_BYTES = 16;
inline constexpr uint32_t P4CTL_ENDPOINT_ENTRY_BYTES = 4;
inline constexpr uint32_t P4CTL_OPERATION_ENTRY_BYTES = 8;
inline constexpr uint32_t P4CTL_COUNTER_NAME_BYTES = 24;
inline constexpr uint32_t P4CTL_COUNTER_ENTRY_BYTES = 32;
// The largest request and response buffers an RPC may name (IDENTIFY reports them).
inline constexpr uint32_t P4CTL_MAX_REQ_BYTES = 64 * 1024;
inline constexpr uint32_t P4CTL_MAX_RESP_BYTES = 64 * 1024;
inline constexpr uint16_t P4CTL_RPC_IND_REQ = 0x1;
inline constexpr uint16_t P4CTL_RPC_IND_RESP = 0x2;

// enum pds_fwctl_query_entity, as far as this surface has entities.
inline constexpr uint8_t P4CTL_QUERY_ENDPOINTS = 0;
inline constexpr uint8_t P4CTL_QUERY_OPERATIONS = 1;

// The one endpoint, the engine, and its operations.
inline constexpr uint32_t P4CTL_EP_ENGINE = 0;
enum P4CtlOp : uint32_t {
  P4CTL_OP_READ_COUNTERS = 1,   // read: the engine's counters as a list
  P4CTL_OP_TABLE_UPDATE = 2,    // write: a JSON list of update records
  P4CTL_OP_PROGRAM_CHUNK = 3,   // load: le32 offset, le32 total, then bytes of the program
  P4CTL_OP_PROGRAM_COMMIT = 4,  // load: le32 total; replaces the running program
};
struct P4CtlOperation {
  uint32_t id;
  const char* name;
  P4Scope scope;
};
// Every operation of the engine endpoint, in id order.
const std::vector<P4CtlOperation>& p4ctl_operations();
const P4CtlOperation* find_p4ctl_operation(uint32_t ep, uint32_t op);

struct P4IdentCmd {
  uint8_t version = 0;
  uint32_t len = 0;
  uint64_t ident_pa = 0;
};
struct P4QueryCmd {
  uint8_t entity = 0;
  uint8_t version = 0;
  uint32_t buf_len = 0;
  uint64_t buf_pa = 0;
  uint32_t ep = 0;
};
struct P4RpcCmd {
  uint8_t claim = 0;  // the caller's claimed scope, as sent
  uint16_t flags = 0;
  uint32_t ep = 0, op = 0;
  uint64_t req_pa = 0;
  uint32_t req_sz = 0;
  uint8_t req_sg_elems = 0;
  uint64_t resp_pa = 0;
  uint32_t resp_sz = 0;
  uint8_t resp_sg_elems = 0;
};

// Each returns false with *error naming the field, its value and the rule it breaks.
bool parse_p4_ident(const uint8_t* cmd, P4IdentCmd* out, std::string* error);
bool parse_p4_query(const uint8_t* cmd, P4QueryCmd* out, std::string* error);
bool parse_p4_rpc(const uint8_t* cmd, P4RpcCmd* out, std::string* error);

// TABLE_UPDATE's request: a JSON list of update records as `./dpusim p4 run --entries` takes
// (p4/engine update.h). Every name and value must be printable ASCII (0x20..0x7e); one that is
// not is refused here, before the engine sees it.
bool parse_update_request(std::string_view text, std::vector<p4::TableUpdate>* out, std::string* error);

struct P4Chunk {
  uint32_t offset = 0;
  uint32_t total = 0;
  std::string_view bytes;
};
// PROGRAM_CHUNK's request: le32 offset, le32 total (1..P4_MAX_DOCUMENT_BYTES), the bytes;
// offset + bytes must not pass total.
bool parse_program_chunk(std::string_view request, P4Chunk* out, std::string* error);
// PROGRAM_COMMIT's request: le32 total.
bool parse_program_commit(std::string_view request, uint32_t* total, std::string* error);

// A list response: the header, then as many of `entries` (each `entry_bytes`) as fit in
// `capacity` bytes. Returns the bytes to write (at most capacity) and sets *written.
std::vector<uint8_t> encode_list(const std::vector<std::vector<uint8_t>>& entries, uint32_t capacity,
                                 uint32_t* written);

}  // namespace dpusim::ionic
