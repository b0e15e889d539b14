#include "ionic/p4_attachment.h"

#include <sstream>

namespace dpusim::ionic {

std::string p4_stats_line(const p4::Stats& s) {
  // The guide's format ("Reading the counters"): eleven counters on one line. The engine's
  // faults are counted in `dropped` too; the control surface reports them separately.
  std::ostringstream o;
  o << "rocm-ernic: P4 stats: host_in=" << s.host_in << " host_out=" << s.host_out << " uplink_in=" << s.uplink_in
    << " uplink_out=" << s.uplink_out << " dropped=" << s.dropped << " too_big=" << s.too_big
    << " parse_errors=" << s.parse_errors << " to_guest=" << s.to_guest << " to_net=" << s.to_net
    << " to_upstream=" << s.to_upstream << " egress_errors=" << s.egress_errors;
  return o.str();
}

P4Attachment::P4Attachment(FilterSlot& tx, FilterSlot& rx, std::unique_ptr<p4::Engine> engine, Hooks hooks)
    : tx_(tx), rx_(rx), engine_(std::move(engine)), hooks_(std::move(hooks)) {
  prev_tx_ = tx_.take([this](NicFrame& f) { return on_tx(f); });
  prev_rx_ = rx_.take([this](NicFrame& f) { return on_rx(f); });
  attached_ = true;
}

P4Attachment::~P4Attachment() { detach(); }

void P4Attachment::detach() {
  if (!attached_) return;
  tx_.take(std::move(prev_tx_));
  rx_.take(std::move(prev_rx_));
  attached_ = false;
}

void P4Attachment::replace(std::unique_ptr<p4::Engine> engine) {
  engine->mutable_stats() = stats();
  engine_ = std::move(engine);
}

std::string P4Attachment::stats_line() const { return p4_stats_line(stats()); }

bool P4Attachment::on_tx(NicFrame& frame) {
  if (prev_tx_ && prev_tx_(frame)) return true;  // the earlier holder claimed it
  run(p4::P4_PORT_HOST, std::move(frame));
  return true;
}

bool P4Attachment::on_rx(NicFrame& frame) {
  if (prev_rx_ && prev_rx_(frame)) return true;
  run(p4::P4_PORT_UPLINK, std::move(frame));
  return true;
}

void P4Attachment::run(uint32_t in_port, NicFrame frame) {
  ++in_pipeline_;
  if (frame.from_wire) ++wire_in_pipeline_;
  hooks_.defer([this, in_port, frame = std::move(frame)]() mutable {
    --in_pipeline_;
    if (frame.from_wire) --wire_in_pipeline_;
    verdict(in_port, frame);
  });
}

void P4Attachment::verdict(uint32_t in_port, NicFrame& frame) {
  P4Verdict out;
  out.in_port = in_port;
  p4::Stats& s = mutable_stats();
  NicFrame egress;
  if (engine_) {
    const p4::Verdict v = engine_->process(in_port, frame.bytes.data(), frame.bytes.size());
    if (v.dropped) {
      out.dropped = true;
      out.reason = p4::drop_reason_name(v.reason);
      if (hooks_.observe) hooks_.observe(frame.bytes.size(), out);
      hooks_.dropped(frame, out.reason);
      return;
    }
    out.port = v.port;
    egress = NicFrame{std::vector<uint8_t>(v.data, v.data + v.size), frame.wire_id, frame.from_wire};
  } else {
    // No program: the other port, counted as the engine counts a forwarded frame.
    (in_port == p4::P4_PORT_HOST ? s.host_in : s.uplink_in)++;
    out.port = in_port == p4::P4_PORT_HOST ? p4::P4_PORT_UPLINK : p4::P4_PORT_HOST;
    (out.port == p4::P4_PORT_HOST ? s.host_out : s.uplink_out)++;
    egress = std::move(frame);
  }
  if (out.port == p4::P4_PORT_HOST) {
    ++s.to_guest;
    if (hooks_.observe) hooks_.observe(egress.bytes.size(), out);
    hooks_.to_guest(std::move(egress));
    return;
  }
  const size_t len = egress.bytes.size();
  if (hooks_.to_uplink(egress)) {
    ++s.to_net;
    if (hooks_.observe) hooks_.observe(len, out);
    return;
  }
  ++s.egress_errors;
  out.dropped = true;
  out.reason = "egress_error";
  if (hooks_.observe) hooks_.observe(len, out);
  hooks_.dropped(egress, "egress_error");
}

}  // namespace dpusim::ionic
