// The guest's P4 control surface (P4 engine guide, "The guest's control surface", "The
// capability bit", "Security"): device commands 70 (IDENTIFY), 71 (RPC) and 72 (QUERY) on
// the BAR0 devcmd window and the Ethernet admin queue, in the format of p4ctl_wire.h.
//
// What the guest may do is the operator's grant (the slot's p4-guest-scope): none < read <
// write < load. With none the surface is not registered at all (70-72 are unknown opcodes and
// LIF_IDENTIFY does not advertise IONIC_LIF_CAP_P4). Each operation declares the scope it
// needs, QUERY lists the operations within the grant with their scopes, and an RPC is refused
// with IONIC_RC_EPERM when the operation is unknown or needs more than the operator granted
// (checked first, so probing cannot tell the two apart) or more than the caller claims.
// Operations:
//   read_counters (read)    the engine's and the device's counters, as a list;
//   table_update (write)    a JSON list of P4Runtime-shaped update records, applied in order
//                           through Engine::update, the first refusal stopping the list;
//   program_chunk (load)    part of a replacement program; offset 0 starts a new upload;
//   program_commit (load)   loads the upload as the device loads a program (the slot's
//                           feature policy, p4-features: rocm-ernic's by default) and, if the
//                           loader takes it, replaces the running one. A partial or refused
//                           upload leaves the old program running; the refusal's status, its
//                           response and its log line name what was refused. A replacement discards the old
//                           program's table entries (the new one starts with its own const
//                           entries) and keeps the counters.
// Buffers are read and written by DMA through the NIC's requester. Every refusal writes a
// warning line to the log, at most 10 in 5 s of simulated time, then a line counting the
// rest (the RDMA denial log's limiter, dpusim/p4/rdma/deny_log.h).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "dpusim/p4/rdma/deny_log.h"
#include "ionic/ionic_if.h"
#include "ionic/p4_attachment.h"
#include "ionic/p4ctl_wire.h"
#include "tlm/endpoint_base.h"
#include "tlm/sim_context.h"

namespace dpusim::ionic {

class P4Surface {
 public:
  // `device` is the NIC: its requester moves the buffers, its own time (EndpointBase::after)
  // times the program load. `on_replaced` runs after the running program was replaced (the
  // RDMA path re-attaches).
  // A program the guest loads is held to `features`, the slot's feature policy (p4-features).
  P4Surface(pcie::SimContext& ctx, std::string path, P4Scope grant, p4::FeaturePolicy features, P4Attachment& p4,
            pcie::EndpointBase& device);

  bool registered() const { return grant_ != P4Scope::kNone; }
  P4Scope grant() const { return grant_; }
  std::function<void()> on_replaced;

  // Executes command 70, 71 or 72 (`cmd`, 64 bytes); `done` gets the completion (status,
  // and for RPC err and resp_sz; comp_index and colour are the caller's).
  void execute(const uint8_t* cmd, std::function<void(Comp)> done);

  uint64_t refusals() const { return refusals_; }
  // Ends the refusal log's window if it is over (the end of the run).
  void flush_log() { log_.flush(ctx_.local_ps()); }

 private:
  using Done = std::function<void(Comp)>;
  void identify(const uint8_t* cmd, Done done);
  void query(const uint8_t* cmd, Done done);
  void rpc(const uint8_t* cmd, Done done);
  void run_op(const P4RpcCmd& c, const P4CtlOperation& op, std::string request, Done done);
  void read_counters(const P4RpcCmd& c, Done done);
  void table_update(const P4RpcCmd& c, const std::string& request, Done done);
  void program_chunk(const P4RpcCmd& c, const std::string& request, Done done);
  void program_commit(const P4RpcCmd& c, const std::string& request, Done done);
  // Writes `resp` (up to the buffer) and completes with the status, err and resp_sz.
  void respond(const P4RpcCmd& c, uint8_t status, uint32_t err, const std::vector<uint8_t>& resp, Done done);
  // A refusal: logged (rate-limited), completed with `status`.
  void refuse(uint8_t opcode, uint8_t status, const std::string& why, Done done, uint32_t err = 0,
              const P4RpcCmd* c = nullptr, const std::string& resp_text = "");
  void write_guest(uint64_t addr, const std::vector<uint8_t>& bytes, uint32_t capacity);

  pcie::SimContext& ctx_;
  std::string path_;
  P4Scope grant_;
  p4::FeaturePolicy features_;
  P4Attachment& p4_;
  pcie::EndpointBase& device_;
  pcie::Requester& dma_;
  p4::rdma::DenyLog log_;
  uint64_t refusals_ = 0;
  // The program being uploaded.
  std::string upload_;
  uint32_t upload_total_ = 0;
};

}  // namespace dpusim::ionic
