#include "tlm/tlp.h"

#include <cstdio>

namespace dpusim::tlp {
namespace {

// Fmt[2:0] (PCIe §2.2.1): bit0 = 4DW header, bit1 = with data.
constexpr uint8_t kFmt4Dw = 0x1;
constexpr uint8_t kFmtData = 0x2;

struct TypeCode {
  Type type;
  uint8_t type_field;  // Type[4:0]; messages carry routing in [2:0]
  bool data;
};

constexpr TypeCode kCodes[] = {
    {Type::MRd, 0x00, false},    {Type::MRdLk, 0x01, false}, {Type::MWr, 0x00, true},
    {Type::IORd, 0x02, false},   {Type::IOWr, 0x02, true},   {Type::CfgRd0, 0x04, false},
    {Type::CfgWr0, 0x04, true},  {Type::CfgRd1, 0x05, false}, {Type::CfgWr1, 0x05, true},
    {Type::Msg, 0x10, false},    {Type::MsgD, 0x10, true},   {Type::Cpl, 0x0a, false},
    {Type::CplD, 0x0a, true},    {Type::CplLk, 0x0b, false}, {Type::CplDLk, 0x0b, true},
};

const TypeCode& code_of(Type t) { return kCodes[static_cast<size_t>(t)]; }

void put32(uint8_t* p, uint32_t v) {
  p[0] = uint8_t(v >> 24);
  p[1] = uint8_t(v >> 16);
  p[2] = uint8_t(v >> 8);
  p[3] = uint8_t(v);
}
uint32_t get32(const uint8_t* p) {
  return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3];
}

size_t fail(std::string* error, const std::string& message) {
  if (error) *error = message;
  return 0;
}

}  // namespace

const char* type_name(Type t) {
  static const char* const names[] = {"MRd",  "MRdLk",  "MWr",    "IORd", "IOWr",
                                      "CfgRd0", "CfgWr0", "CfgRd1", "CfgWr1", "Msg",
                                      "MsgD", "Cpl",    "CplD",   "CplLk", "CplDLk"};
  return names[static_cast<size_t>(t)];
}

const char* status_name(CplStatus s) {
  switch (s) {
    case CplStatus::SC: return "SC";
    case CplStatus::UR: return "UR";
    case CplStatus::CRS: return "CRS";
    case CplStatus::CA: return "CA";
  }
  return "reserved";
}

bool is_memory(Type t) { return t == Type::MRd || t == Type::MRdLk || t == Type::MWr; }
bool is_config(Type t) {
  return t == Type::CfgRd0 || t == Type::CfgWr0 || t == Type::CfgRd1 || t == Type::CfgWr1;
}
bool is_completion(Type t) {
  return t == Type::Cpl || t == Type::CplD || t == Type::CplLk || t == Type::CplDLk;
}
bool is_message(Type t) { return t == Type::Msg || t == Type::MsgD; }
bool is_posted(Type t) { return t == Type::MWr || is_message(t); }
bool is_non_posted(Type t) { return !is_posted(t) && !is_completion(t); }
bool has_data(Type t) { return code_of(t).data; }

std::string Bdf::str() const {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%02x:%02x.%x", bus, dev & 0x1f, fn & 7);
  return buf;
}

std::string bdf_str(uint16_t id) { return Bdf::from_id(id).str(); }

bool Header::four_dw() const {
  if (is_message(type)) return true;
  if (is_memory(type)) return (address >> 32) != 0;
  return false;
}

size_t pack(const Header& h, std::array<uint8_t, kMaxHeaderBytes>& out, std::string* error) {
  const TypeCode& code = code_of(h.type);
  if (h.length_dw == 0 || h.length_dw > 1024)
    return fail(error, "length " + std::to_string(h.length_dw) + " DW outside 1..1024");
  if (h.tc > 7 || h.attr > 7 || h.at > 3)
    return fail(error, "tc, attr or at field wider than its bits");
  const bool four = h.four_dw();
  uint8_t fmt = uint8_t((four ? kFmt4Dw : 0) | (code.data ? kFmtData : 0));
  uint8_t type_field = code.type_field;
  if (is_message(h.type)) {
    if (h.message_routing > 7) return fail(error, "message routing wider than 3 bits");
    type_field = uint8_t(0x10 | h.message_routing);
  }
  const uint32_t dw0 = uint32_t(fmt) << 29 | uint32_t(type_field) << 24 | uint32_t(h.tc) << 20 |
                       uint32_t((h.attr >> 2) & 1) << 18 | uint32_t(h.th) << 16 |
                       uint32_t(h.td) << 15 | uint32_t(h.ep) << 14 | uint32_t(h.attr & 3) << 12 |
                       uint32_t(h.at) << 10 | uint32_t(h.length_dw & 0x3ff);
  put32(&out[0], dw0);
  if (is_completion(h.type)) {
    if (h.byte_count > 4096) return fail(error, "byte count over 4096");
    if (h.lower_address > 0x7f) return fail(error, "lower address wider than 7 bits");
    put32(&out[4], uint32_t(h.completer_id) << 16 | uint32_t(h.status) << 13 |
                       uint32_t(h.bcm) << 12 | uint32_t(h.byte_count & 0xfff));
    put32(&out[8], uint32_t(h.requester_id) << 16 | uint32_t(h.tag) << 8 | h.lower_address);
    return 12;
  }
  const uint8_t be = uint8_t((h.last_be & 0xf) << 4 | (h.first_be & 0xf));
  const uint32_t dw1_req = uint32_t(h.requester_id) << 16 | uint32_t(h.tag) << 8;
  if (is_message(h.type)) {
    put32(&out[4], dw1_req | h.message_code);
    put32(&out[8], uint32_t(h.address >> 32));
    put32(&out[12], uint32_t(h.address));
    if (h.message_routing == 2) put32(&out[8], uint32_t(h.target_id) << 16);
    return 16;
  }
  put32(&out[4], dw1_req | be);
  if (is_config(h.type)) {
    if (h.register_offset > 0xffc || (h.register_offset & 3))
      return fail(error, "config register offset " + std::to_string(h.register_offset) +
                             " not DW aligned in 0..0xffc");
    if (h.length_dw != 1) return fail(error, "config request length must be 1 DW");
    put32(&out[8], uint32_t(h.target_id) << 16 | uint32_t(h.register_offset & 0xf00) |
                       uint32_t(h.register_offset & 0xfc));
    return 12;
  }
  if (h.address & 3) return fail(error, "address bits [1:0] must be zero");
  if (four) {
    put32(&out[8], uint32_t(h.address >> 32));
    put32(&out[12], uint32_t(h.address));
    return 16;
  }
  put32(&out[8], uint32_t(h.address));
  return 12;
}

