// Fp8RtlAdapter: the verilated fp8 unit (hdl/fp8_unit.sv, `verilator --sc`) behind a TLM-2.0
// target socket. It streams a job's operands through the unit on a clock and writes the
// results back, so a job takes as much simulated time as the RTL takes cycles (docs/cosim.md).
//
// The clock: period `clock_ps` picoseconds (the timing parameter rtl.fp8.clock_ps), gated: it runs only
// while the unit has work, so an idle unit costs no simulation events. A job that finds the unit
// idle at time t drives its first beat at t and sees rising edges at t + P, t + 2P, ...; one
// queued behind another starts at the other's last edge. Its cycle count is the number of
// rising edges until its last result beat is taken, and its busy time is that many periods.
// With the unit's five-stage pipeline and kLanes elements a beat, n elements take
// ceil(n / kLanes) + kLatency cycles. Reset: the unit is held in reset for kResetCycles cycles
// from time 0 (power-on); a job submitted before then waits for it.
//
// Inputs are driven on the falling edge and outputs sampled on the rising edge, as an RTL
// testbench does, so the handshakes are race-free whatever order SystemC runs processes in.
//
// Transactions (fp8_job_extension.h) queue and run one at a time in arrival order:
//   b_transport: from an SC_THREAD; returns when the job is done (the caller's time advanced).
//   nb_transport_fw: BEGIN_REQ is accepted at once (TLM_UPDATED, END_REQ) and the annotated
//     delay honoured; BEGIN_RESP comes back on the backward path at the job's last edge.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>

#include <systemc>
#include <tlm>
#include <tlm_utils/peq_with_cb_and_phase.h>
#include <tlm_utils/simple_target_socket.h>

#include "rtl/fp8/fp8_job_extension.h"

namespace dpusim::rtl {

class Fp8RtlAdapter : public sc_core::sc_module {
 public:
  static constexpr unsigned kLanes = DPUSIM_RTL_FP8_LANES;  // the unit's LANES parameter
  static constexpr unsigned kLatency = 5;                   // input register and four stages (fp8_unit.sv)
  static constexpr unsigned kResetCycles = 2;
  static constexpr std::uint64_t kMinClockPs = 2;  // a high and a low phase of a picosecond

  SC_HAS_PROCESS(Fp8RtlAdapter);
  tlm_utils::simple_target_socket<Fp8RtlAdapter> socket;

  Fp8RtlAdapter(sc_core::sc_module_name name, std::uint64_t clock_ps);
  ~Fp8RtlAdapter() override;

  const sc_core::sc_time& clock_period() const { return period_; }
  // Every rising edge the clock has had (reset included).
  std::uint64_t cycles() const { return cycles_; }
  // Nothing queued or streaming, and out of reset.
  bool idle() const;

 private:
  struct Unit;  // the verilated model and its signals (Vfp8_unit.h pulls in systemc.h's globals)
  struct Pending {
    tlm::tlm_generic_payload* trans;
    sc_core::sc_event* done;  // b_transport's wake-up; null for a non-blocking transaction
  };
  enum class Phase { kStopped, kLow, kHigh };

  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase, sc_core::sc_time& delay);
  void on_request(tlm::tlm_generic_payload& trans, const tlm::tlm_phase& phase);
  void submit(const Pending& p);
  void on_clock();
  void start_next();
  void drive();
  void rise();
  void finish();

  std::uint64_t clock_ps_;
  sc_core::sc_time period_, high_, low_;
  std::unique_ptr<Unit> unit_;
  tlm_utils::peq_with_cb_and_phase<Fp8RtlAdapter> peq_;
  sc_core::sc_event kick_;
  std::deque<Pending> queue_;
  Phase phase_ = Phase::kStopped;
  unsigned reset_left_ = kResetCycles;  // rising edges of reset still to come
  std::uint64_t cycles_ = 0;
  // The job streaming now.
  bool busy_ = false;
  Pending current_{};
  Fp8JobExtension* job_ = nullptr;
  std::size_t elements_ = 0, beats_ = 0, beats_in_ = 0, beats_out_ = 0;
  std::uint64_t start_cycle_ = 0;
};

}  // namespace dpusim::rtl
