// `_dpusim.guest`: the C++ guest drivers (models/guest) as the Python drivers hand queues to
// them and feed them: a virtio-net or an ionic datapath taking over a device's data queues,
// frames in and out in batches, traffic runs with a source and a checker.
#include <pybind11/stl.h>

#include "guest/ionic_guest.h"
#include "guest/virtio_net_guest.h"
#include "module_registry.h"
#include "platform/platform.h"

namespace py = pybind11;
using dpusim::guest::DriverRing;
using dpusim::guest::GuestDatapath;
using dpusim::guest::GuestNet;
using dpusim::platform::Platform;

namespace {

template <typename Fn>
auto checked(Fn fn) {
  try {
    return fn();
  } catch (const std::invalid_argument& e) {
    throw py::value_error(e.what());
  } catch (const std::logic_error& e) {
    throw py::value_error(e.what());
  }
}

GuestDatapath& engine(Platform& p, uint64_t id) { return *checked([&] { return &p.guest_datapath(id); }); }
GuestNet& net_engine(Platform& p, uint64_t id) {
  auto* net = dynamic_cast<GuestNet*>(&engine(p, id));
  if (!net) throw py::value_error("C++ driver " + std::to_string(id) + " is not a virtio-net one");
  return *net;
}

// Attaches the driver `Driver` built from `spec` (models/guest: each device's own).
template <typename Driver, typename Spec>
uint64_t attach(Platform& p, Spec spec) {
  const std::string name = spec.name;
  return checked([&] {
    return p.attach_guest(name, [&](dpusim::pcie::SimContext& ctx, dpusim::host::RootComplex& host,
                                    dpusim::pcie::TimedQueue& timer, uint64_t id) {
      return std::make_unique<Driver>(ctx, host, timer, id, std::move(spec));
    });
  });
}

// An ionic queue from the Python driver: {"qid", "depth", "ring", "cq_ring", "head", "tail",
// "cq_tail", "done_color", "bufs": [...]}.
dpusim::guest::IonicGuestQueue ionic_queue_from(const py::dict& d) {
  dpusim::guest::IonicGuestQueue q;
  q.qid = d["qid"].cast<uint32_t>();
  q.depth = d["depth"].cast<uint16_t>();
  q.ring = d["ring"].cast<uint64_t>();
  q.cq_ring = d["cq_ring"].cast<uint64_t>();
  q.head = d["head"].cast<uint16_t>();
  q.tail = d["tail"].cast<uint16_t>();
  q.cq_tail = d["cq_tail"].cast<uint16_t>();
  q.done_color = d["done_color"].cast<bool>();
  q.bufs = d["bufs"].cast<std::vector<uint64_t>>();
  return q;
}

// A queue from the Python driver: {"index", "size", "desc", "avail", "used", "notify", "msi",
// "free": [...], "avail_idx", "last_used", "posted": [(head, [ids], token)]}.
dpusim::guest::GuestQueue queue_from(const py::dict& d) {
  dpusim::guest::GuestQueue q;
  q.index = d["index"].cast<uint16_t>();
  q.layout.size = d["size"].cast<uint16_t>();
  q.layout.desc = d["desc"].cast<uint64_t>();
  q.layout.avail = d["avail"].cast<uint64_t>();
  q.layout.used = d["used"].cast<uint64_t>();
  q.notify_addr = d["notify"].cast<uint64_t>();
  q.msi_data = d["msi"].cast<uint32_t>();
  q.state.free_ids = d["free"].cast<std::vector<uint16_t>>();
  q.state.avail_idx = d["avail_idx"].cast<uint16_t>();
  q.state.last_used = d["last_used"].cast<uint16_t>();
  for (auto item : d["posted"].cast<py::list>()) {
    auto t = item.cast<py::tuple>();
    q.state.posted.push_back(
        DriverRing::Posted{t[0].cast<uint16_t>(), t[1].cast<std::vector<uint16_t>>(), t[2].cast<uint64_t>()});
  }
  return q;
}

py::dict state_dict(const DriverRing::State& s) {
  py::dict d;
  d["free"] = s.free_ids;
  d["avail_idx"] = s.avail_idx;
  d["last_used"] = s.last_used;
  py::list posted;
  for (const auto& p : s.posted) posted.append(py::make_tuple(p.head, p.ids, p.token));
  d["posted"] = posted;
  return d;
}

dpusim::net::SizeDistribution sizes_from(const py::object& v) {
  if (py::isinstance<py::int_>(v)) return dpusim::net::SizeDistribution::fixed(v.cast<size_t>());
  auto seq = v.cast<py::sequence>();
  if (seq.size() == 2 && py::isinstance<py::int_>(seq[0]) && py::isinstance<py::int_>(seq[1]))
    return dpusim::net::SizeDistribution::uniform(seq[0].cast<size_t>(), seq[1].cast<size_t>());
  dpusim::net::SizeDistribution d;
  for (auto item : seq) {
    auto t = item.cast<py::sequence>();
    if (t.size() != 2) throw py::value_error("sizes: give a size, (min, max) or [(size, weight), ...]");
    d.weighted.emplace_back(t[0].cast<size_t>(), t[1].cast<uint64_t>());
  }
  return d;
}


}  // namespace

