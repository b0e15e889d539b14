#include "tlm/tlp_payload.h"

#include <cstring>
#include <stdexcept>
#include <string>

namespace dpusim::pcie {

// The pool's unit: the generic payload itself, so free() finds its box without a search.
struct TlpPool::Box : tlm::tlm_generic_payload {
  TlpExtension* ext;  // attached to the payload for its whole life
  std::vector<uint8_t> buf;
  Box() : ext(new TlpExtension), buf(kMaxPayload) {}
};

tlm::tlm_extension_base* TlpExtension::clone() const { return new TlpExtension(*this); }

void TlpExtension::copy_from(const tlm::tlm_extension_base& other) {
  *this = static_cast<const TlpExtension&>(other);
}

TlpPool::~TlpPool() {
  for (Box* box : boxes_) {
    box->clear_extension(box->ext);
    delete box->ext;
    delete box;
  }
}

Tlp* TlpPool::alloc(const tlp::Header& h, size_t payload_bytes) {
  Box* box;
  if (free_.empty()) {
    box = new Box;
    boxes_.push_back(box);
    box->set_mm(this);
    box->set_extension(box->ext);
  } else {
    box = free_.back();
    free_.pop_back();
  }
  if (payload_bytes > kMaxPayload)  // callers split at Max_Payload_Size first
    throw std::logic_error("TLP payload of " + std::to_string(payload_bytes) +
                           " bytes exceeds 4096");
  box->ext->hdr = h;
  box->ext->serial = next_serial();
  box->ext->converted = false;
  std::memset(box->buf.data(), 0, payload_bytes);
  tlm::tlm_generic_payload& gp = *box;
  gp.set_data_ptr(box->buf.data());
  gp.set_data_length(static_cast<unsigned>(payload_bytes));
  gp.set_address(h.address);
  gp.set_command(tlp::has_data(h.type) ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  gp.acquire();
  return &gp;
}

Tlp* TlpPool::clone(Tlp& t) {
  Tlp* copy = alloc(hdr(t), data_len(t));
  std::memcpy(data(*copy), data(t), data_len(t));
  ext(*copy).serial = ext(t).serial;
  ext(*copy).converted = ext(t).converted;
  return copy;
}

void TlpPool::free(tlm::tlm_generic_payload* gp) {
  free_.push_back(static_cast<Box*>(gp));
}

TakenRequest take_request(Tlp& t) {
  TakenRequest r{hdr(t), std::vector<uint8_t>(data(t), data(t) + data_len(t))};
  t.release();
  return r;
}

}  // namespace dpusim::pcie
