// An fp8 job as a TLM-2.0 transaction: a generic payload (IEEE 1666-2011 §14) carrying an
// Fp8JobExtension, sent to Fp8RtlAdapter's target socket.
//
// The generic payload's own command is TLM_IGNORE_COMMAND and its data pointer is unused: the
// job names its operands and its result buffer itself (p4::rdma::Fp8Job), since an fp8
// operation reads two buffers and writes a third, which no single read or write describes. On
// completion the adapter fills `outcome` (the codec's status, cycles, busy time) and sets the
// response status: TLM_OK_RESPONSE, or TLM_GENERIC_ERROR_RESPONSE for a job the codec would
// refuse (its status says why; nothing was written). A payload without the extension gets
// TLM_COMMAND_ERROR_RESPONSE.
#pragma once

#include <tlm>

#include "dpusim/p4/rdma/fp8_backend.h"

namespace dpusim::rtl {

struct Fp8JobExtension : tlm::tlm_extension<Fp8JobExtension> {
  p4::rdma::Fp8Job job;
  p4::rdma::Fp8Outcome outcome;

  tlm::tlm_extension_base* clone() const override { return new Fp8JobExtension(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override {
    *this = static_cast<const Fp8JobExtension&>(other);
  }
};

}  // namespace dpusim::rtl
