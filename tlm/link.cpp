#include "tlm/timing.h"
#include "tlm/link.h"

#include "tlm/dma.h"

namespace dpusim::pcie {

using namespace sc_core;

namespace {
const EventKind kTlpEvent("tlp", category::tlp);
}  // namespace

Link::Link(sc_module_name name, SimContext& ctx, const TimingParam& gen, const TimingParam& width, std::function<int()> bus)
    : sc_module(name),
      from_upper("from_upper"),
      from_lower("from_lower"),
      to_upper("to_upper"),
      to_lower("to_lower"),
      ctx_(ctx),
      held_("held"),
      gen_(gen),
      width_(width),
      bus_(std::move(bus)) {
  from_upper.register_nb_transport_fw(this, &Link::fw_down);
  from_lower.register_nb_transport_fw(this, &Link::fw_up);
  from_lower.register_get_direct_mem_ptr(this, &Link::dmi_up);
  from_upper.register_get_direct_mem_ptr(this, &Link::dmi_down);
  from_lower.register_b_transport(this, &Link::transport_up);
  from_upper.register_b_transport(this, &Link::transport_down);
  to_upper.register_invalidate_direct_mem_ptr(this, &Link::invalidate_from_upper);
  to_lower.register_invalidate_direct_mem_ptr(this, &Link::invalidate_from_lower);
  trace_up = up_;
}

void Link::connect(Port& upper, Port& lower, int upper_requester, int lower_requester) {
  upper.tx.bind(from_upper);
  to_upper.bind(upper.rx);
  lower.tx.bind(from_lower);
  to_lower.bind(lower.rx);
  down_.from_requester = upper_requester;
  down_.to_requester = lower_requester;
  upward_.from_requester = lower_requester;
  upward_.to_requester = upper_requester;
  // Completions are checked when they reach a requester, at their arrival time.
  auto monitor = [this](int requester) {
    return [this, requester](Tlp& t) {
      const tlp::Header& h = hdr(t);
      if (!tlp::is_completion(h.type)) return true;
      if (ctx_.checker.completion_arrived(ctx_.now_ps(), unsigned(requester), h, data_len(t), ext(t).serial))
        return true;
      ctx_.event(name(), "unexpected_completion")
          .u64("tlp", ext(t).serial)
          .str("requester", tlp::bdf_str(h.requester_id))
          .u64("tag", h.tag);
      return false;
    };
  };
  if (upper_requester >= 0) upper.set_arrival_monitor(monitor(upper_requester));
  if (lower_requester >= 0) lower.set_arrival_monitor(monitor(lower_requester));
}

void Link::set_up(bool up) {
  if (up == up_) return;
  up_ = up;
  trace_up = up;
  ctx_.event(name(), "link_state").boolean("up", up);
  // Direct memory grants made through this link (tlm/dma.h) go with it.
  if (!up && sc_start_of_simulation_invoked()) from_lower->invalidate_direct_mem_ptr(0, ~sc_dt::uint64(0));
}

bool Link::dmi_up(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi) {
  DmiRoute* route = gp.get_extension<DmiRoute>();
  if (!up_ || !route || route->hops.size() >= DmiRoute::kMaxHops) return false;
  route->hops.push_back(DmiHop{this, nullptr});
  return to_upper->get_direct_mem_ptr(gp, dmi);
}

void Link::transport_up(tlm::tlm_generic_payload& gp, sc_time& delay) {
  const TlpExtension* x = gp.get_extension<TlpExtension>();
  if (!up_ || !x) {
    gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  const tlp::Header& h = x->hdr;
  const uint64_t bytes = h.header_bytes() + h.payload_bytes() + (h.td ? 4 : 0) + kTlpFramingBytes;
  delay += sc_time::from_value(wire_ps(bytes)) + ctx_.ps(pcie::timing::link_propagation_ps);
  to_upper->b_transport(gp, delay);
}

tlm::tlm_sync_enum Link::fw_down(Tlp& t, tlm::tlm_phase&, sc_time& delay) {
  transmit(down_, t, delay);
  return tlm::TLM_COMPLETED;
}

tlm::tlm_sync_enum Link::fw_up(Tlp& t, tlm::tlm_phase&, sc_time& delay) {
  transmit(upward_, t, delay);
  return tlm::TLM_COMPLETED;
}

void Link::transmit(Direction& d, Tlp& t, sc_time& delay) {
  const tlp::Header& h = hdr(t);
  if (!up_) {
    ctx_.event(name(), "tlp_link_down").str("dir", d.name).u64("tlp", ext(t).serial).str("type", tlp::type_name(h.type));
    t.release();
    delay = SC_ZERO_TIME;
    return;
  }
  if (tlp::is_config(h.type) && (h.type == tlp::Type::CfgRd1 || h.type == tlp::Type::CfgWr1)) {
    const int bus = bus_ ? bus_() : -1;
    const int target_bus = h.target_id >> 8;
    if (bus >= 0 && target_bus <= bus)
      ctx_.checker.violation(ctx_.now_ps(), name(), "type1_below_target_bus",
                             std::string(tlp::type_name(h.type)) + " #" + std::to_string(ext(t).serial) +
                                 " for bus " + std::to_string(target_bus) + " on the link of bus " +
                                 std::to_string(bus));
  }
  uint64_t extra_ps = 0;
  if (!ctx_.faults.empty()) {
    uint64_t rule = 0;
    switch (ctx_.faults.apply(h, name(), d.name, &extra_ps, &rule)) {
      case FaultAction::Drop:
        ctx_.event(name(), "fault").str("action", "drop").str("dir", d.name).u64("rule", rule).u64("tlp", ext(t).serial);
        t.release();
        delay = SC_ZERO_TIME;
        return;
      case FaultAction::Duplicate: {
        ctx_.event(name(), "fault").str("action", "duplicate").str("dir", d.name).u64("rule", rule).u64("tlp", ext(t).serial);
        Tlp* copy = ctx_.pool.clone(t);
        sc_time d1 = delay;
        carry(d, t, d1, false);
        carry(d, *copy, delay, true);
        return;
      }
      case FaultAction::Delay: {
        // The TLP is held back, then enters the link like any other: TLPs handed over in the
        // meantime pass it, as PCIe ordering lets requests and completions pass each other.
        ctx_.event(name(), "fault").str("action", "delay").str("dir", d.name).u64("rule", rule)
            .u64("tlp", ext(t).serial).u64("delay_ps", extra_ps);
        Direction* dir = &d;
        Tlp* held = &t;
        held_.at(delay + sc_time::from_value(extra_ps), [this, dir, held] {
          sc_time none = SC_ZERO_TIME;
          carry(*dir, *held, none, false);
        });
        delay = delay + sc_time::from_value(extra_ps);
        return;
      }
      case FaultAction::None:
        break;
    }
  }
  carry(d, t, delay, false);
}

void Link::carry(Direction& d, Tlp& t, sc_time& delay, bool duplicate) {
  const tlp::Header& h = hdr(t);
  const sc_time now = sc_time_stamp();
  sc_time start = now + delay;
  if (start < d.busy_until) start = d.busy_until;
  const uint64_t bytes = h.header_bytes() + h.payload_bytes() + (h.td ? 4 : 0) + kTlpFramingBytes;
  const sc_time end = start + sc_time::from_value(wire_ps(bytes));
  d.busy_until = end;
  const sc_time arrive = end + ctx_.ps(pcie::timing::link_propagation_ps);
  if (d.from_requester >= 0 && tlp::is_non_posted(h.type) && !duplicate)
    ctx_.checker.request_sent(ctx_.now_ps(), unsigned(d.from_requester), h, ext(t).serial);
  ++*d.counter;
  if (ctx_.log.wants(kTlpEvent)) log_tlp(d, t, start, arrive, duplicate);
  sc_time to_arrival = arrive - now;
  tlm::tlm_phase phase = tlm::BEGIN_REQ;
  if (&d == &down_) {
    to_lower->nb_transport_fw(t, phase, to_arrival);
  } else {
    to_upper->nb_transport_fw(t, phase, to_arrival);
  }
  delay = end - now;
}

void log_tlp_fields(Event& e, const Tlp& t) {
  const tlp::Header& h = hdr(t);
  e.str("type", tlp::type_name(h.type)).u64("tlp", const_cast<Tlp&>(t).get_extension<TlpExtension>()->serial);
  if (tlp::is_completion(h.type)) {
    e.bdf("completer", h.completer_id)
        .bdf("requester", h.requester_id)
        .u64("tag", h.tag)
        .str("status", tlp::status_name(h.status))
        .u64("byte_count", h.byte_count)
        .hex("lower_addr", h.lower_address);
  } else {
    e.bdf("requester", h.requester_id);
    if (tlp::is_non_posted(h.type)) e.u64("tag", h.tag);
    if (tlp::is_config(h.type)) {
      e.bdf("target", h.target_id).hex("reg", h.register_offset);
    } else if (tlp::is_message(h.type)) {
      e.hex("code", h.message_code);
    } else {
      e.hex("addr", h.address);
    }
    if (!tlp::is_message(h.type)) e.hex("fbe", h.first_be).hex("lbe", h.last_be);
  }
  e.u64("len", h.length_dw);
  const size_t n = const_cast<Tlp&>(t).get_data_length();
  if (tlp::has_data(h.type) && n > 0 && n <= 16) e.hex_bytes("data", const_cast<Tlp&>(t).get_data_ptr(), n);
}

void Link::log_tlp(const Direction& d, Tlp& t, const sc_time& start, const sc_time& arrive, bool duplicate) {
  Event e = ctx_.event(name(), kTlpEvent);
  e.str("dir", d.name).u64("tx_ps", start.value()).u64("rx_ps", arrive.value());
  if (duplicate) e.boolean("duplicate", true);
  log_tlp_fields(e, t);
}

}  // namespace dpusim::pcie
