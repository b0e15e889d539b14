// Submodule `_dpusim.p4`: the P4 engine for Python (wrapped by dpusim/p4.py).
//
// Refusals come back as (code, message) pairs rather than exceptions so that the Python
// wrapper raises its own exception types with the same stable codes as the CLI.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>

#include "dpusim/p4/cli.h"
#include "dpusim/p4/engine.h"
#include "dpusim/p4/rdma/program.h"
#include "dpusim/p4/stf.h"
#include "module_registry.h"

namespace py = pybind11;
using namespace dpusim::p4;

namespace {

// A Python number or string, as the update record's text.
std::string value_text(const py::handle& v, const char* what) {
  if (py::isinstance<py::bool_>(v)) throw py::type_error(std::string(what) + " must be a string or an int, not a bool");
  if (py::isinstance<py::int_>(v)) {
    if (v.cast<py::int_>() < py::int_(0)) throw py::value_error(std::string(what) + " must not be negative");
    return py::str(v).cast<std::string>();
  }
  if (py::isinstance<py::str>(v)) return v.cast<std::string>();
  throw py::type_error(std::string(what) + " must be a string (\"0x..\" or decimal) or an int");
}

std::uint32_t id_of(const py::handle& v, const char* what) {
  std::string text = value_text(v, what);
  Value n;
  std::uint64_t x = 0;
  if (!parse_number(text, &n) || !n.fits_u64(&x) || x > 0xffffffffu) throw py::value_error(std::string(what) + " must be a 32-bit number");
  return static_cast<std::uint32_t>(x);
}

TableUpdate to_update(const py::dict& r) {
  TableUpdate u;
  std::string type = r.contains("type") ? r["type"].cast<std::string>() : "INSERT";
  if (type == "INSERT") u.type = UpdateType::kInsert;
  else if (type == "MODIFY") u.type = UpdateType::kModify;
  else if (type == "DELETE") u.type = UpdateType::kDelete;
  else if (type == "DEFAULT") u.type = UpdateType::kDefault;
  else throw py::value_error("update type must be INSERT, MODIFY, DELETE or DEFAULT, not " + type);
  if (r.contains("action_profile")) u.action_profile = r["action_profile"].cast<std::string>();
  if (r.contains("table")) u.table = r["table"].cast<std::string>();
  else if (u.action_profile.empty()) throw py::key_error("an update names a 'table' or an 'action_profile'");
  if (r.contains("member") && !r["member"].is_none()) u.member = id_of(r["member"], "member");
  if (r.contains("group") && !r["group"].is_none()) u.group = id_of(r["group"], "group");
  if (r.contains("members"))
    for (const py::handle& m : r["members"].cast<py::list>()) u.members.push_back(id_of(m, "member"));
  if (r.contains("action") && !r["action"].is_none()) u.action = r["action"].cast<std::string>();
  if (r.contains("priority") && !r["priority"].is_none()) u.priority = r["priority"].cast<std::int64_t>();
  if (r.contains("match"))
    for (const py::handle& mh : r["match"].cast<py::list>()) {
      py::dict m = mh.cast<py::dict>();
      MatchField mf;
      mf.field = m["field"].cast<std::string>();
      if (m.contains("low") || m.contains("high")) {
        mf.value = value_text(m["low"], "range low");
        mf.high = value_text(m["high"], "range high");
      } else {
        mf.value = value_text(m["value"], "match value");
      }
      if (m.contains("prefix_len") && !m["prefix_len"].is_none()) mf.prefix_len = m["prefix_len"].cast<int>();
      if (m.contains("mask") && !m["mask"].is_none()) mf.mask = value_text(m["mask"], "match mask");
      u.match.push_back(std::move(mf));
    }
  if (r.contains("params"))
    for (const auto& [k, v] : r["params"].cast<py::dict>()) u.params.emplace_back(k.cast<std::string>(), value_text(v, "action parameter"));
  return u;
}

py::dict stats_dict(const Stats& s) {
  py::dict d;
  d["host_in"] = s.host_in;
  d["host_out"] = s.host_out;
  d["uplink_in"] = s.uplink_in;
  d["uplink_out"] = s.uplink_out;
  d["dropped"] = s.dropped;
  d["too_big"] = s.too_big;
  d["parse_errors"] = s.parse_errors;
  d["to_guest"] = s.to_guest;
  d["to_net"] = s.to_net;
  d["to_upstream"] = s.to_upstream;
  d["egress_errors"] = s.egress_errors;
  d["faults"] = s.faults;
  return d;
}

PortPolicy policy_of(const std::string& p) {
  if (p == "device") return PortPolicy::kDevice;
  if (p == "v1model") return PortPolicy::kV1Model;
  throw py::value_error("policy must be 'device' or 'v1model', not '" + p + "'");
}

FeaturePolicy features_of(const std::string& f) {
  FeaturePolicy features;
  if (feature_policy_from_name(f, &features)) return features;
  throw py::value_error("features must be 'ernic' or 'bmv2', not '" + f + "'");
}

}  // namespace

