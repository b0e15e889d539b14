// TlpStreamEndpoint (stream_endpoint.h): the hard IP core between the port and an RTL block's
// TLP streams.
#include "rtl/stream/stream_endpoint.h"

#include <algorithm>
#include <cstring>

#include "rtl/stream/tlp_beats.h"
#include "tlm/completer.h"
#include "tlm/pci_regs.h"

namespace dpusim::rtl {

using namespace sc_core;

TlpStreamEndpoint::TlpStreamEndpoint(sc_module_name name, pcie::SimContext& ctx, pcie::Function& fn,
                                     const pcie::TimingParam& service, const pcie::TimingParam& clock)
    : EndpointBase(name, ctx, fn, service) {
  const uint64_t clock_ps = ctx.timing.get(clock);
  if (clock_ps < kMinClockPs)
    SC_REPORT_ERROR(this->name(), (std::string(clock.name()) + " of " + std::to_string(clock_ps) + " ps is below 2 ps").c_str());
  period_ = sc_time::from_value(clock_ps);
  high_ = sc_time::from_value(clock_ps / 2);  // the first half, rounded down
  low_ = period_ - high_;
  SC_METHOD(on_clock);  // runs at time 0: the power-on reset
  SC_METHOD(on_timeout);
  sensitive << timeout_event_;
  dont_initialize();
}

void TlpStreamEndpoint::add_block_region(const std::string& name, unsigned bar, uint64_t offset, uint64_t size) {
  pcie::BarRegion r;
  r.name = name;
  r.bar = bar;
  r.offset = offset;
  r.size = size;
  r.forward = [this](const tlp::Header& h, std::vector<uint8_t> payload) { to_block(h, payload.data(), payload.size()); };
  add_region(std::move(r));
}

void TlpStreamEndpoint::to_block(const tlp::Header& h, const uint8_t* payload, size_t n) {
  std::string error;
  std::vector<uint32_t> beats = tlp_to_beats(h, payload, n, &error);
  if (beats.empty()) return broken("cannot stream a " + std::string(tlp::type_name(h.type)) + " to the block: " + error);
  rx_.push_back(std::move(beats));
  kick_.notify(SC_ZERO_TIME);
}

// -- The clock ---------------------------------------------------------------------------------

// A stopped clock starts when kicked (at time 0 for the reset), its first rising edge a full
// period later; a running one toggles while there is work and stops low.
void TlpStreamEndpoint::on_clock() {
  if (phase_ == Phase::kLow) {
    rise();
    phase_ = Phase::kHigh;
    next_trigger(high_);
    return;
  }
  const bool running = phase_ == Phase::kHigh;  // else stopped, and kicked
  if (running) set_clock(false);
  const Outputs o = sample();  // as the last rising edge left them
  if (reset_left_ == 0 && rx_.empty() && !o.tx_valid && !o.irq_valid && !o.cactive) {
    driven_.rx_valid = false;
    drive(driven_);
    phase_ = Phase::kStopped;
    next_trigger(kick_);
    return;
  }
  driven_ = inputs();
  drive(driven_);
  max_payload_seen_ = std::max(max_payload_seen_, driven_.cfg_max_payload);
  max_read_req_seen_ = std::max(max_read_req_seen_, driven_.cfg_max_read_req);
  phase_ = Phase::kLow;
  next_trigger(running ? low_ : period_);
}

// What the block sees until the next falling edge.
TlpStreamEndpoint::Inputs TlpStreamEndpoint::inputs() const {
  Inputs in;
  in.rst = reset_left_ > 0;
  if (!in.rst && !rx_.empty()) {
    in.rx_valid = true;
    in.rx_data = rx_.front()[rx_beat_];
    in.rx_last = rx_beat_ + 1 == rx_.front().size();
  }
  in.tx_ready = (tx_ready_pattern_ >> (cycles_ % 32)) & 1;
  in.irq_ready = true;
  const pcie::Function& fn = function();
  in.cfg_id = fn.id();
  in.cfg_bus_master = fn.bus_master();
  const uint32_t devctl = fn.pcie_cap() ? fn.cfg.get(uint16_t(fn.pcie_cap() + pci::PCI_EXP_DEVCTL), 2) : 0;
  in.cfg_max_payload = uint8_t((devctl & pci::PCI_EXP_DEVCTL_PAYLOAD) >> 5);
  in.cfg_max_read_req = uint8_t((devctl & pci::PCI_EXP_DEVCTL_READRQ) >> 12);
  return in;
}

// At a rising edge: the handshakes complete on the values from before the edge.
void TlpStreamEndpoint::rise() {
  const Outputs o = sample();
  ++cycles_;
  if (reset_left_ > 0) {
    --reset_left_;
  } else {
    if (driven_.rx_valid && o.rx_ready && ++rx_beat_ == rx_.front().size()) {
      rx_.pop_front();
      rx_beat_ = 0;
    }
    if (o.tx_valid && driven_.tx_ready) {
      tx_.push_back(o.tx_data);
      if (o.tx_last) {
        const std::vector<uint32_t> beats = std::move(tx_);
        tx_.clear();
        from_block(beats);
      }
    }
    if (o.irq_valid && driven_.irq_ready) {
      if (!has_msix() || o.irq_vector >= msix().vectors()) {
        broken("requested MSI-X vector " + std::to_string(o.irq_vector) + ", which the function does not have");
      } else {
        const char* outcome = raise_msix(o.irq_vector);
        ctx_.event(name(), "msix_raise").u64("vector", o.irq_vector).str("outcome", outcome);
      }
    }
  }
  set_clock(true);
}

// -- The block's TLPs ---------------------------------------------------------------------------

void TlpStreamEndpoint::broken(const std::string& what) {
  SC_REPORT_ERROR(name(), ("the RTL block " + what).c_str());
}

void TlpStreamEndpoint::from_block(const std::vector<uint32_t>& beats) {
  tlp::Header h;
  std::vector<uint8_t> payload;
  std::string error;
  if (!beats_to_tlp(beats, h, payload, &error)) return broken("sent a TLP that does not unpack: " + error);
  const pcie::Function& fn = function();
  const std::string type = tlp::type_name(h.type);
  const uint64_t span = uint64_t(h.length_dw) * 4;
  switch (h.type) {
    case tlp::Type::MRd:
    case tlp::Type::MWr: {
      const bool read = h.type == tlp::Type::MRd;
      if (h.requester_id != fn.id())
        return broken("sent a " + type + " with requester ID " + tlp::bdf_str(h.requester_id) + ", not the function's " +
                      tlp::bdf_str(fn.id()));
      // A guest may lower Device Control's limit while the block holds a TLP it built under a
      // larger one, which leaves as built (logged); only a TLP over every limit the block has been
      // given is the block's fault.
      const unsigned limit = read ? fn.max_read_request_size() : fn.max_payload_size();
      const unsigned seen = 128u << std::min(read ? max_read_req_seen_ : max_payload_seen_, uint8_t(5));
      if (span > std::max(limit, seen))
        return broken("sent a " + type + " of " + std::to_string(span) + " bytes, over " +
                      (read ? "Max_Read_Request_Size " : "Max_Payload_Size ") + std::to_string(limit));
      if (span > limit)
        ctx_.event(name(), "tlp_over_limit").str("type", type).u64("bytes", span).u64("limit", limit)
            .str("reason", "Device Control lowered after the block built it");
      if ((h.address & 0xfff) + span > 4096)
        return broken("sent a " + type + " crossing a 4 KiB boundary (PCIe r5.0 §2.2.7)");
      if (read && reads_[h.tag].busy) return broken("sent an MRd on tag " + std::to_string(h.tag) + ", still outstanding");
      if (!fn.bus_master()) {
        ctx_.event(name(), "request_blocked").str("type", type).str("reason", "bus master disabled");
        if (read) {
          Outstanding& r = reads_[h.tag];
          r.owed = pcie::request_byte_count(h);
          r.next_addr = pcie::request_first_byte(h);
          end_read(h.tag, tlp::CplStatus::UR);
        }
        return;
      }
      if (read) {
        Outstanding& r = reads_[h.tag];
        r.busy = true;
        r.owed = pcie::request_byte_count(h);
        r.next_addr = pcie::request_first_byte(h);
        r.issued_ps = ctx_.now_ps();
        r.deadline_ps = r.issued_ps + ctx_.timing.get(pcie::timing::cpl_timeout_ps);
        deadlines_.emplace(r.deadline_ps, h.tag);
        timeout_event_.notify(sc_time::from_value(deadlines_.begin()->first - ctx_.now_ps()));
      }
      break;
    }
    case tlp::Type::Cpl:
    case tlp::Type::CplD:
      if (span > fn.max_payload_size() && h.type == tlp::Type::CplD)
        return broken("sent a CplD of " + std::to_string(span) + " bytes, over Max_Payload_Size " +
                      std::to_string(fn.max_payload_size()));
      break;
    default:
      return broken("sent a " + type + ", which the core does not take from its application logic");
  }
  pcie::Tlp* t = ctx_.pool.alloc(h, payload.size());
  if (!payload.empty()) std::memcpy(pcie::data(*t), payload.data(), payload.size());
  port.send(*t);
}

// -- The block's reads --------------------------------------------------------------------------

void TlpStreamEndpoint::receive_completion(pcie::Tlp& t) {
  const tlp::Header& h = pcie::hdr(t);
  Outstanding& r = reads_[h.tag];
  if (!r.busy) return EndpointBase::receive_completion(t);  // none of the block's: unexpected
  uint32_t carried = 0;
  if (h.status == tlp::CplStatus::SC && tlp::has_data(h.type)) {
    const size_t lead = h.lower_address & 3;
    carried = pcie::data_len(t) > lead ? uint32_t(std::min<size_t>(pcie::data_len(t) - lead, h.byte_count)) : 0;
  }
  if (h.status != tlp::CplStatus::SC || !tlp::has_data(h.type) || h.byte_count <= carried) {
    r.busy = false;
    deadlines_.erase({r.deadline_ps, h.tag});
    if (deadlines_.empty()) timeout_event_.cancel();
  } else {
    r.owed = h.byte_count - carried;
    r.next_addr += carried;
  }
  to_block(h, pcie::data(t), pcie::data_len(t));
  t.release();
}

// Ends a read of the block's with a completion of the core's own.
void TlpStreamEndpoint::end_read(uint8_t tag, tlp::CplStatus status) {
  Outstanding& r = reads_[tag];
  tlp::Header c;
  c.type = tlp::Type::Cpl;
  c.completer_id = function().id();
  c.requester_id = function().id();
  c.tag = tag;
  c.status = status;
  c.byte_count = uint16_t(r.owed);
  c.lower_address = uint8_t(r.next_addr & 0x7f);
  r.busy = false;
  to_block(c, nullptr, 0);
}

void TlpStreamEndpoint::on_timeout() {
  const uint64_t now = ctx_.now_ps();
  while (!deadlines_.empty() && deadlines_.begin()->first <= now) {
    const uint8_t tag = deadlines_.begin()->second;
    deadlines_.erase(deadlines_.begin());
    ctx_.event(name(), "cpl_timeout").u64("tag", tag).str("type", "MRd").u64("issued_ps", reads_[tag].issued_ps);
    if (dma().checker_id >= 0) ctx_.checker.request_timed_out(now, unsigned(dma().checker_id), tag);
    end_read(tag, tlp::CplStatus::CA);
  }
  if (!deadlines_.empty()) timeout_event_.notify(sc_time::from_value(deadlines_.begin()->first - now));
}

}  // namespace dpusim::rtl
