#include "platform/platform.h"

#include <cstdio>
#include <stdexcept>

#include "tlm/timing.h"

namespace dpusim::platform {

using namespace sc_core;

namespace {

Platform* g_platform = nullptr;
bool g_elaborated = false;

// "all", or the knobs of a shrunk exploration, comma-separated.
std::string explore_knobs_text(const PlatformSpec& spec) {
  if (!spec.explore_only) return "all";
  std::string out;
  for (const auto& k : *spec.explore_only) out += (out.empty() ? "" : ",") + k;
  return out;
}

const char* severity_name(sc_severity s) {
  switch (s) {
    case SC_INFO: return "info";
    case SC_WARNING: return "warning";
    case SC_ERROR: return "error";
    case SC_FATAL: return "fatal";
    default: return "unknown";
  }
}

// SystemC's own reports go to the event log, never to stdout; a warning or worse fails the run.
void report_handler(const sc_report& rep, const sc_actions& actions) {
  // The tracing-timescale note names the VCD's path, which would make the log (and so the
  // run's hash) depend on the output directory; it says nothing about the run.
  const bool path_note = rep.get_severity() == SC_INFO && std::string(rep.get_msg_type()).rfind("tracing timescale", 0) == 0;
  if (g_platform && !path_note) {
    g_platform->ctx()
        .event("systemc", "sc_report")
        .str("severity", severity_name(rep.get_severity()))
        .str("id", rep.get_msg_type())
        .str("msg", rep.get_msg());
    if (rep.get_severity() >= SC_WARNING)
      g_platform->report_failure(std::string("SystemC ") + severity_name(rep.get_severity()) + " " +
                                 rep.get_msg_type() + ": " + rep.get_msg());
  } else if (!path_note) {
    std::fprintf(stderr, "SystemC %s %s: %s\n", severity_name(rep.get_severity()), rep.get_msg_type(), rep.get_msg());
  }
  sc_report_handler::default_handler(rep, actions & ~(SC_DISPLAY | SC_LOG));
}

}  // namespace

Platform::Platform(const PlatformSpec& spec, const Outputs& outputs) : spec_(spec), outputs_(outputs) {
  if (g_elaborated)
    throw std::logic_error(
        "a platform was already built in this process: SystemC elaborates once per process "
        "(run each platform through dpusim.run, which forks)");
  g_elaborated = true;
  g_platform = this;
  sc_report_handler::set_handler(report_handler);

  ctx_ = std::make_unique<pcie::SimContext>(spec.seed);
  pcie::SimContext& ctx = *ctx_;
  for (const auto& [name, value] : spec.timing) ctx.timing.set(name, value);
  if (spec.explore) ctx.explore.enable(spec.explore_only);
  ctx.log.set_filter(spec.log.mask());
  if (spec.log.level == pcie::LogLevel::None) {
    ctx.log.open_digest();
  } else if (outputs.event_log.empty()) {
    ctx.log.open_memory();
  } else {
    ctx.log.open_file(outputs.event_log);
  }
  if (!outputs.trace.empty()) {
    trace_ = std::make_unique<pcie::TraceWriter>(ctx.trace_rules);
    ctx.log.add_sink(trace_.get());
  }
  {
    std::string kinds;
    if (spec.family) {
      kinds = spec.family->describe();
    } else {
      for (const auto& s : spec.slots) kinds += (kinds.empty() ? "" : ",") + (s ? s->config->describe() : std::string("empty"));
    }
    const size_t slots = spec.family ? spec.family->endpoints() : spec.slots.size();
    pcie::Event start = ctx.event("platform", "platform_start");
    start.u64("seed", spec.seed).u64("slots", slots).str("endpoints", kinds);
    if (spec.explore) start.str("explore", explore_knobs_text(spec));  // only then: a nominal log is unchanged
    // Likewise only when not the defaults, so that every run made before they existed keeps its
    // log. With none, what is hashed is the summary stream, and says so.
    if (spec.log.level == pcie::LogLevel::None) start.str("log", "summary");
    else if (spec.log.level != pcie::LogLevel::All || !spec.log.omit.empty()) start.str("log", spec.log.describe());
    if (spec.fidelity != pcie::Fidelity::Tlp) start.str("fidelity", pcie::fidelity_name(spec.fidelity));
  }

  host_ = new host::RootComplex("host", ctx, spec.host);
  host_->requester.checker_id = int(ctx.checker.register_requester("host"));
  host_->on_msi = [this](const host::MsiEvent& ev) {
    pcie::Notification n(host::kMsiNotification);
    n.token = ev.requester_id;
    n.address = ev.address;
    n.status = int(ev.data);
    ctx_->post(std::move(n));
  };
  host_->claim_msi = [this](const host::MsiEvent& ev) {
    for (const auto& g : guests_)
      if (g->on_msi(ev)) return true;
    return linux_ && linux_->claim_msi(ev);
  };
  guest_timer_ = new pcie::TimedQueue("guest");
  host_->on_memory_write = [this](uint64_t id) {
    pcie::Notification n(host::kMemoryWriteNotification);
    n.token = id;
    ctx_->post(std::move(n));
  };
  auto* host_link = new pcie::Link("link_host", ctx, pcie::timing::link_host_gen, pcie::timing::link_host_width,
                                   [] { return 0; });
  links_.push_back(host_link);
  if (spec.family) {
    family_ = spec.family->build(FamilyBuild{ctx});
    host_link->connect(host_->port, family_->upstream_port(), host_->requester.checker_id, -1);
  } else {
    build_test_topology(*host_link);
  }
  build_wires();
  build_mesh();
  if (spec.vcd && !outputs.vcd.empty()) build_traces();
  if (spec.fidelity != pcie::Fidelity::Tlp)
    for (pcie::EndpointBase* ep : endpoint_bases()) ep->set_fidelity(spec.fidelity);
}

std::vector<pcie::EndpointBase*> Platform::endpoint_bases() {
  std::vector<pcie::EndpointBase*> out;
  const unsigned n = family_ ? spec_.family->endpoints() : unsigned(endpoints_.size());
  for (unsigned i = 0; i < n; ++i)
    if (pcie::EndpointBase* ep = endpoint_base("ep" + std::to_string(i))) out.push_back(ep);
  return out;
}

pcie::EndpointBase* Platform::endpoint_base(const std::string& path) {
  if (family_) return family_->endpoint(path);
  if (path.size() < 3 || path.rfind("ep", 0) != 0 || path.find_first_not_of("0123456789", 2) != std::string::npos ||
      path.size() > 4)
    return nullptr;
  const unsigned i = unsigned(std::stoul(path.substr(2)));
  return i < endpoints_.size() && endpoints_[i] ? &endpoints_[i]->endpoint() : nullptr;
}

uint64_t Platform::attach_guest(const std::string& name, const GuestFactory& make) {
  for (const auto& g : guests_)
    if (g->name() == name) throw std::invalid_argument("a C++ driver named " + name + " is already attached");
  const uint64_t id = guests_.size() + 1;
  guests_.push_back(make(*ctx_, *host_, *guest_timer_, id));
  return id;
}

guest::GuestDatapath& Platform::guest_datapath(uint64_t id) {
  if (id == 0 || id > guests_.size()) throw std::invalid_argument("no C++ driver " + std::to_string(id));
  return *guests_[id - 1];
}

void Platform::set_fidelity(pcie::Fidelity f, const std::string& path) {
  if (path.empty()) {
    // All or none: an endpoint without the mode refuses before any is switched.
    for (pcie::EndpointBase* ep : endpoint_bases()) ep->check_fidelity(f);
    for (pcie::EndpointBase* ep : endpoint_bases()) ep->set_fidelity(f);
    return;
  }
  pcie::EndpointBase* ep = endpoint_base(path);
  if (!ep) {
    std::string known;
    for (pcie::EndpointBase* e : endpoint_bases()) known += (known.empty() ? "" : ", ") + std::string(e->name());
    throw std::invalid_argument("no endpoint '" + path + "' (endpoints: " + (known.empty() ? "none" : known) + ")");
  }
  ep->set_fidelity(f);
}

void Platform::build_test_topology(pcie::Link& host_link) {
  pcie::SimContext& ctx = *ctx_;
  std::vector<pcie::Link*> dsp_links;
  sw::SwitchSpec sspec;
  for (size_t i = 0; i < spec_.slots.size(); ++i) {
    sspec.occupied.push_back(spec_.slots[i].has_value());
    // The bus number of the link below port i is that port's secondary bus, read live.
    auto* link = new pcie::Link(("link_dsp" + std::to_string(i)).c_str(), ctx, pcie::timing::link_dsp_gen,
                                pcie::timing::link_dsp_width, [this, i] {
                                  return switch_ ? int(switch_->dsp(unsigned(i)).secondary()) : -1;
                                });
    dsp_links.push_back(link);
    links_.push_back(link);
  }
  switch_ = new sw::PcieSwitch("switch", ctx, sspec, dsp_links);
  host_link.connect(host_->port, switch_->up, host_->requester.checker_id, -1);

  endpoints_.resize(spec_.slots.size());
  for (size_t i = 0; i < spec_.slots.size(); ++i) {
    const std::string name = "ep" + std::to_string(i);
    if (spec_.slots[i]) {
      endpoints_[i] = spec_.slots[i]->config->build(ctx, name);
      pcie::EndpointBase& ep = endpoints_[i]->endpoint();
      const int id = int(ctx.checker.register_requester(name));
      ep.dma().checker_id = id;
      dsp_links[i]->connect(*switch_->down[i], ep.port, -1, id);
    } else {
      empty_ports_.push_back(std::make_unique<pcie::Port>(("empty_slot" + std::to_string(i)).c_str()));
      dsp_links[i]->connect(*switch_->down[i], *empty_ports_.back(), -1, -1);
    }
  }
}

void Platform::build_wires() {
  for (size_t i = 0; i < spec_.wires.size(); ++i) {
    auto end = [&](const std::string& name) -> net::NetEnd& {
      if (name == "loopback") return *peers_.emplace_back(std::make_unique<net::LoopbackPeer>(*ctx_));
      if (name == "python") {
        auto peer = std::make_unique<net::PythonPeer>(*ctx_);
        python_peers_.emplace(unsigned(i), peer.get());
        return *peers_.emplace_back(std::move(peer));
      }
      // "ep<i>" or "ep<i>.vf<j>", as the document's parser checked them.
      const unsigned ep = unsigned(std::stoul(name.substr(2)));
      if (const size_t dot = name.find(".vf"); dot != std::string::npos)
        return *family_->vf_network_port(ep, unsigned(std::stoul(name.substr(dot + 3))));
      return family_ ? *family_->network_port(ep) : *endpoints_[ep]->network_port();
    };
    net::NetEnd& a = end(spec_.wires[i].a);
    net::NetEnd& b = end(spec_.wires[i].b);
    const std::string pcap = outputs_.pcap_dir.empty() || !spec_.pcap
                                 ? ""
                                 : outputs_.pcap_dir + "/" + wire_file_name(unsigned(i), spec_.wires[i]);
    wires_.push_back(new net::Wire(("wire" + std::to_string(i)).c_str(), *ctx_, unsigned(i), a, b, pcap));
  }
}

void Platform::build_mesh() {
  if (spec_.mesh.empty()) return;
  std::vector<net::MeshEnd*> members;
  for (unsigned ep : spec_.mesh) members.push_back(endpoints_[ep]->mesh_port());
  mesh_ = new net::Mesh("mesh", *ctx_, std::move(members));
}

std::string wire_file_name(unsigned index, const WireSpec& w) {
  return "wire" + std::to_string(index) + "_" + w.a + "_" + w.b + ".pcap";
}

uint64_t Platform::send_frame(unsigned wire, std::vector<uint8_t> bytes) {
  auto it = python_peers_.find(wire);
  if (it == python_peers_.end())
    throw std::invalid_argument("wire " + std::to_string(wire) + " has no Python-driven end");
  if (bytes.size() < net::kEthHeaderBytes || bytes.size() > 65535)
    throw std::invalid_argument("a frame of " + std::to_string(bytes.size()) + " bytes is outside 14..65535");
  return it->second->send(std::move(bytes));
}

Platform::~Platform() {
  // SystemC modules live until the process exits: the kernel keeps pointers to them.
  if (g_platform == this) g_platform = nullptr;
}

pcie::Function* Platform::function(const std::string& path) {
  if (family_) return family_->function(path);
  if (path == "switch.usp") return &switch_->usp();
  if (path.rfind("switch.dsp", 0) == 0) {
    const unsigned i = unsigned(std::stoul(path.substr(10)));
    return i < switch_->ports() ? &switch_->dsp(i) : nullptr;
  }
  if (path.rfind("ep", 0) == 0) {
    const unsigned i = unsigned(std::stoul(path.substr(2)));
    return i < endpoints_.size() && endpoints_[i] ? &endpoints_[i]->endpoint().function() : nullptr;
  }
  return nullptr;
}

void Platform::build_traces() {
  vcd_ = std::make_unique<pcie::VcdFile>(outputs_.vcd + ".vcd");
  vcd_->set_time_unit(1, SC_PS);
  sc_trace_file* vcd = vcd_.get();
  for (pcie::Link* l : links_) {
    const std::string n = l->name();
    sc_trace(vcd, l->trace_up, n + ".up");
    sc_trace(vcd, l->trace_tlps_down, n + ".tlps_down", 32);
    sc_trace(vcd, l->trace_tlps_up, n + ".tlps_up", 32);
  }
  for (unsigned i = 0; switch_ && i < switch_->ports(); ++i) {
    sw::DownstreamPort& d = switch_->dsp(i);
    sc_trace(vcd, d.trace_dllla, d.path() + ".dllla");
    sc_trace(vcd, d.trace_slot_ctl, d.path() + ".slot_ctl", 16);
    sc_trace(vcd, d.trace_slot_sta, d.path() + ".slot_sta", 16);
  }
  sc_trace(vcd, host_->requester.trace_outstanding, "host.outstanding_np", 32);
  for (net::Wire* w : wires_) sc_trace(vcd, w->trace_frames, std::string(w->name()) + ".frames", 32);
  if (family_) family_->trace(vcd);
  for (const auto& e : endpoints_) {
    if (!e) continue;
    pcie::EndpointBase& ep = e->endpoint();
    sc_trace(vcd, ep.dma().trace_outstanding, std::string(ep.name()) + ".outstanding_np", 32);
    e->trace(vcd);
    e->trace_beside(outputs_.vcd);
  }
  sc_trace(vcd, host_->trace_msi_count, "host.msi_count", 32);
  sc_trace(vcd, host_->trace_msi_data, "host.msi_data", 32);
}

void Platform::report_failure(const std::string& message) {
  if (failed_) return;
  failed_ = true;
  failure_ = message;
  pcie::Notification n(pcie::notification::kViolation);
  n.text = message;
  ctx_->post(std::move(n));
}

void Platform::advance(uint64_t until_ps) {
  if (finished_) throw std::logic_error("the platform has finished");
  while (!ctx_->has_notifications()) {
    const uint64_t now = now_ps();
    if (now >= until_ps) return;
    const bool activity = sc_pending_activity();
    if (!activity && until_ps == UINT64_MAX) return;  // nothing will ever happen
    const uint64_t max = sc_max_time().value();
    const uint64_t span = std::min(until_ps, max) - now;
    try {
      // With no time to reach, stop when nothing is left to do rather than jump to the end of
      // time; with one, advance to it (a Python timer is due then) even if idle before.
      sc_start(sc_time::from_value(span), until_ps == UINT64_MAX ? SC_EXIT_ON_STARVATION : SC_RUN_TO_TIME);
    } catch (const sc_report& rep) {
      report_failure(std::string("SystemC error: ") + rep.what());
      throw std::runtime_error(rep.what());
    }
  }
}

pcie::Requester::Done Platform::completion(uint64_t token) {
  return [this, token](pcie::Result&& r) {
    pcie::Notification n(pcie::notification::kCompletion);
    n.token = token;
    n.status = static_cast<int>(r.outcome);
    n.data = std::move(r.data);
    ctx_->post(std::move(n));
  };
}

uint64_t Platform::config_read(uint16_t bdf, uint16_t offset, unsigned size) {
  const uint64_t token = next_token_++;
  host_->config_read(bdf, offset, size, completion(token));
  return token;
}

uint64_t Platform::config_write(uint16_t bdf, uint16_t offset, unsigned size, uint32_t value) {
  const uint64_t token = next_token_++;
  host_->config_write(bdf, offset, size, value, completion(token));
  return token;
}

uint64_t Platform::mem_read(uint64_t addr, size_t len) {
  if (len == 0 || len > (1u << 20))
    throw std::invalid_argument("memory read of " + std::to_string(len) + " bytes outside 1..1048576");
  const uint64_t token = next_token_++;
  host_->mem_read(addr, len, completion(token));
  return token;
}

uint64_t Platform::mem_write(uint64_t addr, std::vector<uint8_t> bytes) {
  if (bytes.empty() || bytes.size() > (1u << 20))
    throw std::invalid_argument("memory write of " + std::to_string(bytes.size()) + " bytes outside 1..1048576");
  const uint64_t token = next_token_++;
  host_->mem_write(addr, std::move(bytes), completion(token));
  return token;
}

uint64_t Platform::raw(const tlp::Header& h, std::vector<uint8_t> bytes) {
  std::array<uint8_t, tlp::kMaxHeaderBytes> packed{};
  std::string error;
  if (tlp::pack(h, packed, &error) == 0) throw std::invalid_argument("raw TLP: " + error);
  const uint64_t token = next_token_++;
  host_->send_raw(h, std::move(bytes), completion(token));
  return token;
}

host::LinuxBridge& Platform::linux_bridge() {
  if (finished_) throw std::logic_error("the platform has finished");
  if (!linux_) linux_ = std::make_unique<host::LinuxBridge>(*ctx_, *host_, *guest_timer_);
  return *linux_;
}

void Platform::finish() {
  if (finished_) return;
  finished_ = true;
  if (linux_) linux_->stop();
  const auto run = [this](const std::function<bool()>& done) { run_until(done); };
  if (family_) family_->shutdown(run);
  for (const auto& e : endpoints_)
    if (e) e->shutdown(run);
  if (family_ || !wires_.empty()) {
    uint64_t in_flight = family_ ? family_->frames_in_flight() : 0;
    for (const auto& e : endpoints_)
      if (e) in_flight += e->frames_in_flight();
    for (const net::Wire* w : wires_) in_flight += w->in_flight();
    ctx_->checker.check_frame_conservation(now_ps(), in_flight);
  }
  for (net::Wire* w : wires_) w->finish();
  ctx_->checker.check_outstanding(now_ps(), ctx_->timing.get(pcie::timing::cpl_timeout_ps));
  if (ctx_->explore.enabled()) {
    pcie::Event e = ctx_->event("platform", "explore");
    for (const auto& [knob, draws] : ctx_->explore.used()) e.u64(knob, draws);
  }
  ctx_->event("platform", "platform_end")
      .u64("tlps", ctx_->pool.next_serial() - 1)
      .u64("violations", ctx_->checker.violations())
      .u64("outstanding_np", ctx_->checker.outstanding());
  if (trace_) {
    ctx_->log.remove_sink(trace_.get());
    trace_->finish(now_ps());
    try {
      trace_->write(outputs_.trace);
    } catch (const std::runtime_error& e) {
      report_failure(e.what());
    }
  }
  if (vcd_) {
    try {
      vcd_->close();
    } catch (const std::runtime_error& e) {
      report_failure(e.what());
    }
    vcd_.reset();
  }
  ctx_->log.close();
}

void Platform::run_until(const std::function<bool()>& done) {
  // Nothing awaits these notifications any more: the scenario has returned.
  while (!done() && sc_pending_activity()) {
    ctx_->take_notifications();
    try {
      sc_start(sc_time::from_value(sc_time_to_pending_activity().value()), SC_RUN_TO_TIME);
    } catch (const sc_report& rep) {
      report_failure(std::string("SystemC error: ") + rep.what());
      return;
    }
  }
  ctx_->take_notifications();
}

}  // namespace dpusim::platform
