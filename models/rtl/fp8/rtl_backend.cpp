// RtlFp8Backend (rtl_backend.h): jobs to the adapter over TLM, with the kernel run here when
// nothing else runs it.
#include "rtl/fp8/rtl_backend.h"

#include <stdexcept>

#include <tlm_utils/simple_initiator_socket.h>

namespace dpusim::rtl {

// The initiator the adapter's socket is bound to, with the adapter as its child.
struct RtlFp8Backend::Initiator : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<Initiator> socket{"socket"};
  Fp8RtlAdapter adapter;
  bool responded = false;
  bool pause_on_response = false;

  Initiator(sc_core::sc_module_name name, std::uint64_t clock_ps) : sc_module(name), adapter("adapter", clock_ps) {
    socket.bind(adapter.socket);
    socket.register_nb_transport_bw(this, &Initiator::nb_transport_bw);
  }

  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload&, tlm::tlm_phase& phase, sc_core::sc_time&) {
    if (phase == tlm::BEGIN_RESP) {
      responded = true;
      if (pause_on_response) sc_core::sc_pause();
    }
    return tlm::TLM_COMPLETED;
  }
};

RtlFp8Backend::RtlFp8Backend(std::uint64_t clock_ps, const std::string& name)
    : initiator_(std::make_unique<Initiator>(name.c_str(), clock_ps)) {}

RtlFp8Backend::~RtlFp8Backend() = default;

Fp8RtlAdapter& RtlFp8Backend::adapter() { return initiator_->adapter; }

p4::rdma::Fp8Outcome RtlFp8Backend::compute(const p4::rdma::Fp8Job& job) {
  Fp8JobExtension ext;
  ext.job = job;
  tlm::tlm_generic_payload trans;
  trans.set_command(tlm::TLM_IGNORE_COMMAND);
  trans.set_extension(&ext);
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  const sc_core::sc_status status = sc_core::sc_get_status();
  if (status == sc_core::SC_RUNNING) {
    const sc_core::sc_curr_proc_kind kind = sc_core::sc_get_current_process_handle().proc_kind();
    if (kind != sc_core::SC_THREAD_PROC_ && kind != sc_core::SC_CTHREAD_PROC_) {
      trans.clear_extension(&ext);
      throw std::logic_error(
          "RtlFp8Backend::compute waits for the fp8 unit's clock, which an SC_METHOD cannot: call it from an "
          "SC_THREAD, or send the job to Fp8RtlAdapter's non-blocking transport (docs/cosim.md)");
    }
    initiator_->socket->b_transport(trans, delay);
  } else if (status == sc_core::SC_STOPPED || status == sc_core::SC_END_OF_SIMULATION) {
    trans.clear_extension(&ext);
    throw std::logic_error("RtlFp8Backend::compute: the simulation has ended (sc_stop), so the fp8 unit's clock cannot run");
  } else {
    // Nothing else runs the kernel: run it here until the response.
    Initiator& in = *initiator_;
    in.responded = false;
    in.pause_on_response = true;
    tlm::tlm_phase phase = tlm::BEGIN_REQ;
    if (in.socket->nb_transport_fw(trans, phase, delay) == tlm::TLM_COMPLETED) in.responded = true;
    for (bool first = true; !in.responded && (first || sc_core::sc_pending_activity()); first = false) sc_core::sc_start();
    in.pause_on_response = false;
    if (!in.responded) {
      trans.clear_extension(&ext);
      throw std::logic_error("RtlFp8Backend::compute: the simulation ran out of events before the fp8 unit answered");
    }
  }
  trans.clear_extension(&ext);
  return ext.outcome;
}

}  // namespace dpusim::rtl
