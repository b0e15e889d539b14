#include "tlm/endpoint_base.h"

#include <algorithm>
#include <stdexcept>

#include "tlm/bytes.h"
#include "tlm/completer.h"

namespace dpusim::pcie {

using namespace sc_core;

EndpointBase::EndpointBase(sc_module_name name, SimContext& ctx, Function& fn, const TimingParam& service)
    : sc_module(name),
      port("port"),
      ctx_(ctx),
      later_("later"),
      fn_(&fn),
      service_(service),
      dma_("requester", ctx, [this](Tlp& t) { return port.send(t); }, [this] { return fn_->id(); }) {
  follow_device_control(dma_, *fn_);
  port.set_receiver([this](Tlp& t) { receive(t); });
  dma_.get_dmi = [this](tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi) { return port.get_dmi(gp, dmi); };
  dma_.transport = [this](tlm::tlm_generic_payload& gp, sc_time& delay) { port.transport(gp, delay); };
  port.set_invalidate_handler([this](uint64_t start, uint64_t end) { dma_.invalidate_dmi(start, end); });
}

void EndpointBase::check_fidelity(Fidelity f) const {
  if (f == Fidelity::Lt && lt_refusal())
    throw std::invalid_argument(std::string(name()) + " has no lt fidelity: " + lt_refusal());
}

void EndpointBase::rebind_function(Function& fn) {
  fn_ = &fn;
  follow_device_control(dma_, fn);
  if (msix_) msix_->rebind(fn.cfg);
}

void EndpointBase::add_region(BarRegion r) {
  for (const BarRegion& o : regions_)
    if (o.bar == r.bar && r.offset < o.offset + o.size && o.offset < r.offset + r.size)
      throw std::logic_error(std::string(name()) + ": BAR" + std::to_string(r.bar) + " region " + r.name +
                             " overlaps " + o.name);
  regions_.push_back(std::move(r));
}

Msix& EndpointBase::add_msix(uint16_t cap, unsigned vectors, unsigned bar, uint64_t table_offset, uint64_t pba_offset,
                             uint64_t table_window, uint64_t pba_window) {
  msix_ = std::make_unique<Msix>(fn_->cfg, cap, vectors, [this](uint64_t addr, uint32_t data, unsigned) {
    const uint8_t bytes[4] = {uint8_t(data), uint8_t(data >> 8), uint8_t(data >> 16), uint8_t(data >> 24)};
    dma_.write(addr, bytes, 4);
  });
  msix_->bus_master_enabled = [this] { return fn_->bus_master(); };
  auto bad = [this](uint64_t bar_offset, size_t n) {
    ctx_.event(name(), "msix_bad_access").hex("offset", bar_offset).u64("len", n);
  };
  add_region(BarRegion{"msix_table", bar, table_offset, table_window ? table_window : msix_->table_bytes(),
                       [this, bad, table_offset](uint64_t off, uint8_t* out, size_t n) {
                         if (!msix_->table_read(uint32_t(off), unsigned(n), out)) bad(table_offset + off, n);
                       },
                       [this, bad, table_offset](uint64_t off, const uint8_t* in, size_t n) {
                         if (!msix_->table_write(uint32_t(off), unsigned(n), in)) bad(table_offset + off, n);
                       }});
  add_region(BarRegion{"msix_pba", bar, pba_offset, pba_window ? pba_window : msix_->pba_bytes(),
                       [this, bad, pba_offset](uint64_t off, uint8_t* out, size_t n) {
                         if (!msix_->pba_read(uint32_t(off), unsigned(n), out)) bad(pba_offset + off, n);
                       },
                       nullptr});
  return *msix_;
}

void EndpointBase::require_whole_accesses(unsigned bar, const std::string& name) {
  for (BarRegion& r : regions_)
    if (r.bar == bar && r.name == name) {
      r.whole_accesses = true;
      return;
    }
  throw std::logic_error(std::string(this->name()) + ": BAR" + std::to_string(bar) + " has no region " + name);
}

const BarRegion* EndpointBase::region_at(unsigned bar, uint64_t offset) const {
  for (const BarRegion& r : regions_)
    if (r.bar == bar && offset >= r.offset && offset - r.offset < r.size) return &r;
  return nullptr;
}

void EndpointBase::receive(Tlp& t) {
  if (tlp::is_completion(hdr(t).type)) {
    receive_completion(t);
    return;
  }
  later_.at(ctx_.ps(service_), [this, r = take_request(t)]() mutable { serve(r.hdr, std::move(r.payload)); });
}

void EndpointBase::unsupported(const tlp::Header& h, const char* reason) {
  ctx_.event(name(), "unsupported_request").str("type", tlp::type_name(h.type)).str("reason", reason);
  if (tlp::is_non_posted(h.type))
    port.send(*make_error_completion(ctx_.pool, h, tlp::is_config(h.type) ? h.target_id : fn_->id(), tlp::CplStatus::UR));
}

void EndpointBase::serve(const tlp::Header& h, std::vector<uint8_t> payload) {
  switch (h.type) {
    case tlp::Type::CfgRd0:
    case tlp::Type::CfgWr0:
      return serve_config(h, payload);
    case tlp::Type::MRd:
    case tlp::Type::MWr:
      return serve_memory(h, std::move(payload));
    default: {
      const std::string reason = "request type not supported by " + unsupported_by;
      return unsupported(h, reason.c_str());
    }
  }
}

void EndpointBase::serve_config(const tlp::Header& h, const std::vector<uint8_t>& payload) {
  // One function: a Type 0 request for another function number finds nothing.
  if ((h.target_id & 7) != (fn_->id() & 7)) return unsupported(h, "no such function");
  if (h.type == tlp::Type::CfgRd0) {
    port.send(*make_config_completion(ctx_.pool, h, h.target_id, tlp::CplStatus::SC, fn_->config_read(h.register_offset)));
    return;
  }
  const uint32_t v = uint32_t(bytes::get_le(payload.data(), std::min<size_t>(4, payload.size())));
  fn_->config_write(h.register_offset, v, h.first_be, h.target_id);
  port.send(*make_config_completion(ctx_.pool, h, h.target_id, tlp::CplStatus::SC, 0));
}

void EndpointBase::serve_memory(const tlp::Header& h, std::vector<uint8_t> payload) {
  const uint64_t first = request_first_byte(h);
  const uint32_t count = request_byte_count(h);
  const auto hit = decode(first);
  if (!hit || hit->offset + count > bar_size(hit->bar)) return unsupported(h, "address in no enabled BAR");
  for (const BarRegion& o : regions_) {
    if (!o.whole_accesses || o.bar != hit->bar) continue;
    const bool overlaps = hit->offset < o.offset + o.size && o.offset < hit->offset + count;
    const bool inside = hit->offset >= o.offset && hit->offset - o.offset + count <= o.size;
    if (overlaps && !inside) return unsupported(h, ("request straddles the boundary of " + o.name).c_str());
  }
  const BarRegion* r = region_at(hit->bar, hit->offset);
  if (r && r->forward) {
    if (hit->offset - r->offset + count > r->size) return unsupported(h, "request runs past its region");
    return r->forward(h, std::move(payload));
  }
  if (h.type == tlp::Type::MRd) {
    std::vector<uint8_t> bytes(count, 0);
    if (r && r->read) r->read(hit->offset - r->offset, bytes.data(), count);
    complete_memory_read(ctx_.pool, h, completer_id(*hit), bytes.data(), fn_->max_payload_size(), fn_->read_completion_boundary(),
                         [this](Tlp* c) { port.send(*c); });
    return;
  }
  const uint8_t* in = payload.data() + (first & 3);
  if (r && r->write) return r->write(hit->offset - r->offset, in, count);
  ctx_.event(name(), "write_ignored").hex("offset", hit->offset).u64("len", count);
}

}  // namespace dpusim::pcie
