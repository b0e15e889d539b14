#include "tlm/timing.h"
#include "tlm/requester.h"

#include <algorithm>
#include <cstring>

namespace dpusim::pcie {

using namespace sc_core;

namespace {

// Byte enables of a DW-aligned request covering [addr, addr + len) (PCIe §2.2.5).
void set_byte_enables(tlp::Header& h, uint64_t addr, size_t len) {
  const unsigned lead = unsigned(addr & 3);
  h.address = addr & ~uint64_t(3);
  if (len == 0) {  // zero-length request: one DW, no byte enabled
    h.length_dw = 1;
    h.first_be = 0;
    h.last_be = 0;
    return;
  }
  h.length_dw = uint16_t((lead + len + 3) / 4);
  const unsigned end = unsigned((addr + len - 1) & 3);  // last byte's lane
  if (h.length_dw == 1) {
    h.first_be = uint8_t(((0xf << lead) & (0xf >> (3 - end))) & 0xf);
    h.last_be = 0;
  } else {
    h.first_be = uint8_t((0xf << lead) & 0xf);
    h.last_be = uint8_t(0xf >> (3 - end));
  }
}

}  // namespace

bool Requester::write_transport(uint64_t addr, const uint8_t* bytes, size_t len, sc_time* sent, uint16_t rid) {
  // One TLP's worth (an MSI is a DW): larger writes that no grant covers take the TLP path.
  if (!transport || len == 0 || (addr & 0xfff) + len > 4096 || len > max_payload_size()) return false;
  TlpExtension x;
  x.hdr.type = tlp::Type::MWr;
  set_byte_enables(x.hdr, addr, len);
  x.hdr.requester_id = rid ? rid : requester_id_();
  // The payload and the generic payload are the requester's, reused: nothing keeps them after
  // b_transport returns (the target copies what it takes).
  std::vector<uint8_t>& payload = transport_bytes_;
  payload.assign(size_t(x.hdr.length_dw) * 4, 0);
  std::memcpy(payload.data() + (addr & 3), bytes, len);
  tlm::tlm_generic_payload& gp = transport_gp_;
  gp.set_command(tlm::TLM_WRITE_COMMAND);
  gp.set_address(addr);
  gp.set_data_ptr(payload.data());
  gp.set_data_length(unsigned(payload.size()));
  gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  gp.set_extension(&x);
  // It leaves behind the device's direct writes (egress_start), the delay annotated on the way.
  const sc_time start = tlp_wait();
  sc_time delay = start;
  transport(gp, delay);
  gp.clear_extension(&x);
  if (gp.get_response_status() != tlm::TLM_OK_RESPONSE) return false;
  *sent = start;
  return true;
}

const char* outcome_name(Outcome o) {
  switch (o) {
    case Outcome::SC: return "SC";
    case Outcome::UR: return "UR";
    case Outcome::CRS: return "CRS";
    case Outcome::CA: return "CA";
    case Outcome::Timeout: return "TIMEOUT";
  }
  return "?";
}

Requester::Requester(sc_module_name name, SimContext& ctx, std::function<sc_time(Tlp&)> send,
                     std::function<uint16_t()> requester_id)
    : sc_module(name),
      ctx_(ctx),
      send_(std::move(send)),
      requester_id_(std::move(requester_id)),
      tags_(256),
      keeper_("keeper", ctx),
      sync_("sync") {
  SC_METHOD(on_timeout);
  sensitive << timeout_event_;
  dont_initialize();
}

uint64_t Requester::new_op(Done done, size_t result_len) {
  const uint64_t id = next_op_++;
  Op& op = ops_[id];
  op.done = std::move(done);
  op.result.data.assign(result_len, 0);
  return id;
}

void Requester::read(uint64_t addr, size_t len, Done done, uint16_t rid) {
  if (fidelity_ == Fidelity::Lt) {
    if (read_direct(addr, len, done)) return;
    if (const sc_time wait = tlp_wait(); wait != SC_ZERO_TIME) {
      sync_.at(wait,
               [this, addr, len, rid, done = std::move(done)]() mutable { read(addr, len, std::move(done), rid); });
      return;
    }
  }
  const uint64_t op = new_op(std::move(done), len);
  std::vector<Part> parts;
  for_each_request_chunk(addr, len, max_read_request_size(), [&](uint64_t a, size_t n, size_t off) {
    Part p;
    p.op = op;
    p.hdr.type = tlp::Type::MRd;
    p.hdr.requester_id = rid;  // 0: the owner's, filled in at issue
    set_byte_enables(p.hdr, a, n);
    p.offset = off;
    p.len = n;
    parts.push_back(std::move(p));
  });
  ops_[op].parts_left = parts.size();
  for (Part& p : parts) submit(std::move(p));
}

sc_time Requester::write(uint64_t addr, const uint8_t* bytes, size_t len, uint16_t rid) {
  if (fidelity_ == Fidelity::Lt) {
    sc_time sent;
    if (write_direct(addr, bytes, len, &sent) || write_transport(addr, bytes, len, &sent, rid)) return sent;
    if (const sc_time at = tlp_wait(); at != SC_ZERO_TIME) {
      sync_.at(at, [this, addr, rid, copy = std::vector<uint8_t>(bytes, bytes + len)] {
        write(addr, copy.data(), copy.size(), rid);
      });
      return at;
    }
  }
  sc_time last = SC_ZERO_TIME;
  for_each_request_chunk(addr, len, max_payload_size(), [&](uint64_t a, size_t n, size_t off) {
    tlp::Header h;
    h.type = tlp::Type::MWr;
    set_byte_enables(h, a, n);
    h.requester_id = rid ? rid : requester_id_();
    Tlp* t = ctx_.pool.alloc(h, size_t(h.length_dw) * 4);
    if (n) std::memcpy(data(*t) + (a & 3), bytes + off, n);
    last = std::max(last, send_(*t));
  });
  return last;
}

void Requester::config(bool write, bool type1, uint16_t target_id, uint16_t offset, uint8_t byte_enable,
                       uint32_t value, Done done) {
  const uint64_t op = new_op(std::move(done), write ? 0 : 4);
  Part p;
  p.op = op;
  p.hdr.type = write ? (type1 ? tlp::Type::CfgWr1 : tlp::Type::CfgWr0) : (type1 ? tlp::Type::CfgRd1 : tlp::Type::CfgRd0);
  p.hdr.target_id = target_id;
  p.hdr.register_offset = uint16_t(offset & 0xffc);
  p.hdr.first_be = byte_enable & 0xf;
  p.hdr.last_be = 0;
  p.hdr.length_dw = 1;
  if (write) {
    p.payload = {uint8_t(value), uint8_t(value >> 8), uint8_t(value >> 16), uint8_t(value >> 24)};
  } else {
    p.len = 4;
  }
  ops_[op].parts_left = 1;
  submit(std::move(p));
}

void Requester::raw(const tlp::Header& h, const uint8_t* bytes, size_t n, Done done) {
  if (!tlp::is_non_posted(h.type)) {
    Tlp* t = ctx_.pool.alloc(h, h.payload_bytes());
    if (const size_t len = std::min(n, h.payload_bytes())) std::memcpy(data(*t), bytes, len);
    send_(*t);
    if (done) done(Result{});
    return;
  }
  size_t expect = 0;
  if (h.type == tlp::Type::MRd || h.type == tlp::Type::MRdLk) expect = size_t(h.length_dw) * 4;
  if (h.type == tlp::Type::CfgRd0 || h.type == tlp::Type::CfgRd1 || h.type == tlp::Type::IORd) expect = 4;
  const uint64_t op = new_op(std::move(done), expect);
  Part p;
  p.op = op;
  p.hdr = h;
  p.len = expect;
  if (tlp::has_data(h.type)) p.payload.assign(bytes, bytes + std::min(n, h.payload_bytes()));
  p.payload.resize(h.payload_bytes());
  ops_[op].parts_left = 1;
  submit(std::move(p));
}

int Requester::alloc_tag() {
  const unsigned count = std::min<unsigned>(tag_count(), 256);
  for (unsigned i = 0; i < count; ++i) {
    const unsigned tag = (next_tag_ + i) % count;
    if (!tags_[tag].busy) {
      next_tag_ = (tag + 1) % count;
      return int(tag);
    }
  }
  return -1;
}

void Requester::submit(Part part) {
  const int tag = waiting_.empty() ? alloc_tag() : -1;
  if (tag < 0) {
    waiting_.push_back(std::move(part));
    return;
  }
  tags_[size_t(tag)].part = std::move(part);
  issue(uint8_t(tag));
}

void Requester::issue(uint8_t tag) {
  TagSlot& slot = tags_[tag];
  slot.busy = true;
  tlp::Header h = slot.part.hdr;
  h.tag = tag;
  if (h.requester_id == 0) h.requester_id = requester_id_();
  slot.part.hdr = h;
  Tlp* t = ctx_.pool.alloc(h, h.payload_bytes());
  if (!slot.part.payload.empty()) std::memcpy(data(*t), slot.part.payload.data(), slot.part.payload.size());
  const uint64_t now = ctx_.now_ps();
  slot.deadline_ps = now + ctx_.timing.get(pcie::timing::cpl_timeout_ps);
  deadlines_.emplace(slot.deadline_ps, tag);
  timeout_event_.notify(sc_time::from_value(slot.deadline_ps - now));
  ++outstanding_;
  trace_outstanding = outstanding_;
  send_(*t);
}

void Requester::on_completion(Tlp& t) {
  const tlp::Header& h = hdr(t);
  TagSlot& slot = tags_[h.tag];
  if (!slot.busy || h.requester_id != slot.part.hdr.requester_id) {
    ctx_.event(name(), "unexpected_completion").u64("tlp", ext(t).serial).u64("tag", h.tag);
    t.release();
    return;
  }
  if (h.status != tlp::CplStatus::SC) {
    t.release();
    finish_part(h.tag, static_cast<Outcome>(h.status));
    return;
  }
  Part& part = slot.part;
  if (!tlp::has_data(h.type)) {
    t.release();
    finish_part(h.tag, Outcome::SC);
    return;
  }
  const size_t remaining = part.len - part.received;
  const size_t lead = h.lower_address & 3;
  const size_t carried = data_len(t) > lead ? std::min(data_len(t) - lead, size_t(h.byte_count)) : 0;
  if (h.byte_count != remaining || carried == 0) {
    ctx_.event(name(), "malformed_completion")
        .u64("tlp", ext(t).serial)
        .u64("byte_count", h.byte_count)
        .u64("expected", remaining);
    t.release();
    finish_part(h.tag, Outcome::CA);
    return;
  }
  Op& op = ops_[part.op];
  std::memcpy(op.result.data.data() + part.offset + part.received, data(t) + lead, std::min(carried, remaining));
  part.received += std::min(carried, remaining);
  t.release();
  if (part.received >= part.len) finish_part(h.tag, Outcome::SC);
}

void Requester::finish_part(uint8_t tag, Outcome outcome) {
  TagSlot& slot = tags_[tag];
  Part part = std::move(slot.part);
  slot.busy = false;
  deadlines_.erase({slot.deadline_ps, tag});
  --outstanding_;
  trace_outstanding = outstanding_;
  auto it = ops_.find(part.op);
  if (outcome != Outcome::SC) {
    // The host sees all-ones for what a failed read did not return (PCI_POSSIBLE_ERROR).
    std::fill_n(it->second.result.data.begin() + std::ptrdiff_t(part.offset), part.len, uint8_t(0xff));
    if (!it->second.failed) {
      it->second.failed = true;
      it->second.result.outcome = outcome;
    }
  }
  // Parts waiting for a tag go first, in order, before the finished operation's owner (which
  // may issue more) hears of it.
  while (!waiting_.empty()) {
    const int t = alloc_tag();
    if (t < 0) break;
    tags_[size_t(t)].part = std::move(waiting_.front());
    waiting_.pop_front();
    issue(uint8_t(t));
  }
  if (--it->second.parts_left == 0) finish_op(part.op);
}

void Requester::finish_op(uint64_t op_id) {
  auto it = ops_.find(op_id);
  Op op = std::move(it->second);
  ops_.erase(it);
  if (op.done) op.done(std::move(op.result));
}

void Requester::on_timeout() {
  const uint64_t now = ctx_.now_ps();
  while (!deadlines_.empty() && deadlines_.begin()->first <= now) {
    const uint8_t tag = deadlines_.begin()->second;
    deadlines_.erase(deadlines_.begin());
    ctx_.event(name(), "cpl_timeout")
        .u64("tag", tag)
        .str("type", tlp::type_name(tags_[tag].part.hdr.type))
        .u64("issued_ps", tags_[tag].deadline_ps - ctx_.timing.get(pcie::timing::cpl_timeout_ps));
    if (checker_id >= 0) ctx_.checker.request_timed_out(now, unsigned(checker_id), tag);
    tags_[tag].deadline_ps = 0;
    finish_part(tag, Outcome::Timeout);
  }
  if (!deadlines_.empty()) timeout_event_.notify(sc_time::from_value(deadlines_.begin()->first - now));
}

}  // namespace dpusim::pcie