DPUSIM_PYBIND(p4) {
  m.doc() = "The P4 match-action engine (see dpusim.p4 for the Python interface).";
  py::class_<Engine, std::unique_ptr<Engine>>(m, "Engine")
      .def("update",
           [](Engine& e, const py::dict& record) {
             UpdateError err;
             std::uint32_t handle = 0;
             if (e.update(to_update(record), &err, &handle)) return py::make_tuple(true, "", "", handle);
             return py::make_tuple(false, update_code_name(err.code), err.message, 0);
           })
      .def("run",
           [](Engine& e, std::uint32_t port, const py::bytes& frame, std::uint64_t time_ns) {
             std::string data = frame;
             const RunResult& r = e.run(port, reinterpret_cast<const std::uint8_t*>(data.data()), data.size(), time_ns);
             py::list outputs, digests;
             for (const OutputPacket& o : r.outputs)
               outputs.append(py::make_tuple(o.port, py::bytes(reinterpret_cast<const char*>(o.data), o.size), o.instance_type));
             for (const DigestMessage& d : r.digests) {
               py::list fields;
               for (const auto& [name, value] : d.fields) fields.append(py::make_tuple(name, value.to_hex()));
               digests.append(py::make_tuple(d.list, fields));
             }
             return py::make_tuple(outputs, digests, r.logs, r.drops, drop_reason_name(r.first_drop), r.fault ? r.fault : "");
           })
      .def("set_seed", &Engine::set_seed)
      .def("objects",
           [](const Engine& e) {
             py::list out;
             for (const ObjectDesc& o : e.describe_objects())
               out.append(py::dict(py::arg("name") = o.name, py::arg("kind") = o.kind, py::arg("size") = o.size,
                                   py::arg("width") = o.width, py::arg("table") = o.table));
             return out;
           })
      .def("process",
           [](Engine& e, std::uint32_t port, const py::bytes& frame) {
             std::string data = frame;
             Verdict v = e.process(port, reinterpret_cast<const std::uint8_t*>(data.data()), data.size());
             py::bytes out = v.dropped ? py::bytes() : py::bytes(reinterpret_cast<const char*>(v.data), v.size);
             return py::make_tuple(v.dropped, drop_reason_name(v.reason), v.port, out, v.fault ? v.fault : "");
           })
      .def("stats", [](const Engine& e) { return stats_dict(e.stats()); })
      .def("stats_line", [](const Engine& e) { return e.stats().line(); })
      .def("summary", &Engine::summary)
      .def("tables",
           [](const Engine& e) {
             py::list out;
             for (const TableDesc& t : e.describe_tables()) {
               py::dict d;
               d["name"] = t.name;
               d["match_type"] = t.match_type;
               py::list keys;
               for (const KeyDesc& k : t.keys) keys.append(py::dict(py::arg("name") = k.name, py::arg("target") = k.target,
                                                                      py::arg("match_kind") = k.match_kind, py::arg("width") = k.width));
               d["keys"] = keys;
               py::list actions;
               for (const ActionDesc& a : t.actions) actions.append(py::dict(py::arg("name") = a.name, py::arg("params") = a.params));
               d["actions"] = actions;
               d["max_size"] = t.max_size;
               d["entries"] = t.entries;
               d["immutable"] = t.immutable;
               d["action_profile"] = t.action_profile;
               d["selector"] = t.selector;
               out.append(d);
             }
             return out;
           })
      .def("run_stf", [](Engine& e, const std::string& text) {
        StfOutcome o = run_stf(e, text);
        return py::make_tuple(o.passed, o.message, o.packets, o.expects);
      });
  // simple_switch_CLI's commands on an engine; it keeps the handles the commands print.
  py::class_<SwitchCli>(m, "Cli")
      .def(py::init<Engine&>(), py::keep_alive<1, 2>())
      .def("execute", [](SwitchCli& c, const std::string& line) {
        std::string out, error;
        bool ok = c.execute(line, &out, &error);
        return py::make_tuple(ok, out, error);
      });
  // (engine, "", "") or (None, code, message).
  auto loaded = [](std::unique_ptr<Engine> e, const LoadError& err) {
    if (e) return py::make_tuple(py::cast(std::move(e)), "", "");
    return py::make_tuple(py::none(), load_code_name(err.code), err.message);
  };
  // The device policy loads as the ionic device does: its fp8_unit extern and the RDMA path's
  // rdma_metadata rules (rdma::load_device_program). v1model is bmv2's, with no externs.
  // `features` is the feature policy: "bmv2" (everything the engine builds) or "ernic".
  m.def(
      "load",
      [loaded](const std::string& json, const std::string& policy, const std::string& features) {
        LoadError err;
        const FeaturePolicy f = features_of(features);
        if (policy_of(policy) == PortPolicy::kDevice) return loaded(rdma::load_device_program(json, &err, f), err);
        LoadOptions options;
        options.policy = PortPolicy::kV1Model;
        options.features = f;
        return loaded(Engine::load(json, options, &err), err);
      },
      py::arg("json"), py::arg("policy") = "device", py::arg("features") = "bmv2");
  m.def(
      "load_file",
      [loaded](const std::string& path, const std::string& policy, const std::string& features) {
        LoadError err;
        const FeaturePolicy f = features_of(features);
        if (policy_of(policy) == PortPolicy::kDevice) return loaded(rdma::load_device_program_file(path, &err, f), err);
        LoadOptions options;
        options.policy = PortPolicy::kV1Model;
        options.features = f;
        return loaded(Engine::load_file(path, options, &err), err);
      },
      py::arg("path"), py::arg("policy") = "device", py::arg("features") = "bmv2");
}
