// `_dpusim.platform`: the platform and its run loop, for the Python runtime (dpusim.runtime).
#include <pybind11/stl.h>

#include <algorithm>
#include <map>
#include <memory>

#include "module_registry.h"
#include "platform/platform.h"

namespace py = pybind11;
using dpusim::platform::Platform;
namespace tlp = dpusim::tlp;

namespace {

// The kernel and its devices from dpusim.linux: {"kernel", "init", "run_dir", "preload",
// "mem_mib", "virtio_device_id", "args": [...], "devices": [{"name", "bdf", "bars": [{"index",
// "base", "size", "is64", "prefetch"}], "msix_bar", "msix_offset", "msix_entries", "msix_cap", "held_writes", "ids"}]}.
dpusim::host::LinuxSpec linux_spec_from(const py::dict& d) {
  dpusim::host::LinuxSpec s;
  s.kernel = d["kernel"].cast<std::string>();
  s.init = d["init"].cast<std::string>();
  s.run_dir = d["run_dir"].cast<std::string>();
  s.preload = d["preload"].cast<std::string>();
  s.mem_mib = d["mem_mib"].cast<unsigned>();
  s.virtio_device_id = d["virtio_device_id"].cast<uint32_t>();
  s.args = d["args"].cast<std::vector<std::string>>();
  for (const py::handle h : d["devices"].cast<py::list>()) {
    const py::dict dev = h.cast<py::dict>();
    dpusim::host::uml::LinuxDeviceSpec ds;
    ds.name = dev["name"].cast<std::string>();
    ds.bdf = dev["bdf"].cast<uint16_t>();
    for (const py::handle b : dev["bars"].cast<py::list>()) {
      const py::dict bd = b.cast<py::dict>();
      ds.bars.push_back({bd["index"].cast<unsigned>(), bd["base"].cast<uint64_t>(), bd["size"].cast<uint64_t>(),
                         bd["is64"].cast<bool>(), bd["prefetch"].cast<bool>()});
    }
    ds.msix_bar = dev["msix_bar"].cast<int>();
    ds.msix_offset = dev["msix_offset"].cast<uint32_t>();
    ds.msix_entries = dev["msix_entries"].cast<unsigned>();
    ds.msix_cap = dev["msix_cap"].cast<uint16_t>();
    ds.held_writes = dev["held_writes"].cast<std::vector<uint64_t>>();
    if (dev.contains("ids")) ds.ids = dev["ids"].cast<uint32_t>();
    s.devices.push_back(std::move(ds));
  }
  return s;
}


struct PyNotification {
  std::string kind;
  uint64_t token, time_ps, address;
  int status;
  py::bytes data;
  std::string text;
};

std::optional<tlp::Type> type_from_name(const std::string& name) {
  for (int i = 0; i <= static_cast<int>(tlp::Type::CplDLk); ++i) {
    const auto t = static_cast<tlp::Type>(i);
    if (name == tlp::type_name(t)) return t;
  }
  return std::nullopt;
}

tlp::Type type_arg(const std::string& name, const char* what) {
  auto t = type_from_name(name);
  if (!t) throw py::value_error(std::string(what) + ": unknown TLP type '" + name + "'");
  return *t;
}

tlp::CplStatus status_arg(const std::string& s) {
  if (s == "SC") return tlp::CplStatus::SC;
  if (s == "UR") return tlp::CplStatus::UR;
  if (s == "CRS") return tlp::CplStatus::CRS;
  if (s == "CA") return tlp::CplStatus::CA;
  throw py::value_error("completion status '" + s + "' is not SC, UR, CRS or CA");
}

// A TlpMatch from keyword-style dict entries (the Python side validates names and types).
dpusim::pcie::TlpMatch match_from(const py::dict& d) {
  dpusim::pcie::TlpMatch m;
  for (auto item : d) {
    const std::string key = py::str(item.first);
    py::handle v = item.second;
    if (key == "type") m.type = type_arg(v.cast<std::string>(), "match type");
    else if (key == "path") m.path = v.cast<std::string>();
    else if (key == "dir") m.direction = v.cast<std::string>();
    else if (key == "requester") m.requester_id = v.cast<uint16_t>();
    else if (key == "tag") m.tag = v.cast<uint8_t>();
    else if (key == "target") m.target_id = v.cast<uint16_t>();
    else if (key == "completer") m.completer_id = v.cast<uint16_t>();
    else if (key == "status") m.status = status_arg(v.cast<std::string>());
    else if (key == "address_lo") m.address_lo = v.cast<uint64_t>();
    else if (key == "address_hi") m.address_hi = v.cast<uint64_t>();
    else if (key == "reg") m.register_offset = v.cast<uint16_t>();
    else throw py::value_error("TLP match: unknown field '" + key + "'");
  }
  return m;
}

dpusim::pcie::TraceRule trace_rule_from(const py::dict& d) {
  using dpusim::pcie::TraceKind;
  dpusim::pcie::TraceRule r;
  for (auto item : d) {
    const std::string key = py::str(item.first);
    py::handle v = item.second;
    if (key == "event") r.event = v.cast<std::string>();
    else if (key == "kind") {
      const std::string k = v.cast<std::string>();
      if (k == "instant") r.kind = TraceKind::Instant;
      else if (k == "begin") r.kind = TraceKind::Begin;
      else if (k == "end") r.kind = TraceKind::End;
      else if (k == "state") r.kind = TraceKind::State;
      else if (k == "span") r.kind = TraceKind::Span;
      else if (k == "ignore") r.kind = TraceKind::Ignore;
      else throw py::value_error("trace rule: kind '" + k + "' is not instant, begin, end, state, span or ignore");
    } else if (key == "process") r.process = v.cast<std::string>();
    else if (key == "thread") r.thread = v.cast<std::string>();
    else if (key == "name") r.name = v.cast<std::string>();
    else if (key == "key") r.key = v.cast<std::string>();
    else if (key == "from") r.from = v.cast<std::string>();
    else if (key == "to") r.to = v.cast<std::string>();
    else if (key == "lanes") r.lanes = v.cast<bool>();
    else if (key == "category") r.category = v.cast<std::string>();
    else if (key == "when") {
      const auto w = v.cast<std::map<std::string, std::string>>();
      if (w.size() != 1) throw py::value_error("trace rule: `when` takes one {field: value}");
      r.only_when(w.begin()->first, w.begin()->second);
    } else {
      throw py::value_error("trace rule: unknown field '" + key + "'");
    }
  }
  try {
    dpusim::pcie::TraceRules().add(r);  // checked here so that a bad rule is a ValueError
  } catch (const std::invalid_argument& e) {
    throw py::value_error(e.what());
  }
  return r;
}

tlp::Header header_from(const py::dict& d) {
  tlp::Header h;
  for (auto item : d) {
    const std::string key = py::str(item.first);
    py::handle v = item.second;
    if (key == "type") h.type = type_arg(v.cast<std::string>(), "raw TLP");
    else if (key == "requester") h.requester_id = v.cast<uint16_t>();
    else if (key == "tag") h.tag = v.cast<uint8_t>();
    else if (key == "target") h.target_id = v.cast<uint16_t>();
    else if (key == "reg") h.register_offset = v.cast<uint16_t>();
    else if (key == "address") h.address = v.cast<uint64_t>();
    else if (key == "length") h.length_dw = v.cast<uint16_t>();
    else if (key == "first_be") h.first_be = v.cast<uint8_t>();
    else if (key == "last_be") h.last_be = v.cast<uint8_t>();
    else if (key == "tc") h.tc = v.cast<uint8_t>();
    else if (key == "attr") h.attr = v.cast<uint8_t>();
    else throw py::value_error("raw TLP: unknown field '" + key + "'");
  }
  return h;
}

// The host side a driver uses: configuration and memory requests, host memory, frames on a wire.
void bind_host_access(py::class_<Platform>& c) {
  c.def("config_read", &Platform::config_read)
    .def("config_write", &Platform::config_write)
    .def("mem_read", &Platform::mem_read)
    .def("mem_write", [](Platform& p, uint64_t addr, py::bytes data) {
      std::string s = data;
      return p.mem_write(addr, std::vector<uint8_t>(s.begin(), s.end()));
    })
    .def("raw", [](Platform& p, const py::dict& header, py::bytes data) {
      std::string s = data;
      return p.raw(header_from(header), std::vector<uint8_t>(s.begin(), s.end()));
    })
    .def("host_alloc", [](Platform& p, uint64_t size, uint64_t align) { return p.host().memory.alloc(size, align); })
    .def("host_watch", [](Platform& p, uint64_t addr, uint64_t len) { return p.host().watch_memory(addr, len); })
    .def("host_unwatch", [](Platform& p, uint64_t id) { p.host().unwatch_memory(id); })
    .def("send_frame", [](Platform& p, unsigned wire, py::bytes data) {
      std::string s = data;
      try {
        return p.send_frame(wire, std::vector<uint8_t>(s.begin(), s.end()));
      } catch (const std::invalid_argument& e) {
        throw py::value_error(e.what());
      }
    })
    .def("wires", &Platform::wires)
    .def("family", [](Platform& p) { return p.spec().family_name; })
    .def("host_free", [](Platform& p, uint64_t addr) { return p.host().memory.free(addr); })
    .def("host_read", [](Platform& p, uint64_t addr, uint64_t n) {
      if (!p.host().memory.allocated(addr, n))
        throw py::value_error("host memory read outside allocated memory");
      std::string out(n, '\0');
      p.host().memory.read(addr, reinterpret_cast<uint8_t*>(out.data()), n);
      return py::bytes(out);
    })
    .def("host_write", [](Platform& p, uint64_t addr, py::bytes data) {
      std::string s = data;
      if (!p.host().memory.allocated(addr, s.size()))
        throw py::value_error("host memory write outside allocated memory");
      p.host().memory.write(addr, reinterpret_cast<const uint8_t*>(s.data()), s.size());
    });
}

// Waiting on events.
void bind_events(py::class_<Platform>& c) {
  c.def("add_watcher", [](Platform& p, std::vector<std::pair<std::string, std::string>> match, bool once) {
      return p.ctx().log.add_watcher(std::move(match), once);
    })
    .def("remove_watcher", [](Platform& p, uint64_t id) { p.ctx().log.remove_watcher(id); });
}

// Fault injection on the fabric and on the mesh (tlm/faults.h, net/mesh.h).
void bind_faults(py::class_<Platform>& c) {
  c.def("add_fault", [](Platform& p, const std::string& action, const py::dict& match, uint64_t delay_ps,
                         uint64_t skip, uint64_t count) {
      dpusim::pcie::FaultRule r;
      if (action == "drop") r.action = dpusim::pcie::FaultAction::Drop;
      else if (action == "duplicate") r.action = dpusim::pcie::FaultAction::Duplicate;
      else if (action == "delay") r.action = dpusim::pcie::FaultAction::Delay;
      else throw py::value_error("fault action '" + action + "' is not drop, duplicate or delay");
      r.match = match_from(match);
      r.delay_ps = delay_ps;
      r.skip = skip;
      r.count = count;
      return p.ctx().faults.add(r);
    })
    .def("remove_fault", [](Platform& p, uint64_t id) { p.ctx().faults.remove(id); })
    .def("add_mesh_fault", [](Platform& p, const std::string& action, std::optional<std::string> src,
                              std::optional<std::string> dst, std::optional<std::string> kind, uint64_t delay_ps,
                              uint64_t skip, uint64_t count) {
      dpusim::net::Mesh* mesh = p.mesh();
      if (!mesh) throw py::value_error("the platform has no mesh");
      auto node = [mesh](const std::string& name) {
        for (unsigned i = 0; i < mesh->nodes(); ++i)
          if (mesh->member(i).mesh_name() == name) return i;
        throw py::value_error("'" + name + "' is not a member of the mesh");
      };
      dpusim::net::MeshFault f;
      if (action == "drop") f.action = dpusim::net::MeshFaultAction::Drop;
      else if (action == "delay") f.action = dpusim::net::MeshFaultAction::Delay;
      else if (action == "duplicate") f.action = dpusim::net::MeshFaultAction::Duplicate;
      else throw py::value_error("mesh fault action '" + action + "' is not drop, delay or duplicate");
      if (src) f.src = node(*src);
      if (dst) f.dst = node(*dst);
      f.kind = kind;
      f.delay_ps = delay_ps;
      f.skip = skip;
      f.count = count;
      return mesh->add_fault(f);
    })
    .def("remove_mesh_fault", [](Platform& p, uint64_t id) {
      if (p.mesh()) p.mesh()->remove_fault(id);
    });
}

// The timing profile and exploration (tlm/timing.h, tlm/explore.h).
void bind_timing(py::class_<Platform>& c) {
  c.def("set_timing", [](Platform& p, const std::string& name, uint64_t value) {
      try {
        p.ctx().timing.set(name, value);
      } catch (const std::invalid_argument& e) {
        throw py::value_error(e.what());
      }
      p.ctx().event("platform", "timing_override").str("name", name).u64("value", value);
    })
    .def("get_timing", [](Platform& p, const std::string& name) {
      try {
        return p.ctx().timing.get(name);
      } catch (const std::invalid_argument& e) {
        throw py::value_error(e.what());
      }
    })
    .def("latency", [](Platform& p, const std::string& name) {
      // One use of a latency: the profile's value, or a draw within its range when exploring.
      const int i = dpusim::pcie::TimingProfile::find(name);
      if (i < 0) throw py::value_error("unknown timing parameter '" + name + "'");
      const auto& info = dpusim::pcie::TimingProfile::params()[size_t(i)];
      return p.ctx().explore.latency(info.name, info.explore, p.ctx().timing.get(name), info.min, info.max);
    })
    .def("explore_enabled", [](Platform& p) { return p.ctx().explore.enabled(); })
    .def("explore_knob_on", [](Platform& p, const std::string& knob) { return p.ctx().explore.knob_on(knob); })
    .def("explore_draw", [](Platform& p, const std::string& knob, uint64_t n) {
      if (!p.ctx().explore.knob_on(knob)) throw py::value_error("exploration knob '" + knob + "' is off");
      return p.ctx().explore.draw_below(knob, n);
    })
    .def("explore_used", [](Platform& p) { return p.ctx().explore.used(); });
}

// Invariants, raw configuration reads, event and trace output, SystemC reports.
void bind_checks(py::class_<Platform>& c) {
  c.def("violation", [](Platform& p, const std::string& path, const std::string& kind, const std::string& detail) {
      // An invariant a Python-side model checks (a driver's view of a device), through the checker.
      p.ctx().checker.violation(Platform::now_ps(), path, kind, detail);
    })
    .def("expect_violation", [](Platform& p, const std::string& kind, uint64_t count) {
      p.ctx().checker.expect(kind, count);
      p.ctx().event("platform", "expect_violation").str("kind", kind).u64("count", count);
    })
    .def("peek_config", [](Platform& p, const std::string& path, uint16_t offset) {
      auto* f = p.function(path);
      if (!f) throw py::value_error("no function at '" + path + "'");
      return f->cfg.read_dword(offset);
    })
    .def("function_id", [](Platform& p, const std::string& path) {
      auto* f = p.function(path);
      if (!f) throw py::value_error("no function at '" + path + "'");
      return f->id();
    })
    .def("log_event", [](Platform& p, const std::string& path, const std::string& name,
                         const std::vector<std::pair<std::string, std::string>>& fields) {
      auto e = p.ctx().event(path, name);
      for (const auto& [k, v] : fields) e.json(k, v);
    })
    .def("tracing", [](Platform& p) { return p.ctx().log.has_sinks(); })
    // The Python runtime's tasks (dpusim.trace; tlm/trace_tasks.h), straight to the trace: no
    // event, no rule, one short call per spawn, await and end.
    .def("trace_task_spawn", [](Platform& p, uint64_t task, std::string_view name) {
      if (auto* t = p.trace_writer()) t->task_spawn(Platform::now_ps(), task, name);
    })
    .def("trace_task_wait", [](Platform& p, uint64_t task, std::string_view what) {
      if (auto* t = p.trace_writer()) t->task_wait(Platform::now_ps(), task, what);
    })
    .def("trace_task_end", [](Platform& p, uint64_t task, std::string_view outcome) {
      if (auto* t = p.trace_writer()) t->task_end(Platform::now_ps(), task, outcome);
    })
    .def("add_trace_rule", [](Platform& p, const py::dict& d) { p.ctx().trace_rules.add(trace_rule_from(d)); },
         "Adds a trace rule (tlm/trace_rules.h) from a dict: event, kind (instant, begin, end, state, span, "
         "ignore), process, thread, name, key, from, to, when ({field: value}), lanes, category.")
    .def("systemc_report", [](Platform&, const std::string& severity, const std::string& msg) {
      // Fault injection: a SystemC report as a model would raise it.
      if (severity == "info") SC_REPORT_INFO("dpusim/injected", msg.c_str());
      else if (severity == "warning") SC_REPORT_WARNING("dpusim/injected", msg.c_str());
      else throw py::value_error("severity '" + severity + "' is not info or warning");
    })
    .def("set_log_enabled", [](Platform& p, bool on) { p.ctx().log.set_enabled(on); })
    .def("log_level", [](Platform& p) { return std::string(dpusim::pcie::log_level_name(p.spec().log.level)); })
    .def("log_digest", [](Platform& p) { return p.ctx().log.digest(); });
}

// The Linux bridge (models/host/linux_bridge.h).
void bind_linux(py::class_<Platform>& c) {
  c.def("linux_start", [](Platform& p, const py::dict& d) { p.linux_bridge().start(linux_spec_from(d)); },
         py::call_guard<py::gil_scoped_release>())
    .def("linux_input", [](Platform& p, const std::string& line) { p.linux_bridge().console_input(line); })
    .def("linux_running", [](Platform& p) { return p.linux_bridge().running(); });
}

// Fidelity per device and the run's end.
void bind_run(py::class_<Platform>& c) {
  c.def("set_fidelity", [](Platform& p, const std::string& mode, const std::string& device) {
      try {
        p.set_fidelity(dpusim::pcie::parse_fidelity(mode), device);
      } catch (const std::invalid_argument& e) {
        throw py::value_error(e.what());
      }
    })
    .def("fidelity", [](Platform& p, const std::string& device) {
      auto* ep = p.endpoint_base(device);
      if (!ep) throw py::value_error("no endpoint '" + device + "'");
      return std::string(dpusim::pcie::fidelity_name(ep->fidelity()));
    })
    .def("direct_accesses", [](Platform& p, const std::string& device) {
      auto* ep = p.endpoint_base(device);
      if (!ep) throw py::value_error("no endpoint '" + device + "'");
      return std::make_pair(ep->dma().direct_reads(), ep->dma().direct_writes());
    })
    .def("take_log", [](Platform& p) { return py::bytes(p.ctx().log.take_memory()); })
    .def("slots", &Platform::slots)
    .def("finish", &Platform::finish)
    .def("failed", &Platform::failed)
    .def("failure", &Platform::failure)
    .def("seed", [](Platform& p) { return p.spec().seed; });
}

}  // namespace

