// The seam between the RDMA path and what does the fp8 unit's arithmetic.
//
// When a program's fp8_unit call has checked a request and staged its sources (fp8_unit.h,
// path.h), the path hands the staged operation to an Fp8Backend and writes what it computed.
// The default is the C++ codec (p4/formats), which takes no simulated time. Another backend
// (the verilated RTL unit of models/rtl, docs/cosim.md) must give the same bytes and status
// for every job, and says how long the unit was busy; the path passes that on in its Decision.
// This header is plain C++: a backend on SystemC lives outside p4/.
#pragma once

#include <cstddef>
#include <cstdint>

#include "formats/formats.h"

namespace dpusim::p4::rdma {

// One staged operation: apply(op, src) over a and b, or a conversion of a from src to dst.
// a and b hold src_bytes each; result has room for exactly result_bytes (converted_length).
struct Fp8Job {
  bool convert = false;
  formats::Op op = formats::Op::add;            // apply only
  formats::Format src = formats::Format::fp32;  // the operands' format
  formats::Format dst = formats::Format::fp32;  // the result's (for apply, equal to src)
  const std::uint8_t* a = nullptr;
  const std::uint8_t* b = nullptr;              // apply only
  std::size_t src_bytes = 0;
  std::uint8_t* result = nullptr;
  std::size_t result_bytes = 0;
};

struct Fp8Outcome {
  formats::Status status = formats::Status::ok;  // as formats::apply / convert would return
  std::uint64_t cycles = 0;   // clock cycles the unit was busy with the job (0: untimed)
  std::uint64_t busy_ps = 0;  // the simulated time that took
};

class Fp8Backend {
 public:
  virtual ~Fp8Backend() = default;
  // The implementation as option `fp8-impl` names it ("cpp", "rtl").
  virtual const char* implementation() const = 0;
  // Computes job.result. Writes nothing unless the status is ok.
  virtual Fp8Outcome compute(const Fp8Job& job) = 0;
};

// The C++ codec: formats::apply / formats::convert, no simulated time.
class CodecFp8Backend final : public Fp8Backend {
 public:
  const char* implementation() const override { return "cpp"; }
  Fp8Outcome compute(const Fp8Job& job) override;
};

// The path's default: one shared codec backend (it holds no state).
Fp8Backend& codec_fp8_backend();

}  // namespace dpusim::p4::rdma
