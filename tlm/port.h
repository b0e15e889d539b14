// A PCIe port: one end of a link. It sends TLPs into the link through a TLM-2.0 initiator socket
// and receives them through a target socket, each arriving at the simulated time its last byte
// left the wire (the link passes that time as the nb_transport delay). Arrivals on one link
// direction are in order, so a FIFO and one event per port deliver them.
//
// The protocol is PCIe's own (pcie_protocol_types), so a port cannot be bound to a socket of a
// memory-mapped bus by mistake.
//
// Direct memory requests (TLM-2.0 get_direct_mem_ptr, tlm/dma.h) travel the same way: a port
// sends one out through its initiator socket (get_dmi), the owner of the port it reaches
// answers or forwards it (set_dmi_handler; none: refused), and invalidations come back the
// other way (invalidate_dmi out of the target socket, set_invalidate_handler where they land).
// Loosely timed posted writes that no grant covers (an MSI in lt mode) go the same way as
// blocking transport (b_transport, its delay annotated by every hop: set_transport_handler;
// none: TLM_ADDRESS_ERROR_RESPONSE, and the sender uses TLPs).
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

  // ---- direct memory interface ----
  using DmiHandler = std::function<bool(tlm::tlm_generic_payload&, tlm::tlm_dmi&)>;
  // A direct memory request out through this port toward the far side; true if granted.
  bool get_dmi(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi) { return tx->get_direct_mem_ptr(gp, dmi); }
  // Who answers the requests that arrive at this port.
  void set_dmi_handler(DmiHandler fn) { dmi_handler_ = std::move(fn); }
  // Tells whoever holds grants through this port that [start, end) changed (backward path).
  void invalidate_dmi(uint64_t start, uint64_t end) { rx->invalidate_direct_mem_ptr(start, end - 1); }
  // A loosely timed transaction out through this port; `delay` grows by each hop's time.
  void transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) { tx->b_transport(gp, delay); }
  using TransportHandler = std::function<void(tlm::tlm_generic_payload&, sc_core::sc_time&)>;
  void set_transport_handler(TransportHandler fn) { transport_handler_ = std::move(fn); }
  // Who hears the invalidations that come back to this port (start, end inclusive).
  void set_invalidate_handler(std::function<void(uint64_t, uint64_t)> fn) { invalidate_handler_ = std::move(fn); }

 private:
  tlm::tlm_sync_enum nb_transport_fw(Tlp& t, tlm::tlm_phase& phase, sc_core::sc_time& delay);
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi);
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  void invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end);
  void deliver();

  std::function<void(Tlp&)> receiver_;
  std::function<bool(Tlp&)> monitor_;
  DmiHandler dmi_handler_;
  TransportHandler transport_handler_;
  std::function<void(uint64_t, uint64_t)> invalidate_handler_;
  std::deque<std::pair<sc_core::sc_time, Tlp*>> fifo_;
  sc_core::sc_event arrival_;
};

}  // namespace dpusim::pcie