DPUSIM_PYBIND(platform) {
  py::register_exception<dpusim::platform::DocError>(m, "DocError", PyExc_ValueError);

  m.def("validate",
        [](const std::string& text, const std::vector<std::string>& search_dirs) {
          dpusim::platform::parse_platform_doc(text, dpusim::platform::DocContext{search_dirs});
        },
        py::arg("doc"), py::arg("search_dirs") = std::vector<std::string>{},
        "Checks a platform document; raises DocError naming the bad field. Relative file names in "
        "device options resolve against search_dirs in turn.");
  m.def("log_categories", [] {
    std::vector<std::tuple<std::string, bool, std::string>> out;
    for (const auto* c : dpusim::pcie::EventCategory::all()) out.emplace_back(c->name(), c->in_summary(), c->what());
    std::sort(out.begin(), out.end());
    return out;
  });
  m.def("timing_params", [] {
    std::vector<std::tuple<std::string, uint64_t, uint64_t, uint64_t, std::string>> out;
    for (const auto& p : dpusim::pcie::TimingProfile::sorted_params()) out.emplace_back(p.name, p.default_value, p.min, p.max, p.unit);
    return out;
  });

  m.def("explore_ranges", [] {
    // name -> ("per_use" | "per_run", lo %, hi %, + ps) of every parameter with a range.
    std::map<std::string, std::tuple<std::string, uint32_t, uint32_t, uint64_t>> out;
    for (const auto& p : dpusim::pcie::TimingProfile::params()) {
      if (!p.explore.any()) continue;
      const bool per_use = p.explore.draw == dpusim::pcie::ExploreRange::Draw::kPerUse;
      out[p.name] = {per_use ? "per_use" : "per_run", p.explore.lo_pct, p.explore.hi_pct, p.explore.add_ps};
    }
    return out;
  });

  py::class_<PyNotification>(m, "Notification")
      .def_readonly("kind", &PyNotification::kind)
      .def_readonly("token", &PyNotification::token)
      .def_readonly("status", &PyNotification::status)
      .def_readonly("data", &PyNotification::data)
      .def_readonly("text", &PyNotification::text)
      .def_readonly("time_ps", &PyNotification::time_ps)
      .def_readonly("address", &PyNotification::address);

  py::class_<Platform> platform(m, "Platform");
  platform.def(py::init([](const std::string& doc, const std::string& log_path, const std::string& vcd_path,
                       const std::string& pcap_dir, const std::vector<std::string>& search_dirs,
                       const std::string& trace_path) {
             auto spec = dpusim::platform::parse_platform_doc(doc, dpusim::platform::DocContext{search_dirs});
             return std::make_unique<Platform>(spec,
                                               dpusim::platform::Outputs{log_path, vcd_path, pcap_dir, trace_path});
           }),
           py::arg("doc"), py::arg("event_log") = "", py::arg("vcd") = "", py::arg("pcap_dir") = "",
           py::arg("search_dirs") = std::vector<std::string>{}, py::arg("trace") = "")
      .def("advance", &Platform::advance, py::call_guard<py::gil_scoped_release>())
      .def("now", [](Platform&) { return Platform::now_ps(); })
      .def("pending_activity", &Platform::pending_activity)
      .def("take_notifications", [](Platform& p) {
        std::vector<PyNotification> out;
        for (auto& n : p.ctx().take_notifications())
          out.push_back(PyNotification{n.kind, n.token, n.time_ps, n.address, n.status,
                                       py::bytes(reinterpret_cast<const char*>(n.data.data()), n.data.size()), n.text});
        return out;
      });
  bind_host_access(platform);
  bind_events(platform);
  bind_faults(platform);
  bind_timing(platform);
  bind_checks(platform);
  bind_linux(platform);
  bind_run(platform);
}
