// Submodule `_dpusim.rdma`: the ionic device's RDMA decision path for Python (wrapped by
// dpusim/rdma.py): a flat guest memory with its region table, and the path itself.
//
// Programs are loaded by `_dpusim.p4.load(json, "device")`, which loads as the device does
// (rdma::load_device_program); the path attaches to the engine that returns.
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "dpusim/p4/rdma/path.h"
#include "module_registry.h"

namespace py = pybind11;
using namespace dpusim::p4;
using namespace dpusim::p4::rdma;

namespace {

RegionOwner owner_of(const std::string& owner) {
  if (owner == "local") return RegionOwner::kLocal;
  if (owner == "peer") return RegionOwner::kPeer;
  throw py::value_error("owner must be 'local' or 'peer', not '" + owner + "'");
}

py::dict stats_dict(const RdmaStats& s) {
  py::dict d;
  d["work_requests"] = s.work_requests;
  d["runs"] = s.runs;
  d["dispatched"] = s.dispatched;
  d["denied"] = s.denied;
  d["done"] = s.done;
  d["failed"] = s.failed;
  d["declined"] = s.declined;
  return d;
}

}  // namespace

DPUSIM_PYBIND(rdma) {
  m.doc() = "The ionic device's RDMA decision path (see dpusim.rdma for the Python interface).";
  m.attr("MAX_OPERAND_BYTES") = P4_RDMA_MAX_OPERAND_BYTES;
  m.attr("DENY_LOG_LINES") = P4_RDMA_DENY_LOG_LINES;
  m.attr("DENY_LOG_WINDOW_PS") = P4_RDMA_DENY_LOG_WINDOW_PS;
  m.attr("MEMORY_MAX_BYTES") = FlatMemory::kMaxBytes;

  py::class_<FlatMemory, std::unique_ptr<FlatMemory>>(m, "Memory")
      .def(py::init([](std::uint64_t base, std::size_t size) {
             std::string error;
             auto mem = FlatMemory::create(base, size, &error);
             if (!mem) throw py::value_error(error);
             return mem;
           }),
           py::arg("base"), py::arg("size"))
      .def_property_readonly("base", &FlatMemory::base)
      .def_property_readonly("size", &FlatMemory::size)
      .def(
          "add_region",
          [](FlatMemory& mem, std::uint32_t key, std::uint64_t addr, std::uint64_t length, std::uint32_t access,
             const std::string& owner) {
            std::string error;
            if (!mem.add_region({key, owner_of(owner), access, addr, length}, &error)) throw py::value_error(error);
          },
          py::arg("key"), py::arg("addr"), py::arg("length"), py::arg("access"), py::arg("owner"))
      .def("remove_region", &FlatMemory::remove_region, py::arg("key"))
      .def("regions",
           [](const FlatMemory& mem) {
             py::list out;
             for (const auto& [key, r] : mem.regions())
               out.append(py::make_tuple(r.key, r.addr, r.length, r.access, r.owner == RegionOwner::kLocal ? "local" : "peer"));
             return out;
           })
      .def("write",
           [](FlatMemory& mem, std::uint64_t addr, const py::bytes& data) {
             std::string bytes = data;
             if (!mem.poke(addr, reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()))
               throw py::value_error("write of " + std::to_string(bytes.size()) + " bytes at " + std::to_string(addr) +
                                     " is outside the memory window");
           })
      .def("read", [](const FlatMemory& mem, std::uint64_t addr, std::size_t length) {
        if (length > mem.size()) throw py::value_error("read of " + std::to_string(length) + " bytes is larger than the memory window");
        std::string out(length, '\0');
        if (!mem.peek(addr, reinterpret_cast<std::uint8_t*>(out.data()), length))
          throw py::value_error("read of " + std::to_string(length) + " bytes at " + std::to_string(addr) +
                                " is outside the memory window");
        return py::bytes(out);
      });

  py::class_<RdmaPath>(m, "Path")
      .def(py::init([](py::object log) {
             LogSink sink;
             if (!log.is_none())
               sink = [log](std::uint64_t time_ps, const std::string& line) { log(time_ps, line); };
             return std::make_unique<RdmaPath>(std::move(sink));
           }),
           py::arg("log") = py::none())
      // (ok, code, message); the path keeps the engine alive while attached.
      .def(
          "attach",
          [](RdmaPath& path, Engine* engine) {
            LoadError error;
            if (path.attach(engine, &error)) return py::make_tuple(true, "", "");
            return py::make_tuple(false, load_code_name(error.code), error.message);
          },
          py::arg("engine").none(true), py::keep_alive<1, 2>())
      .def_property_readonly("has_rdma_program", &RdmaPath::has_rdma_program)
      // (action, status, status_name, reason, message)
      .def(
          "post_send",
          [](RdmaPath& path, std::uint8_t opcode, std::uint32_t qp_num, std::uint32_t length, std::uint32_t imm_data,
             std::uint32_t rkey, std::uint64_t remote_addr,
             const std::vector<std::tuple<std::uint64_t, std::uint32_t, std::uint32_t>>& sgl, std::uint64_t now_ps,
             FlatMemory& memory) {
            SendWr wr;
            wr.opcode = opcode;
            wr.qp_num = qp_num;
            wr.length = length;
            wr.imm_data = imm_data;
            wr.rkey = rkey;
            wr.remote_addr = remote_addr;
            for (const auto& [addr, len, lkey] : sgl) wr.sgl.push_back({addr, len, lkey});
            Decision d = path.post_send(wr, now_ps, memory);
            return py::make_tuple(action_name(d.action), static_cast<int>(d.status), wc_status_name(d.status),
                                  fail_reason_name(d.reason), d.message);
          },
          py::arg("opcode"), py::arg("qp_num"), py::arg("length"), py::arg("imm_data"), py::arg("rkey"),
          py::arg("remote_addr"), py::arg("sgl"), py::arg("now_ps"), py::arg("memory"))
      .def("flush_log", &RdmaPath::flush_log, py::arg("now_ps"))
      .def("denial_window_end_ps",
           [](const RdmaPath& path) -> py::object {
             std::uint64_t end = 0;
             if (!path.denial_window_end_ps(&end)) return py::none();
             return py::int_(end);
           })
      .def("stats", [](const RdmaPath& path) { return stats_dict(path.stats()); });
}
