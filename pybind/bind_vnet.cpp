// `_dpusim.vnet`: what a scenario may ask of the virtio-net application's platform beyond the
// fabric: a line on the application's stdin, and read-only views for tests (a VQ's lifecycle
// state, the datapath counters, the reset-hold state). Drivers never use the views: they see
// the device through config space, MMIO and host memory only.
#include <pybind11/stl.h>

#include <nlohmann/json.hpp>

#include "module_registry.h"
#include "platform/platform.h"
#include "device/doc_error.h"
#include "vnet/lu/live_update.h"
#include "vnet/lu/lu_export.h"
#include "vnet/app/vnet_family.h"

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


py::dict export_dict(const dpusim::vnet::LuExport& e, size_t bytes) {
  py::dict d;
  d["bytes"] = bytes;
  d["state"] = e.state;
  d["populated_slots"] = e.populated_slots;
  d["presence_bitmap"] = e.presence_bitmap;
  d["base_mac"] = dpusim::vnet::mac_str(e.base_mac);
  py::list devices;
  for (const auto& r : e.devices) {
    py::dict x;
    x["magic"] = r.magic;
    x["vhca_id"] = r.vhca_id;
    x["mac"] = dpusim::vnet::mac_str(r.mac);
    x["mtu"] = r.mtu;
    x["features"] = r.features;
    x["max_qps"] = r.max_qps;
    x["active_qps"] = r.active_qps;
    x["queue_size"] = r.queue_size;
    x["mq"] = r.mq;
    x["blob_bytes"] = r.blob.size();
    py::list vqs;
    for (const auto& v : r.vqs) vqs.append(py::make_tuple(v.number, v.size, v.msix, v.enabled, v.desc, v.driver, v.device));
    x["vqs"] = vqs;
    devices.append(x);
  }
  d["devices"] = devices;
  return d;
}

// The live update: standbys, signals, fault points, the processes and the SHM segment.
void bind_vnet_live_update(py::module_& m) {
  m.def("start_standby", [](Platform& p, const std::string& options_json) {
    dpusim::vnet::VnetOptions o;
    try {
      o = dpusim::vnet::parse_vnet_options(nlohmann::json::parse(options_json), "options");
    } catch (const dpusim::platform::DocError& e) {
      throw py::value_error(e.what());
    }
    try {
      return vnet(p).app().lu().start_standby(o);
    } catch (const std::invalid_argument& e) {
      throw py::value_error(e.what());
    }
  }, "Starts a process of the application with these options (lu-mode standby) beside the running one; its pid.");
  m.def("signal", [](Platform& p, const std::string& name, unsigned pid) {
    try {
      return vnet(p).app().lu().signal(name, pid);
    } catch (const std::invalid_argument& e) {
      throw py::value_error(e.what());
    }
  }, "Sends a signal (SIGUSR1) to process `pid` (0: the one serving the host): handover, killed or ignored.");
  m.def("lu_fault", [](Platform& p, const std::string& point, const std::string& action, uint32_t value,
                       uint64_t skip, uint64_t count) {
    dpusim::vnet::LuFaultRule r;
    r.point = point;
    r.action = action;
    r.value = value;
    r.skip = skip;
    r.count = count;
    try {
      return vnet(p).app().lu().faults.add(r);
    } catch (const std::invalid_argument& e) {
      throw py::value_error(e.what());
    }
  });
  m.def("processes", [](Platform& p) {
    VnetInstance& v = vnet(p);
    py::list out;
    static const char* const modes[] = {"none", "active", "standby"};
    for (unsigned pid = 1; pid <= v.app().processes(); ++pid) {
      dpusim::vnet::AppProcess& proc = v.app().process(pid);
      py::dict d;
      d["pid"] = pid;
      d["mode"] = modes[static_cast<int>(proc.lu().mode())];
      d["state"] = dpusim::vnet::lu_state_name(proc.lu().state());
      d["alive"] = proc.lu().alive();
      d["serving"] = &v.app().primary() == &proc;
      out.append(d);
    }
    return out;
  });
  m.def("lu_shm", [](Platform& p) -> py::object {
    const auto& shm = vnet(p).app().lu().shm;
    if (!shm) return py::none();
    dpusim::vnet::LuExport e;
    std::string error;
    if (!dpusim::vnet::lu_export_read(*shm, e, &error)) throw py::value_error(error);
    return export_dict(e, shm->size());
  }, "The live update's SHM segment /vnet_live_update as the standby reads it, or None.");
}

