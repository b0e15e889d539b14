#include "host/root_complex.h"

#include <cstring>
#include <stdexcept>

#include "host/host_timing.h"
#include "tlm/completer.h"

namespace dpusim::host {

using namespace sc_core;
using pcie::Tlp;

namespace {
const pcie::EventCategory kMsiCategory("msi", true, "MSI/MSI-X messages the host receives (event msi)");
const pcie::EventKind kMsiEvent("msi", kMsiCategory);
}  // namespace

RootComplex::RootComplex(sc_module_name name, pcie::SimContext& ctx, const HostSpec& spec)
    : sc_module(name),
      port("port"),
      requester("requester", ctx, [this](Tlp& t) { return port.send(t); }, [] { return kRequesterId; }),
      ctx_(ctx),
      spec_(spec),
      later_("later") {
  requester.max_read_request_size = [this] { return spec_.max_read_request_size; };
  requester.max_payload_size = [this] { return spec_.max_payload_size; };
  requester.tag_count = [] { return 256u; };
  port.set_receiver([this](Tlp& t) { on_receive(t); });
  port.set_dmi_handler([this](tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi) { return grant_dmi(gp, dmi); });
  port.set_transport_handler([this](tlm::tlm_generic_payload& gp, sc_time& delay) { transport_msi(gp, delay); });
  memory.on_change = [this](uint64_t start, uint64_t end) { invalidate_dmi(start, end); };
  // MSIs are instants on the host's own track in the trace.
  ctx.trace_rules.add(pcie::TraceRule::instant("msi", "host", "MSI", "MSI {requester} {data}"));
  SC_METHOD(run_submissions);
  sensitive << submitted_;
  dont_initialize();
}

void RootComplex::submit(std::function<void()> fn) {
  submissions_.push_back(std::move(fn));
  submitted_.notify(SC_ZERO_TIME);
}

void RootComplex::run_submissions() {
  while (!submissions_.empty()) {
    auto fn = std::move(submissions_.front());
    submissions_.pop_front();
    fn();
  }
}

namespace {
void check_config_access(uint16_t offset, unsigned size) {
  if (size != 1 && size != 2 && size != 4)
    throw std::invalid_argument("config access size " + std::to_string(size) + " is not 1, 2 or 4");
  if (offset % size || offset > 0xfff)
    throw std::invalid_argument("config offset " + std::to_string(offset) + " is not aligned to size " +
                                std::to_string(size) + " inside 0..0xfff");
}
}  // namespace

void RootComplex::config_read(uint16_t bdf, uint16_t offset, unsigned size, Done done) {
  check_config_access(offset, size);
  submit([this, bdf, offset, size, done = std::move(done)]() mutable {
    const uint8_t be = uint8_t(((1u << size) - 1) << (offset & 3));
    requester.config(false, (bdf >> 8) != 0, bdf, offset, be, 0,
                     [offset, size, done = std::move(done)](pcie::Result&& r) {
                       // Keep only the bytes asked for, shifted down (all-ones on error).
                       std::vector<uint8_t> dw = std::move(r.data);
                       r.data.assign(dw.begin() + (offset & 3), dw.begin() + (offset & 3) + size);
                       done(std::move(r));
                     });
  });
}

void RootComplex::config_write(uint16_t bdf, uint16_t offset, unsigned size, uint32_t value, Done done) {
  check_config_access(offset, size);
  submit([this, bdf, offset, size, value, done = std::move(done)]() mutable {
    const uint8_t be = uint8_t(((1u << size) - 1) << (offset & 3));
    requester.config(true, (bdf >> 8) != 0, bdf, offset, be, value << (8 * (offset & 3)), std::move(done));
  });
}

void RootComplex::mem_read(uint64_t addr, size_t len, Done done) {
  submit([this, addr, len, done = std::move(done)]() mutable { requester.read(addr, len, std::move(done)); });
}

void RootComplex::mem_write(uint64_t addr, std::vector<uint8_t> bytes, Done done) {
  submit([this, addr, bytes = std::move(bytes), done = std::move(done)]() mutable {
    const sc_time sent = requester.write(addr, bytes.data(), bytes.size());
    later_.at(sent, [done = std::move(done)] { done(pcie::Result{}); });
  });
}

void RootComplex::send_raw(const tlp::Header& h, std::vector<uint8_t> bytes, Done done) {
  submit([this, h, bytes = std::move(bytes), done = std::move(done)]() mutable {
    requester.raw(h, bytes.data(), bytes.size(), std::move(done));
  });
}

void RootComplex::on_receive(Tlp& t) {
  const tlp::Header& h = pcie::hdr(t);
  if (tlp::is_completion(h.type)) {
    requester.on_completion(t);
    return;
  }
  if (h.type == tlp::Type::MWr) {
    serve_write(t);
    return;
  }
  if (h.type == tlp::Type::MRd) {
    serve_read(t);
    return;
  }
  // Config, I/O and locked requests have no target in the host: UR for non-posted ones.
  ctx_.event(name(), "unsupported_request").str("type", tlp::type_name(h.type)).u64("tlp", pcie::ext(t).serial);
  if (tlp::is_non_posted(h.type))
    port.send(*pcie::make_completion(ctx_.pool, h, kRequesterId, tlp::CplStatus::UR, nullptr, 0, 4, 0));
  t.release();
}

uint64_t RootComplex::watch_memory(uint64_t addr, uint64_t len) {
  const uint64_t id = next_watch_++;
  watches_.emplace(id, std::make_pair(addr, addr + len));
  invalidate_dmi(addr, addr + len);  // a watched write must come as a TLP to be seen
  return id;
}

void RootComplex::unwatch_memory(uint64_t id) {
  auto it = watches_.find(id);
  if (it == watches_.end()) return;
  const auto [start, end] = it->second;
  watches_.erase(it);
  invalidate_dmi(start, end);  // the refusal cached for it goes too
}

void RootComplex::receive_msi(const MsiEvent& ev) {
  ++trace_msi_count;
  trace_msi_data = ev.data;
  if (pcie::Event e = ctx_.event(name(), kMsiEvent))
    e.bdf("requester", ev.requester_id).hex("addr", ev.address).hex("data", ev.data);
  if (claim_msi && claim_msi(ev)) return;
  msis_.push_back(ev);
  if (on_msi) on_msi(ev);
}

void RootComplex::transport_msi(tlm::tlm_generic_payload& gp, sc_time& delay) {
  // A loosely timed MSI (tlm/dma.h): a DW write into the MSI window arriving after `delay`.
  // Anything else is not taken this way: the sender uses TLPs.
  const pcie::TlpExtension* x = gp.get_extension<pcie::TlpExtension>();
  const uint64_t first = gp.get_address();
  if (!x || !gp.is_write() || first < kMsiBase || first >= kMsiEnd || gp.get_data_length() < 4) {
    gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  uint32_t value = 0;
  std::memcpy(&value, gp.get_data_ptr() + (first & 3), std::min<size_t>(4, gp.get_data_length() - (first & 3)));
  const uint16_t requester = x->hdr.requester_id;
  later_.at(delay, [this, requester, first, value] { receive_msi(MsiEvent{ctx_.now_ps(), requester, first, value}); });
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

void RootComplex::invalidate_dmi(uint64_t start, uint64_t end) {
  // Before the simulation starts nothing can hold a grant (and the sockets may be unbound).
  if (sc_start_of_simulation_invoked() && end > start) port.invalidate_dmi(start, end);
}

bool RootComplex::grant_dmi(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi) {
  const uint64_t addr = gp.get_address();
  if (addr >= kMsiBase && addr < kMsiEnd) {  // messages, not memory
    dmi.set_start_address(kMsiBase);
    dmi.set_end_address(kMsiEnd - 1);
    return false;
  }
  uint64_t start = 0, end = 0;
  uint8_t* p = memory.direct(addr, &start, &end);
  dmi.set_start_address(start);
  dmi.set_end_address(end);
  if (!p) return false;  // outside allocated memory: the TLP path refuses and reports it
  for (const auto& [id, range] : watches_)
    if (range.first <= end && start < range.second) return false;
  dmi.set_dmi_ptr(p);
  dmi.allow_read_write();
  if (auto* route = gp.get_extension<pcie::DmiRoute>()) {
    route->read_latency = &host::timing::mem_read_ps;
    route->max_payload_size = spec_.max_payload_size;
    route->read_completion_boundary = spec_.read_completion_boundary;
  }
  return true;
}

void RootComplex::refuse_dma(const tlp::Header& h, const char* what) {
  const std::string detail = std::string(what) + " by " + tlp::bdf_str(h.requester_id) + " at " +
                             std::to_string(h.address) + " length " + std::to_string(h.length_dw) +
                             " DW outside allocated host memory";
  ctx_.event(name(), "dma_outside_memory")
      .str("op", what)
      .str("requester", tlp::bdf_str(h.requester_id))
      .hex("addr", h.address)
      .u64("len", h.length_dw);
  ctx_.checker.violation(ctx_.now_ps(), name(), "dma_outside_memory", detail);
}

void RootComplex::serve_write(Tlp& t) {
  const tlp::Header& h = pcie::hdr(t);
  const uint64_t first = pcie::request_first_byte(h);
  if (first >= kMsiBase && first < kMsiEnd) {
    // An MSI/MSI-X message: a DW write of the message data (PCIe §6.1.4).
    uint32_t value = 0;
    std::memcpy(&value, pcie::data(t) + (first & 3), std::min<size_t>(4, pcie::data_len(t) - (first & 3)));
    t.release();
    receive_msi(MsiEvent{ctx_.now_ps(), h.requester_id, first, value});
    return;
  }
  const uint32_t count = pcie::request_byte_count(h);
  if (!memory.allocated(first, count)) {
    refuse_dma(h, "write");
    t.release();
    return;
  }
  // Write the enabled bytes only: byte enables apply to the first and last DW; the DWs between
  // are whole and go in one copy.
  const uint8_t* d = pcie::data(t);
  const size_t dws = h.length_dw;
  auto write_dw = [&](size_t dw, uint8_t be) {
    for (unsigned b = 0; b < 4; ++b)
      if (be & (1u << b)) memory.write(h.address + dw * 4 + b, d + dw * 4 + b, 1);
  };
  write_dw(0, h.first_be);
  if (dws > 2) memory.write(h.address + 4, d + 4, (dws - 2) * 4);
  if (dws > 1) write_dw(dws - 1, h.last_be);
  t.release();
  const uint64_t end = first + count;
  for (auto it = watches_.begin(); it != watches_.end();) {
    if (first < it->second.second && it->second.first < end) {
      const uint64_t id = it->first;
      const auto [wstart, wend] = it->second;
      it = watches_.erase(it);
      invalidate_dmi(wstart, wend);
      if (on_memory_write) on_memory_write(id);
    } else {
      ++it;
    }
  }
}

void RootComplex::serve_read(Tlp& t) {
  const tlp::Header h = pcie::hdr(t);
  t.release();
  later_.at(ctx_.ps(host::timing::mem_read_ps), [this, h] {
    const uint64_t first = pcie::request_first_byte(h);
    const uint32_t count = pcie::request_byte_count(h);
    if (!memory.allocated(first, count)) {
      refuse_dma(h, "read");
      port.send(*pcie::make_completion(ctx_.pool, h, kRequesterId, tlp::CplStatus::UR, nullptr, 0, uint16_t(count),
                                       uint8_t(first & 0x7f)));
      return;
    }
    std::vector<uint8_t> bytes(count);
    memory.read(first, bytes.data(), count);
    pcie::complete_memory_read(ctx_.pool, h, kRequesterId, bytes.data(), spec_.max_payload_size,
                               spec_.read_completion_boundary, [this](Tlp* c) { port.send(*c); });
  });
}

}  // namespace dpusim::host
