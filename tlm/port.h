// A PCIe port: one end of a link. It sends TLPs into the link through a TLM-2.0 initiator socket
// and receives them through a target socket, each arriving at the simulated time its last byte
// left the wire (the link passes that time as the nb_transport delay). Arrivals on one link
// direction are in order, so a FIFO and one event per port deliver them.
//
// The protocol is PCIe's own (pcie_protocol_types), so a port cannot be bound to a socket of a
// memory-mapped bus by mistake.
#pragma once

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <deque>
#include <functional>
#include <utility>

#include "tlm/tlp_payload.h"

namespace dpusim::pcie {

struct pcie_protocol_types {
  typedef tlm::tlm_generic_payload tlm_payload_type;
  typedef tlm::tlm_phase tlm_phase_type;
};

class Port : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<Port, 32, pcie_protocol_types> tx;
  tlm_utils::simple_target_socket<Port, 32, pcie_protocol_types> rx;

  SC_HAS_PROCESS(Port);
  explicit Port(sc_core::sc_module_name name);

  // The owner's handler, called at each TLP's arrival time; it takes ownership of the TLP.
  void set_receiver(std::function<void(Tlp&)> fn) { receiver_ = std::move(fn); }
  // Called before the receiver at arrival; returning false drops the TLP (the monitor has
  // logged why). The link installs the invariant checker's completion tracking here.
  void set_arrival_monitor(std::function<bool(Tlp&)> fn) { monitor_ = std::move(fn); }

  // Hands `t` to the link, to start no earlier than now + `delay`. Ownership passes on.
  // Returns the time (from now) at which its last byte has left this port.
  sc_core::sc_time send(Tlp& t, const sc_core::sc_time& delay = sc_core::SC_ZERO_TIME);

  size_t queued() const { return fifo_.size(); }

 private:
  tlm::tlm_sync_enum nb_transport_fw(Tlp& t, tlm::tlm_phase& phase, sc_core::sc_time& delay);
  void deliver();

  std::function<void(Tlp&)> receiver_;
  std::function<bool(Tlp&)> monitor_;
  std::deque<std::pair<sc_core::sc_time, Tlp*>> fifo_;
  sc_core::sc_event arrival_;
};

}  // namespace dpusim::pcie