size_t unpack(const uint8_t* data, size_t size, Header& h, std::string* error) {
  if (size < 12) return fail(error, "TLP header shorter than 3 DW (" + std::to_string(size) + " bytes)");
  const uint32_t dw0 = get32(data);
  const uint8_t fmt = uint8_t(dw0 >> 29);
  const uint8_t type_field = uint8_t((dw0 >> 24) & 0x1f);
  if (fmt & 0x4) return fail(error, "TLP prefixes (Fmt 100) are not supported");
  const bool four = fmt & kFmt4Dw;
  const bool with_data = fmt & kFmtData;
  const size_t hdr_bytes = four ? 16 : 12;
  if (size < hdr_bytes) return fail(error, "4DW TLP header truncated");
  Header out;
  bool found = false;
  if ((type_field & 0x18) == 0x10) {
    out.type = with_data ? Type::MsgD : Type::Msg;
    out.message_routing = type_field & 7;
    found = true;
  } else {
    for (const TypeCode& c : kCodes) {
      if (c.type_field == type_field && c.data == with_data && !is_message(c.type)) {
        out.type = c.type;
        found = true;
        break;
      }
    }
  }
  if (!found) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "unknown Fmt/Type %u/0x%02x", fmt, type_field);
    return fail(error, buf);
  }
  if (is_message(out.type) && !four) return fail(error, "message TLP must use a 4DW header");
  if (!is_memory(out.type) && !is_message(out.type) && four)
    return fail(error, std::string(type_name(out.type)) + " must use a 3DW header");
  out.tc = uint8_t((dw0 >> 20) & 7);
  out.attr = uint8_t(((dw0 >> 18) & 1) << 2 | ((dw0 >> 12) & 3));
  out.th = (dw0 >> 16) & 1;
  out.td = (dw0 >> 15) & 1;
  out.ep = (dw0 >> 14) & 1;
  out.at = uint8_t((dw0 >> 10) & 3);
  const uint16_t len = uint16_t(dw0 & 0x3ff);
  out.length_dw = len == 0 ? 1024 : len;
  const uint32_t dw1 = get32(data + 4);
  const uint32_t dw2 = get32(data + 8);
  if (is_completion(out.type)) {
    out.completer_id = uint16_t(dw1 >> 16);
    const uint8_t status = uint8_t((dw1 >> 13) & 7);
    if (status != 0 && status != 1 && status != 2 && status != 4)
      return fail(error, "reserved completion status " + std::to_string(status));
    out.status = static_cast<CplStatus>(status);
    out.bcm = (dw1 >> 12) & 1;
    const uint16_t bc = uint16_t(dw1 & 0xfff);
    out.byte_count = bc == 0 ? 4096 : bc;
    out.requester_id = uint16_t(dw2 >> 16);
    out.tag = uint8_t(dw2 >> 8);
    out.lower_address = uint8_t(dw2 & 0x7f);
    h = out;
    return hdr_bytes;
  }
  out.requester_id = uint16_t(dw1 >> 16);
  out.tag = uint8_t(dw1 >> 8);
  if (is_message(out.type)) {
    out.message_code = uint8_t(dw1);
    out.address = uint64_t(dw2) << 32 | get32(data + 12);
    if (out.message_routing == 2) out.target_id = uint16_t(dw2 >> 16);
    h = out;
    return hdr_bytes;
  }
  out.first_be = uint8_t(dw1 & 0xf);
  out.last_be = uint8_t((dw1 >> 4) & 0xf);
  if (is_config(out.type)) {
    out.target_id = uint16_t(dw2 >> 16);
    out.register_offset = uint16_t((dw2 & 0xf00) | (dw2 & 0xfc));
    if (out.length_dw != 1) return fail(error, "config request length must be 1 DW");
    h = out;
    return hdr_bytes;
  }
  if (four) {
    out.address = uint64_t(dw2) << 32 | (get32(data + 12) & ~3u);
  } else {
    out.address = dw2 & ~3u;
  }
  h = out;
  return hdr_bytes;
}

}  // namespace dpusim::tlp
