// RtlFp8Backend: the RDMA path's Fp8Backend (p4/rdma fp8_backend.h) on the verilated fp8 unit.
// Each job goes to an Fp8RtlAdapter as a TLM transaction; the outcome carries the cycles the
// RTL took and their simulated time at the adapter's clock.
//
// compute() is synchronous for the RDMA path, so where simulated time comes from depends on
// who calls it:
//   - the SystemC kernel not running (a command-line tool, a test, a benchmark, where nothing
//     else simulates): compute() runs the kernel itself until the job is done (sc_start, and
//     sc_pause at the response), so the unit's own clock keeps the time;
//   - an SC_THREAD of a running simulation: the thread blocks in b_transport for the job's
//     simulated time, as TLM-2.0 lets a blocking target do;
//   - an SC_METHOD (or a TimedQueue callback) of a running simulation: it cannot wait, and
//     compute() throws std::logic_error. A method-driven device sends transactions to the
//     adapter's non-blocking transport itself (docs/cosim.md).
// It creates SystemC modules: construct it during elaboration, before the first sc_start.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "dpusim/p4/rdma/fp8_backend.h"
#include "rtl/fp8/fp8_adapter.h"

namespace dpusim::rtl {

class RtlFp8Backend final : public p4::rdma::Fp8Backend {
 public:
  // `name`: the SystemC name of its top module (the adapter is `<name>.adapter`).
  RtlFp8Backend(std::uint64_t clock_ps, const std::string& name = "fp8_rtl");
  ~RtlFp8Backend() override;

  const char* implementation() const override { return "rtl"; }
  p4::rdma::Fp8Outcome compute(const p4::rdma::Fp8Job& job) override;

  Fp8RtlAdapter& adapter();

 private:
  struct Initiator;
  std::unique_ptr<Initiator> initiator_;
};

}  // namespace dpusim::rtl
