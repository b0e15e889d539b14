// The mesh: message links between devices, the simulated counterpart of rocm-ernic's TCP mesh
// backend (src/from-qemu/hw/rdma/rdma_backend_tcp.c), which carries RDMA operations between
// emulator instances. The platform document names its members (`"mesh": ["ep0", "ep1"]`);
// every pair is joined by a timed link in each direction: a message occupies the link for its
// bytes at net.mesh.rate_mbps, after whatever it follows, and arrives net.mesh.latency_ps
// later. Messages are opaque bytes to the mesh; the sender names their kind ("SEND", "ACK"...)
// for the log and for fault rules.
//
// Every message is logged ("mesh_msg"). Fault rules match messages by source, destination
// and kind, and drop, delay or duplicate them (on the (skip+1)-th match, `count` times; 0 =
// every match), so a scenario reaches a timeout or a retry deterministically ("mesh_fault").
#pragma once

#include <systemc>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tlm/sim_context.h"
#include "tlm/timed_queue.h"

namespace dpusim::net {

class Mesh;

// A member of the mesh: a device's mesh port.
class MeshEnd {
 public:
  virtual ~MeshEnd() = default;
  // A message from node `src` arrived (at its last byte's arrival time).
  virtual void mesh_arrived(unsigned src, std::vector<uint8_t> bytes) = 0;
  // The name the log uses ("ep0").
  virtual std::string mesh_name() const = 0;
  // The address the member answers to on the mesh (a RoCE GID: rocm-ernic's NODE_GIDS).
  virtual std::array<uint8_t, 16> mesh_gid() const = 0;

  Mesh* mesh = nullptr;  // set when the mesh is built
  unsigned node = 0;     // this member's node number: its position in the document's list
};

enum class MeshFaultAction { Drop, Delay, Duplicate };

struct MeshFault {
  MeshFaultAction action = MeshFaultAction::Drop;
  std::optional<unsigned> src, dst;
  std::optional<std::string> kind;
  uint64_t delay_ps = 0;
  uint64_t skip = 0, count = 1;
  uint64_t id = 0, seen = 0, fired = 0;
};

class Mesh : public sc_core::sc_module {
 public:
  Mesh(sc_core::sc_module_name name, pcie::SimContext& ctx, std::vector<MeshEnd*> members);

  unsigned nodes() const { return unsigned(members_.size()); }
  const MeshEnd& member(unsigned node) const { return *members_[node]; }
  // Sends `bytes` from node `src` to node `dst`, `delay` from now (a temporally decoupled
  // sender's offset: its local time is ahead of the kernel's); returns the message's id (0 when
  // dst is not a member or is src: nothing is sent).
  uint64_t send(unsigned src, unsigned dst, const std::string& kind, std::vector<uint8_t> bytes,
                const sc_core::sc_time& delay = sc_core::SC_ZERO_TIME);
  uint64_t add_fault(MeshFault rule);
  void remove_fault(uint64_t id);
  uint64_t in_flight() const { return in_flight_; }

 private:
  void deliver(unsigned src, unsigned dst, const std::string& kind, std::vector<uint8_t> bytes, uint64_t id,
               const sc_core::sc_time& delay, uint64_t extra_ps);
  pcie::SimContext& ctx_;
  std::vector<MeshEnd*> members_;
  std::vector<sc_core::sc_time> busy_until_;  // per directed pair: src * nodes + dst
  std::vector<MeshFault> faults_;
  uint64_t next_fault_ = 1;
  uint64_t in_flight_ = 0;
  pcie::TimedQueue later_;
};

}  // namespace dpusim::net