DPUSIM_PYBIND(guest) {
  m.attr("NOTE_TRAFFIC_DONE") = int(dpusim::guest::kTrafficDone);
  m.attr("NOTE_FRAMES_READY") = int(dpusim::guest::kFramesReady);
  m.attr("TX_SLOT_BYTES") = GuestNet::kTxSlotBytes;
  m.def("attach_net", [](Platform& p, const std::string& name, uint16_t requester, bool mrg, uint32_t rx_buf_len,
                         const py::list& qps) {
    dpusim::guest::GuestNetSpec spec;
    spec.name = name;
    spec.requester_id = requester;
    spec.mrg_rxbuf = mrg;
    spec.rx_buf_len = rx_buf_len;
    for (auto item : qps) {
      auto t = item.cast<py::tuple>();
      spec.qps.emplace_back(queue_from(t[0].cast<py::dict>()), queue_from(t[1].cast<py::dict>()));
    }
    return attach<GuestNet>(p, std::move(spec));
  });
  m.def("attach_ionic", [](Platform& p, const std::string& name, uint16_t requester, uint64_t doorbell_page,
                           uint64_t intr_ctrl, uint32_t rx_buf_len, const py::list& qps) {
    dpusim::guest::IonicGuestSpec spec;
    spec.name = name;
    spec.requester_id = requester;
    spec.doorbell_page = doorbell_page;
    spec.intr_ctrl = intr_ctrl;
    spec.rx_buf_len = rx_buf_len;
    for (auto item : qps) {
      auto d = item.cast<py::dict>();
      dpusim::guest::IonicGuestQueuePair qp;
      qp.tx = ionic_queue_from(d["tx"].cast<py::dict>());
      qp.rx = ionic_queue_from(d["rx"].cast<py::dict>());
      qp.msi_data = d["msi"].cast<uint32_t>();
      qp.intr = d["intr"].cast<unsigned>();
      spec.qps.push_back(std::move(qp));
    }
    return attach<dpusim::guest::IonicGuest>(p, std::move(spec));
  });
  m.def("send", [](Platform& p, uint64_t id, unsigned qp, const std::vector<py::bytes>& frames) {
    std::vector<std::vector<uint8_t>> f;
    f.reserve(frames.size());
    for (const py::bytes& b : frames) {
      std::string_view s(b);
      f.emplace_back(s.begin(), s.end());
    }
    checked([&] {
      engine(p, id).send(qp, std::move(f));
      return 0;
    });
  });
  m.def("notify_when_received", [](Platform& p, uint64_t id, uint64_t count) { engine(p, id).notify_when_received(count); });
  m.def("take", [](Platform& p, uint64_t id, size_t max) {
    py::list out;
    for (auto& [qp, bytes] : engine(p, id).take(max))
      out.append(py::make_tuple(qp, py::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size())));
    return out;
  });
  m.def("received_waiting", [](Platform& p, uint64_t id) { return engine(p, id).received_waiting(); });
  m.def("fill_rx", [](Platform& p, uint64_t id, unsigned qp, size_t count) {
    checked([&] {
      net_engine(p, id).fill_rx(qp, count);
      return 0;
    });
  });
  m.def("start_traffic", [](Platform& p, uint64_t id, uint64_t frames, const py::object& sizes, uint64_t rate_fps,
                            unsigned batch, const std::vector<unsigned>& qps, py::bytes dst, py::bytes src) {
    dpusim::guest::TrafficSpec t;
    t.frames = frames;
    t.rate_fps = rate_fps;
    t.batch = batch;
    t.qps = qps;
    const std::string d = dst, s = src;
    if (d.size() != 6 || s.size() != 6) throw py::value_error("MAC addresses are 6 bytes");
    std::copy(d.begin(), d.end(), t.dst);
    std::copy(s.begin(), s.end(), t.src);
    checked([&] {
      t.sizes = sizes_from(sizes);
      engine(p, id).start_traffic(t);
      return 0;
    });
  });
  m.def("traffic", [](Platform& p, uint64_t id) {
    const auto r = engine(p, id).traffic();
    py::dict d;
    d["running"] = r.running;
    d["done"] = r.done;
    d["frames"] = r.frames;
    d["sent"] = r.sent;
    d["bytes_sent"] = r.bytes_sent;
    d["received"] = r.received;
    d["good"] = r.checked.good;
    d["malformed"] = r.checked.malformed;
    d["corrupt"] = r.checked.corrupt;
    d["duplicate"] = r.checked.duplicate;
    d["reordered"] = r.checked.reordered;
    d["missing"] = r.missing;
    d["latency_min_ps"] = r.checked.latency_min_ps;
    d["latency_max_ps"] = r.checked.latency_max_ps;
    d["latency_mean_ps"] = r.checked.good ? r.checked.latency_sum_ps / r.checked.good : 0;
    d["first_problem"] = r.first_problem;
    d["start_ps"] = r.start_ps;
    d["end_ps"] = r.end_ps;
    return d;
  });
  m.def("states", [](Platform& p, uint64_t id) {
    py::list out;
    for (const auto& [rx, tx] : net_engine(p, id).states()) out.append(py::make_tuple(state_dict(rx), state_dict(tx)));
    return out;
  });
  m.def("detach", [](Platform& p, uint64_t id) { engine(p, id).detach(); });
  m.def("counts", [](Platform& p, uint64_t id) {
    auto& g = engine(p, id);
    return std::make_pair(g.tx_frames(), g.rx_frames());
  });
}
