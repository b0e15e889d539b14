// `_dpusim.vnet`: what a scenario may ask of the virtio-net application's platform beyond the
// fabric: a line on the application's stdin, and read-only views for tests (a VQ's lifecycle
// state, the datapath counters, the reset-hold state). Drivers never use the views: they see
// the device through config space, MMIO and host memory only.
#include <pybind11/stl.h>

#include "module_registry.h"
#include "platform/platform.h"
#include "vnet/vnet_family.h"

namespace py = pybind11;
using dpusim::platform::Platform;
using dpusim::vnet::VnetInstance;

namespace {

VnetInstance& vnet(Platform& p) {
  auto* v = dynamic_cast<VnetInstance*>(p.family());
  if (!v) throw py::value_error("the platform has no vnet device family");
  return *v;
}

unsigned ep_arg(VnetInstance& v, unsigned ep) {
  if (ep >= v.endpoints()) throw py::value_error("no endpoint " + std::to_string(ep));
  return ep;
}

}  // namespace

DPUSIM_PYBIND(vnet) {
  m.def("command", [](Platform& p, const std::string& line) { return vnet(p).app().command(line); },
        "A line on the application's stdin: plug <i>, unplug <i>, speed <i> <mbps>. Returns the command's id; "
        "its outcome is the event \"command\" with that id.");
  m.def("acg_credits", [](Platform& p) { return vnet(p).app().acg_credits(); });
  m.def("vq_state", [](Platform& p, unsigned ep, unsigned q) {
    VnetInstance& v = vnet(p);
    auto& e = v.endpoint(ep_arg(v, ep));
    if (q >= e.num_vqs()) throw py::value_error("no VQ " + std::to_string(q));
    return std::string(dpusim::vnet::vq_state_name(e.vq_state(q)));
  });
  m.def("reset_state", [](Platform& p, unsigned ep) {
    VnetInstance& v = vnet(p);
    return std::string(dpusim::vnet::reset_status_state_name(v.app().device(ep_arg(v, ep)).reset_status_state));
  });
  m.def("counters", [](Platform& p, unsigned ep) {
    VnetInstance& v = vnet(p);
    const auto& c = v.endpoint(ep_arg(v, ep)).counters();
    py::dict d;
    d["tx_frames"] = c.tx_frames;
    d["rx_frames"] = c.rx_frames;
    d["rx_fifo_drops"] = c.rx_fifo_drops;
    d["rx_too_big"] = c.rx_too_big;
    d["rx_no_queue"] = c.rx_no_queue;
    d["tx_dropped"] = c.tx_dropped;
    d["kicks"] = c.kicks;
    d["kicks_ignored"] = c.kicks_ignored;
    return d;
  });
  m.def("submit_work", [](Platform& p, const std::string& type, int ep, uint32_t arg, uint32_t arg2) {
    VnetInstance& v = vnet(p);
    for (unsigned t = 0; t < dpusim::vnet::kWorkTypes; ++t) {
      const auto wt = static_cast<dpusim::vnet::WorkType>(t);
      if (type == dpusim::vnet::work_type_name(wt)) {
        if (ep >= int(v.endpoints())) throw py::value_error("no endpoint " + std::to_string(ep));
        return v.app().submit_work(wt, ep, arg, arg2);
      }
    }
    throw py::value_error("unknown work type '" + type + "'");
  }, py::arg("platform"), py::arg("type"), py::arg("ep") = -1, py::arg("arg") = 0, py::arg("arg2") = 0);
  m.def("active_qps", [](Platform& p, unsigned ep) {
    VnetInstance& v = vnet(p);
    return v.app().controller(ep_arg(v, ep)).num_active_qps;
  });
}
