#include "net/mesh.h"

#include <algorithm>

#include "net/net_timing.h"

namespace dpusim::net {

using namespace sc_core;

namespace {
// Every message on the mesh: what `--log summary` leaves out (tlm/log_filter.h).
const pcie::EventCategory kMeshCategory("mesh", false, "every message between mesh members (event mesh_msg)");
const pcie::EventKind kMeshMsg("mesh_msg", kMeshCategory);
}  // namespace

Mesh::Mesh(sc_module_name name, pcie::SimContext& ctx, std::vector<MeshEnd*> members)
    : sc_module(name), ctx_(ctx), members_(std::move(members)), later_("later") {
  busy_until_.assign(members_.size() * members_.size(), SC_ZERO_TIME);
  for (unsigned i = 0; i < members_.size(); ++i) {
    members_[i]->mesh = this;
    members_[i]->node = i;
  }
}

uint64_t Mesh::add_fault(MeshFault rule) {
  rule.id = next_fault_++;
  faults_.push_back(std::move(rule));
  return faults_.back().id;
}

void Mesh::remove_fault(uint64_t id) {
  faults_.erase(std::remove_if(faults_.begin(), faults_.end(), [id](const MeshFault& f) { return f.id == id; }),
                faults_.end());
}

uint64_t Mesh::send(unsigned src, unsigned dst, const std::string& kind, std::vector<uint8_t> bytes,
                    const sc_time& delay) {
  if (src >= members_.size() || dst >= members_.size() || src == dst) return 0;
  const uint64_t id = ctx_.pool.next_serial();
  for (MeshFault& f : faults_) {
    if ((f.src && *f.src != src) || (f.dst && *f.dst != dst) || (f.kind && *f.kind != kind)) continue;
    if (f.seen++ < f.skip || (f.count && f.fired >= f.count)) continue;
    ++f.fired;
    const char* action = f.action == MeshFaultAction::Drop ? "drop" : f.action == MeshFaultAction::Delay ? "delay" : "duplicate";
    ctx_.event(name(), "mesh_fault").str("action", action).u64("msg", id).str("kind", kind)
        .str("from", members_[src]->mesh_name()).str("to", members_[dst]->mesh_name()).u64("rule", f.id);
    if (f.action == MeshFaultAction::Drop) return id;
    if (f.action == MeshFaultAction::Duplicate) deliver(src, dst, kind, bytes, id, delay, 0);
    deliver(src, dst, kind, std::move(bytes), id, delay, f.action == MeshFaultAction::Delay ? f.delay_ps : 0);
    return id;
  }
  deliver(src, dst, kind, std::move(bytes), id, delay, 0);
  return id;
}

void Mesh::deliver(unsigned src, unsigned dst, const std::string& kind, std::vector<uint8_t> bytes, uint64_t id,
                   const sc_time& delay, uint64_t extra_ps) {
  const sc_time now = sc_time_stamp();
  sc_time& busy = busy_until_[src * members_.size() + dst];
  const uint64_t mbps = ctx_.timing.get(timing::mesh_rate_mbps);
  const uint64_t ser = (uint64_t(bytes.size()) * 8 * 1000000 + mbps - 1) / mbps;
  const sc_time start = std::max(now + delay, busy);
  const sc_time end = start + sc_time::from_value(ser);
  busy = end;
  const sc_time arrive = end + ctx_.ps(timing::mesh_latency_ps) + sc_time::from_value(extra_ps);
  ctx_.event(name(), kMeshMsg).u64("msg", id).str("kind", kind).str("from", members_[src]->mesh_name())
      .str("to", members_[dst]->mesh_name()).u64("len", bytes.size()).u64("tx_ps", start.value())
      .u64("rx_ps", arrive.value());
  ++in_flight_;
  later_.at(arrive - now, [this, src, dst, bytes = std::move(bytes)]() mutable {
    --in_flight_;
    members_[dst]->mesh_arrived(src, std::move(bytes));
  });
}

}  // namespace dpusim::net
