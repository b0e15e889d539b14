#include "ionic/p4ctl_wire.h"

#include <cstdio>
#include <tuple>

#include "dpusim/p4/limits.h"
#include "ionic/le_bytes.h"
#include "tlm/hex.h"

namespace dpusim::ionic {

const char* p4_scope_name(P4Scope scope) {
  switch (scope) {
    case P4Scope::kNone: return "none";
    case P4Scope::kRead: return "read";
    case P4Scope::kWrite: return "write";
    case P4Scope::kLoad: return "load";
  }
  return "none";
}

bool p4_scope_from_name(std::string_view name, P4Scope* scope) {
  for (P4Scope s : {P4Scope::kNone, P4Scope::kRead, P4Scope::kWrite, P4Scope::kLoad}) {
    if (name == p4_scope_name(s)) {
      *scope = s;
      return true;
    }
  }
  return false;
}

const std::vector<P4CtlOperation>& p4ctl_operations() {
  static const std::vector<P4CtlOperation> ops = {
      {P4CTL_OP_READ_COUNTERS, "read_counters", P4Scope::kRead},
      {P4CTL_OP_TABLE_UPDATE, "table_update", P4Scope::kWrite},
      {P4CTL_OP_PROGRAM_CHUNK, "program_chunk", P4Scope::kLoad},
      {P4CTL_OP_PROGRAM_COMMIT, "program_commit", P4Scope::kLoad},
  };
  return ops;
}

const P4CtlOperation* find_p4ctl_operation(uint32_t ep, uint32_t op) {
  if (ep != P4CTL_EP_ENGINE) return nullptr;
  for (const P4CtlOperation& o : p4ctl_operations())
    if (o.id == op) return &o;
  return nullptr;
}

using pcie::hex;

bool parse_p4_ident(const uint8_t* cmd, P4IdentCmd* out, std::string* error) {
  out->version = cmd[2];
  out->len = get_le32(cmd + 4);
  out->ident_pa = get_le64(cmd + 8);
  if (out->len != 0 && out->ident_pa == 0) {
    *error = "ident_pa is 0 for a buffer of " + std::to_string(out->len) + " bytes";
    return false;
  }
  return true;
}

bool parse_p4_query(const uint8_t* cmd, P4QueryCmd* out, std::string* error) {
  out->entity = cmd[1];
  out->version = cmd[2];
  out->buf_len = get_le32(cmd + 4);
  out->buf_pa = get_le64(cmd + 8);
  out->ep = get_le32(cmd + 16);
  if (out->entity != P4CTL_QUERY_ENDPOINTS && out->entity != P4CTL_QUERY_OPERATIONS) {
    *error = "query entity " + std::to_string(out->entity) + " is not 0 (endpoints) or 1 (operations)";
    return false;
  }
  if (out->buf_len < P4CTL_LIST_HEADER_BYTES) {
    *error = "query buffer of " + std::to_string(out->buf_len) + " bytes is smaller than the " +
             std::to_string(P4CTL_LIST_HEADER_BYTES) + "-byte list header";
    return false;
  }
  if (out->buf_len > P4CTL_MAX_RESP_BYTES) {
    *error = "query buffer of " + std::to_string(out->buf_len) + " bytes exceeds the limit of " +
             std::to_string(P4CTL_MAX_RESP_BYTES);
    return false;
  }
  if (out->buf_pa == 0) {
    *error = "query_data_buf_pa is 0";
    return false;
  }
  return true;
}

bool parse_p4_rpc(const uint8_t* cmd, P4RpcCmd* out, std::string* error) {
  out->claim = cmd[1];
  out->flags = get_le16(cmd + 2);
  out->ep = get_le32(cmd + 4);
  out->op = get_le32(cmd + 8);
  out->req_pa = get_le64(cmd + 28);
  out->req_sz = get_le32(cmd + 36);
  out->req_sg_elems = cmd[40];
  out->resp_pa = get_le64(cmd + 44);
  out->resp_sz = get_le32(cmd + 52);
  out->resp_sg_elems = cmd[56];
  if (out->claim > uint8_t(P4Scope::kLoad)) {
    *error = "claimed scope " + std::to_string(out->claim) + " is not 0..3 (none, read, write, load)";
    return false;
  }
  if (out->flags & ~(P4CTL_RPC_IND_REQ | P4CTL_RPC_IND_RESP)) {
    *error = "flags " + hex(out->flags) + " has bits other than IND_REQ (0x1) and IND_RESP (0x2)";
    return false;
  }
  if (out->req_sg_elems != 0 || out->resp_sg_elems != 0) {
    *error = "scatter-gather lists are not supported (req_sg_elems " + std::to_string(out->req_sg_elems) +
             ", resp_sg_elems " + std::to_string(out->resp_sg_elems) + ")";
    return false;
  }
  for (const auto& [sz, pa, flag, what, limit] :
       {std::tuple{out->req_sz, out->req_pa, P4CTL_RPC_IND_REQ, "req", P4CTL_MAX_REQ_BYTES},
        std::tuple{out->resp_sz, out->resp_pa, P4CTL_RPC_IND_RESP, "resp", P4CTL_MAX_RESP_BYTES}}) {
    if (sz == 0) continue;
    if (!(out->flags & flag)) {
      *error = std::string(what) + "_sz " + std::to_string(sz) + " without the indirect flag: inline data is not supported";
      return false;
    }
    if (sz > limit) {
      *error = std::string(what) + "_sz " + std::to_string(sz) + " exceeds the limit of " + std::to_string(limit);
      return false;
    }
    if (pa == 0) {
      *error = std::string(what) + "_pa is 0 for " + std::to_string(sz) + " bytes";
      return false;
    }
  }
  return true;
}

namespace {

// Names and values are echoed into the log: printable ASCII only.
bool printable(const std::string& s, const std::string& what, std::string* error) {
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c > 0x7e) {
      char b[8];
      std::snprintf(b, sizeof b, "0x%02x", c);
      *error = what + " holds byte " + b + " at offset " + std::to_string(i) + ": names and values must be printable ASCII";
      return false;
    }
  }
  return true;
}

}  // namespace

