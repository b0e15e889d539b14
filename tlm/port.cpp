#include "tlm/port.h"

namespace dpusim::pcie {

using namespace sc_core;

Port::Port(sc_module_name name) : sc_module(name), tx("tx"), rx("rx") {
  rx.register_nb_transport_fw(this, &Port::nb_transport_fw);
  rx.register_get_direct_mem_ptr(this, &Port::get_direct_mem_ptr);
  rx.register_b_transport(this, &Port::b_transport);
  tx.register_invalidate_direct_mem_ptr(this, &Port::invalidate_direct_mem_ptr);
  SC_METHOD(deliver);
  sensitive << arrival_;
  dont_initialize();
}

sc_time Port::send(Tlp& t, const sc_time& delay) {
  tlm::tlm_phase phase = tlm::BEGIN_REQ;
  sc_time d = delay;
  tx->nb_transport_fw(t, phase, d);
  return d;
}

tlm::tlm_sync_enum Port::nb_transport_fw(Tlp& t, tlm::tlm_phase&, sc_time& delay) {
  const sc_time at = sc_time_stamp() + delay;
  if (fifo_.empty()) arrival_.notify(delay);
  fifo_.emplace_back(at, &t);
  return tlm::TLM_COMPLETED;
}

bool Port::get_direct_mem_ptr(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi) {
  return dmi_handler_ ? dmi_handler_(gp, dmi) : false;
}

void Port::b_transport(tlm::tlm_generic_payload& gp, sc_time& delay) {
  if (transport_handler_) return transport_handler_(gp, delay);
  gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
}

void Port::invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end) {
  if (invalidate_handler_) invalidate_handler_(start, end);
}

void Port::deliver() {
  const sc_time now = sc_time_stamp();
  while (!fifo_.empty() && fifo_.front().first <= now) {
    Tlp* t = fifo_.front().second;
    fifo_.pop_front();
    if (monitor_ && !monitor_(*t)) {
      t->release();
      continue;
    }
    if (receiver_) {
      receiver_(*t);
    } else {
      t->release();
    }
  }
  if (!fifo_.empty()) arrival_.notify(fifo_.front().first - now);
}

}  // namespace dpusim::pcie
