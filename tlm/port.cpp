#include "tlm/port.h"

namespace dpusim::pcie {

using namespace sc_core;

Port::Port(sc_module_name name) : sc_module(name), tx("tx"), rx("rx") {
  rx.register_nb_transport_fw(this, &Port::nb_transport_fw);
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