bool parse_update_request(std::string_view text, std::vector<p4::TableUpdate>* out, std::string* error) {
  out->clear();
  if (!p4::parse_updates(text, out, error)) return false;
  for (size_t i = 0; i < out->size(); ++i) {
    const p4::TableUpdate& u = (*out)[i];
    const std::string at = "update " + std::to_string(i) + ": ";
    if (!printable(u.table, at + "table name", error) || !printable(u.action, at + "action name", error)) return false;
    for (const p4::MatchField& m : u.match) {
      if (!printable(m.field, at + "match field name", error) || !printable(m.value, at + "match value", error) ||
          (m.mask && !printable(*m.mask, at + "match mask", error)))
        return false;
    }
    for (const auto& [name, value] : u.params)
      if (!printable(name, at + "parameter name", error) || !printable(value, at + "parameter value", error)) return false;
  }
  return true;
}

bool parse_program_chunk(std::string_view request, P4Chunk* out, std::string* error) {
  if (request.size() < 8) {
    *error = "program chunk request of " + std::to_string(request.size()) + " bytes lacks its 8-byte offset and total";
    return false;
  }
  const auto* p = reinterpret_cast<const uint8_t*>(request.data());
  out->offset = get_le32(p);
  out->total = get_le32(p + 4);
  out->bytes = request.substr(8);
  if (out->total == 0 || out->total > p4::P4_MAX_DOCUMENT_BYTES) {
    *error = "program total " + std::to_string(out->total) + " bytes outside 1.." + std::to_string(p4::P4_MAX_DOCUMENT_BYTES);
    return false;
  }
  if (out->offset > out->total || out->bytes.size() > out->total - out->offset) {
    *error = "chunk of " + std::to_string(out->bytes.size()) + " bytes at offset " + std::to_string(out->offset) +
             " runs past the program's total of " + std::to_string(out->total);
    return false;
  }
  return true;
}

bool parse_program_commit(std::string_view request, uint32_t* total, std::string* error) {
  if (request.size() != 4) {
    *error = "program commit request of " + std::to_string(request.size()) + " bytes is not its 4-byte total";
    return false;
  }
  *total = get_le32(reinterpret_cast<const uint8_t*>(request.data()));
  return true;
}

std::vector<uint8_t> encode_list(const std::vector<std::vector<uint8_t>>& entries, uint32_t capacity,
                                 uint32_t* written) {
  std::vector<uint8_t> out(P4CTL_LIST_HEADER_BYTES, 0);
  uint32_t n = 0;
  for (const auto& e : entries) {
    if (out.size() + e.size() > capacity) break;
    out.insert(out.end(), e.begin(), e.end());
    ++n;
  }
  out[0] = P4CTL_VERSION;
  put_le32(&out[4], n);
  put_le32(&out[8], uint32_t(entries.size()));
  *written = n;
  return out;
}

}  // namespace dpusim::ionic
