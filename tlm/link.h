// A PCIe link between an upstream port (toward the host) and a downstream port, full duplex.
//
// Each direction serialises TLPs in order: a TLP occupies it for
//   (header 12/16 B + payload + ECRC + 8 B framing/sequence/LCRC) × 8 × encoding / (rate × lanes)
// (divided by 1 - link.dllp_share_ppm / 10^6, the share ACK/flow-control DLLPs and SKIP ordered
// sets take, 0 by default) from max(handed-over time, end of the previous TLP), then arrives
// after the propagation delay. The two directions are independent. DLLPs themselves and
// credits are not modelled (docs/fidelity.md).
//
// The link is also where the fabric is observed: every TLP is logged here ("tlp"), fault
// injection applies here, and the invariant checker's monitors run here (non-posted requests
// leaving a requester, completions reaching one, Type 1 config below its target bus).
//
// A direct memory request from below (tlm/dma.h) passes upward with the link appended to its
// route; invalidations pass back down. Requests from above are refused: nothing below the
// host offers its memory directly. A loosely timed transaction from below (b_transport, a
// TlpExtension giving its header) gains the time its TLP would take here on an idle link.
#pragma once

#include <systemc>

#include <functional>
#include <string>

#include "tlm/port.h"
#include "tlm/sim_context.h"
#include "tlm/timed_queue.h"

namespace dpusim::pcie {

class Link : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<Link, 32, pcie_protocol_types> from_upper, from_lower;
  tlm_utils::simple_initiator_socket<Link, 32, pcie_protocol_types> to_upper, to_lower;

  // `gen` and `width` name the profile parameters of this link. `bus` reports the bus number
  // of the link (its downstream side's bus: 0 for the host link, a DSP's secondary bus) for the
  // Type 1 monitor. A terminal side is a requester (root complex, endpoint): its requests and
  // completions are tracked.
  Link(sc_core::sc_module_name name, SimContext& ctx, const TimingParam& gen, const TimingParam& width,
       std::function<int()> bus);

  // Binds the link between two ports. `upper_requester`/`lower_requester` are the checker's
  // requester ids of terminal sides, or -1 for switch ports.
  void connect(Port& upper, Port& lower, int upper_requester, int lower_requester);

  // A link that is down (slot powered off, no device) drops what it is handed, and says so.
  bool up() const { return up_; }
  void set_up(bool up);

  unsigned gen() const { return unsigned(ctx_.timing.get(gen_)); }
  unsigned width() const { return unsigned(ctx_.timing.get(width_)); }
  // Picoseconds `bytes` occupy one direction (the profile's rate, width and DLLP share).
  uint64_t wire_ps(uint64_t bytes) const {
    return serialisation_ps(bytes, gen(), width(), ctx_.timing.get(timing::link_dllp_share_ppm));
  }

  // Traced in the VCD: link state and TLPs carried per direction.
  bool trace_up = false;
  uint32_t trace_tlps_down = 0, trace_tlps_up = 0;

 private:
  struct Direction {
    const char* name;  // "down" or "up"
    sc_core::sc_time busy_until;
    int from_requester;  // checker id of the sending side, or -1
    int to_requester;    // checker id of the receiving side, or -1
    uint32_t* counter;
  };
  tlm::tlm_sync_enum fw_down(Tlp& t, tlm::tlm_phase& phase, sc_core::sc_time& delay);
  tlm::tlm_sync_enum fw_up(Tlp& t, tlm::tlm_phase& phase, sc_core::sc_time& delay);
  void transmit(Direction& d, Tlp& t, sc_core::sc_time& delay);
  bool dmi_up(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi);
  bool dmi_down(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi) { return false; }
  void transport_up(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  void transport_down(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
    gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
  }
  void invalidate_from_upper(sc_dt::uint64 start, sc_dt::uint64 end) { from_lower->invalidate_direct_mem_ptr(start, end); }
  void invalidate_from_lower(sc_dt::uint64 start, sc_dt::uint64 end) { from_upper->invalidate_direct_mem_ptr(start, end); }
  void carry(Direction& d, Tlp& t, sc_core::sc_time& delay, bool duplicate);
  void log_tlp(const Direction& d, Tlp& t, const sc_core::sc_time& start, const sc_core::sc_time& arrive,
               bool duplicate);

  SimContext& ctx_;
  TimedQueue held_;  // TLPs a delay fault holds back before they enter the link
  const TimingParam &gen_, &width_;
  std::function<int()> bus_;
  bool up_ = true;
  Direction down_{"down", sc_core::SC_ZERO_TIME, -1, -1, &trace_tlps_down};
  Direction upward_{"up", sc_core::SC_ZERO_TIME, -1, -1, &trace_tlps_up};
};

// Logs the header fields of a TLP into an event (shared by the link and the raw-TLP API).
void log_tlp_fields(Event& e, const Tlp& t);

}  // namespace dpusim::pcie