// Read-only views for tests: the frame ledger, ACG credits, a VQ's state, the reset hold, the
// datapath counters, a VF's firmware state, the active queue pairs.
void bind_vnet_views(py::module_& m) {
  m.def("frames", [](Platform& p) {
    const auto& c = p.ctx().checker;
    py::dict d, drops;
    d["sent"] = c.frames_sent();
    d["received"] = c.frames_received();
    for (const auto& [reason, n] : c.frame_drops()) drops[py::str(reason)] = n;
    d["dropped"] = drops;
    d["in_flight"] = p.family()->frames_in_flight();
    return d;
  }, "The frame ledger so far: frames put on wires, received by endpoints, dropped by reason, in flight.");
  m.def("acg_credits", [](Platform& p) { return vnet(p).app().acg_credits(); });
  m.def("vq_state", [](Platform& p, unsigned ep, unsigned q) {
    VnetInstance& v = vnet(p);
    auto& e = v.endpoint(ep_arg(v, ep));
    if (q >= e.vqs().num_vqs()) throw py::value_error("no VQ " + std::to_string(q));
    return std::string(dpusim::vnet::vq_state_name(e.vqs().vq_state(q)));
  });
  m.def("reset_state", [](Platform& p, unsigned ep) {
    VnetInstance& v = vnet(p);
    return std::string(dpusim::vnet::reset_status_state_name(v.app().primary().state().devices[ep_arg(v, ep)]->reset_status_state));
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
    d["tx_gso_frames"] = c.tx_gso_frames;
    d["tx_segments"] = c.tx_segments;
    d["tx_csum_filled"] = c.tx_csum_filled;
    d["tx_offload_drops"] = c.tx_offload_drops;
    return d;
  });
  m.def("vf_state", [](Platform& p, unsigned ep, unsigned slot) {
    // One SR-IOV VF's firmware state (sriov.h): its slot, its engine's queues and counters.
    VnetInstance& v = vnet(p);
    dpusim::vnet::Sriov* s = v.app().primary().sriov();
    if (!s) throw py::value_error("the platform has no SR-IOV VFs (topology.options.total-vfs is not set)");
    if (ep_arg(v, ep) >= v.endpoints() || slot >= s->total_vfs())
      throw py::value_error("no VF " + std::to_string(slot) + " on ep" + std::to_string(ep) + " (total-vfs is " +
                            std::to_string(s->total_vfs()) + ")");
    const dpusim::vnet::VfSlot& vf = s->vf(ep * s->total_vfs() + slot);
    py::dict d;
    d["active"] = vf.active;
    d["rid"] = s->rid(vf);
    d["engine"] = bool(vf.engine);
    d["engine_started"] = vf.engine_started;
    d["vqs_created"] = vf.vqs_created;
    d["io_ctx_started"] = vf.io_ctx_started;
    d["engine_enabled"] = vf.engine_enabled;
    d["num_active_qps"] = vf.num_active_qps;
    d["doorbells_without_engine"] = vf.doorbells_without_engine;
    d["frames_dropped_at_destroy"] = vf.frames_dropped_at_destroy;
    d["rx_dropped_without_engine"] = vf.rx_dropped_without_engine;
    d["retired_tx"] = vf.retired_tx;
    d["retired_rx"] = vf.retired_rx;
    d["live_datapaths"] = s->live_datapaths(ep);
    if (vf.engine) {
      py::list states;
      for (unsigned q = 0; q < vf.engine->vqs().num_vqs(); ++q) states.append(dpusim::vnet::vq_state_name(vf.engine->vqs().vq_state(q)));
      d["vq_states"] = states;
      const auto& c = vf.engine->counters();
      d["tx_frames"] = c.tx_frames;
      d["rx_frames"] = c.rx_frames;
      d["rx_no_queue"] = c.rx_no_queue;
      d["rx_fifo_drops"] = c.rx_fifo_drops;
      d["kicks"] = c.kicks;
      d["kicks_ignored"] = c.kicks_ignored;
    }
    return d;
  }, py::arg("platform"), py::arg("ep"), py::arg("slot"));
  m.def("active_qps", [](Platform& p, unsigned ep) {
    VnetInstance& v = vnet(p);
    return v.app().primary().state().controllers[ep_arg(v, ep)].num_active_qps;
  });
}

}  // namespace

DPUSIM_PYBIND(vnet) {
  m.def("command", [](Platform& p, const std::string& line) {
    dpusim::vnet::AppProcess& proc = vnet(p).app().primary();
    const uint64_t id = proc.command(line);
    return py::make_tuple(id, proc.log().thread_path(dpusim::vnet::kMainThread));
  }, "A line on the stdin of the process serving the host: plug <i>, unplug <i>, speed <i> <mbps>. Returns the "
     "command's id and the path of its outcome, the event \"command\" with that id.");
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
  bind_vnet_live_update(m);
  bind_vnet_views(m);
}
