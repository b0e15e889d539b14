// Transaction Layer Packet header: the fields of PCIe Base Specification r5.0 §2.2 and their
// packing to and from the wire layout (3 or 4 big-endian DWs), which RTL co-simulation needs.
//
// Scope: memory, I/O, configuration, message and completion TLPs with 8-bit tags and no TLP
// prefixes. Packing is strict: a header that cannot be represented (a length of 0 or over 1024
// DW, a config register past 0xfff, a 64-bit address in a 3DW format) is refused with a message.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "tlm/bytes.h"

namespace dpusim::tlp {

enum class Type : uint8_t {
  MRd, MRdLk, MWr, IORd, IOWr, CfgRd0, CfgWr0, CfgRd1, CfgWr1, Msg, MsgD, Cpl, CplD, CplLk, CplDLk,
};

// Completion status (PCIe §2.2.9). CRS is named RRS from r6.0.
enum class CplStatus : uint8_t { SC = 0, UR = 1, CRS = 2, CA = 4 };

const char* type_name(Type t);
const char* status_name(CplStatus s);

bool is_memory(Type t);
bool is_config(Type t);
bool is_completion(Type t);
bool is_message(Type t);
// Writes and messages are posted; reads, I/O and config requests need a completion.
bool is_posted(Type t);
bool is_non_posted(Type t);
bool has_data(Type t);

// A Bus/Device/Function routing ID (PCIe §2.2.6.2): bus[15:8] device[7:3] function[2:0].
struct Bdf {
  uint8_t bus = 0, dev = 0, fn = 0;
  constexpr uint16_t id() const { return uint16_t(bus << 8 | (dev & 0x1f) << 3 | (fn & 7)); }
  static constexpr Bdf from_id(uint16_t id) {
    return Bdf{uint8_t(id >> 8), uint8_t((id >> 3) & 0x1f), uint8_t(id & 7)};
  }
  std::string str() const;  // "bb:dd.f" as lspci prints it
  friend constexpr bool operator==(Bdf a, Bdf b) { return a.id() == b.id(); }
  friend constexpr bool operator!=(Bdf a, Bdf b) { return a.id() != b.id(); }
};
std::string bdf_str(uint16_t id);

// Byte enables (PCIe §2.2.5), from tlm/bytes.h.
using bytes::byte_enable_mask;
using bytes::first_enabled_byte;
using bytes::last_enabled_byte;

struct Header {
  Type type = Type::MRd;
  uint8_t tc = 0;    // traffic class [2:0]
  uint8_t attr = 0;  // [2] ID-based ordering, [1] relaxed ordering, [0] no snoop
  uint8_t at = 0;    // address type [1:0]
  bool th = false, td = false, ep = false;
  uint16_t length_dw = 1;  // 1..1024 for TLPs that carry or request data

  // Requests.
  uint16_t requester_id = 0;
  uint8_t tag = 0;
  uint8_t first_be = 0xf, last_be = 0;
  uint64_t address = 0;     // memory and I/O requests; bits [1:0] are zero
  uint16_t target_id = 0;   // config requests (and ID-routed messages)
  uint16_t register_offset = 0;  // config requests: byte offset, DW aligned, 0..0xffc

  // Completions.
  uint16_t completer_id = 0;
  CplStatus status = CplStatus::SC;
  bool bcm = false;
  uint16_t byte_count = 0;      // remaining bytes; 0 encodes 4096
  uint8_t lower_address = 0;

  // Messages.
  uint8_t message_code = 0;
  uint8_t message_routing = 0;  // r[2:0] of Type 1_0rrr

  // Memory requests above 4 GiB use the 4DW format (PCIe §2.2.4.1); messages always use 4DW.
  bool four_dw() const;
  size_t header_bytes() const { return four_dw() ? 16 : 12; }
  // Bytes of payload the TLP carries on the wire (0 for TLPs without data).
  size_t payload_bytes() const { return has_data(type) ? size_t(length_dw) * 4 : 0; }
};

constexpr size_t kMaxHeaderBytes = 16;

// Packs `h` to the wire layout. Returns the header size (12 or 16) or 0 with `error` set.
size_t pack(const Header& h, std::array<uint8_t, kMaxHeaderBytes>& out, std::string* error);
// Unpacks a wire header. Returns the bytes consumed or 0 with `error` naming the problem.
size_t unpack(const uint8_t* data, size_t size, Header& h, std::string* error);

}  // namespace dpusim::tlp
