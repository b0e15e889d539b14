// A TLP in flight: a tlm_generic_payload carrying a TlpExtension (the PCIe header fields) and
// its payload bytes in the generic payload's data array.
//
// Payloads come from a per-platform pool (the TLM memory manager), so the fabric allocates
// nothing per TLP once warm. Ownership: exactly one component holds a TLP at a time. A port
// hands a received TLP to its owner, which forwards it (passing ownership on) or releases it.
#pragma once

#include <tlm>

#include <cstdint>
#include <memory>
#include <vector>

#include "tlm/tlp.h"

namespace dpusim::pcie {

class TlpPool;

class TlpExtension : public tlm::tlm_extension<TlpExtension> {
 public:
  tlp::Header hdr;
  uint64_t serial = 0;  // platform-unique, in issue order: names a TLP in the event log
  // Set by the switch when it converts a Type 1 config request to Type 0 (for the log).
  bool converted = false;

  tlm::tlm_extension_base* clone() const override;
  void copy_from(const tlm::tlm_extension_base& other) override;
};

using Tlp = tlm::tlm_generic_payload;

inline TlpExtension& ext(Tlp& t) { return *t.get_extension<TlpExtension>(); }
inline tlp::Header& hdr(Tlp& t) { return ext(t).hdr; }
inline const tlp::Header& hdr(const Tlp& t) {
  return const_cast<Tlp&>(t).get_extension<TlpExtension>()->hdr;
}
inline uint8_t* data(Tlp& t) { return t.get_data_ptr(); }
inline size_t data_len(const Tlp& t) { return t.get_data_length(); }

// Takes a request apart, its header and payload bytes, and releases the TLP: what a model that
// serves the request later (after its service time) keeps of it.
struct TakenRequest {
  tlp::Header hdr;
  std::vector<uint8_t> payload;
};
TakenRequest take_request(Tlp& t);

// Pool of TLPs with their payload buffers (capacity 4096 bytes: Max_Payload_Size's ceiling).
class TlpPool : public tlm::tlm_mm_interface {
 public:
  static constexpr size_t kMaxPayload = 4096;

  TlpPool() = default;
  TlpPool(const TlpPool&) = delete;
  TlpPool& operator=(const TlpPool&) = delete;
  ~TlpPool() override;

  // A TLP with one reference held by the caller, `payload_bytes` of zeroed data.
  Tlp* alloc(const tlp::Header& h, size_t payload_bytes);
  // A copy of `t` (header, data, serial) with its own reference: used to duplicate a TLP.
  Tlp* clone(Tlp& t);
  uint64_t next_serial() { return ++serial_; }

  void free(tlm::tlm_generic_payload* gp) override;

  size_t allocated() const { return boxes_.size(); }
  size_t in_use() const { return boxes_.size() - free_.size(); }

 private:
  struct Box;
  std::vector<Box*> boxes_;  // owned; deleted in the destructor
  std::vector<Box*> free_;
  uint64_t serial_ = 0;
};

}  // namespace dpusim::pcie
