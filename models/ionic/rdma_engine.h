// The ionic NIC's RDMA side as rocm-ernic presents it to a guest running ionic_rdma.ko and
// rdma-core's ionic provider (src/ionic_rdma_devcmd.c, ionic_adminq.c, ionic_datapath.c):
//
//  - device commands 50-53 (rdma_devcmd.cpp): RESET_LIF clears the EQs, the pending CQ and the
//    admin queues; CREATE_EQ records up to 32 EQs (producer 0, colour 1); CREATE_CQ is held
//    pending and the next CREATE_ADMINQ takes it (none pending, or a fifth admin queue: status
//    1).
//  - the CQs and EQs (rdma_completions.h, an object of its own): CQEs, EQEs before their
//    interrupt, arming, the send-side completion rules.
//  - the RDMA admin queues (rdma_admin.h, an object of its own).
//  - QPs of type RC, UC and UD (qpid 1 always GSI) with their SQ and RQ rings, MODIFY_QP with
//    the RoCE header template, QUERY_QP into the driver's two buffers; MRs direct or by page
//    table, lkey 0 for bus addresses (rdma_resources.h, created by the admin queues).
//  - the requester (rdma_requester.h, an object of its own): SQ doorbells (qtype 6), work
//    requests SEND, SEND_IMM, SEND_INV, RDMA_WRITE, RDMA_WRITE_IMM, RDMA_READ, ATOMIC_CS,
//    ATOMIC_FA, REG_MR and LOCAL_INV with rocm-ernic's completion rules, every byte moved by
//    DMA through the function's requester. With a P4 program that declares rdma_metadata
//    loaded, every send work request runs the RDMA decision path (p4/rdma) after its own memory
//    checks and before dispatch. Its fp8 unit is the C++ codec, or with `fp8-impl` rtl the
//    verilated RTL unit (models/rtl, docs/cosim.md): then the decisions run one at a time, in
//    order, on a SystemC thread, which waits the unit's cycles, so a reduction completes that
//    much later. A QP whose destination is another node sends its operations on the mesh
//    (rocm-ernic's IONC wire header, rdma_wire.h); the completion waits for the ACK or
//    response, RETRY_EXCEEDED after 30 s, at most 1024 pending.
//  - the responder (rdma_responder.h, an object of its own): RQ doorbells (qtype 7) advance
//    the receive producer by the 16-bit delta; messages land in posted receives; a peer's
//    requests are served in order per destination QP, a SEND that finds no posted receive
//    waiting up to 5 s, then RNR_RETRY_EXCEEDED; responses are never held behind requests.
//
// This class joins them: the devcmds, the doorbell dispatch, the mesh port, the P4 path's
// program and fp8 unit (rdma_devcmd.cpp).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dpusim/p4/rdma/path.h"
#include "ionic/devcmd.h"
#include "ionic/dma_io.h"
#include "ionic/intr_ctrl.h"
#include "ionic/rdma_admin.h"
#include "ionic/rdma_requester.h"
#include "ionic/rdma_responder.h"
#include "ionic/rdma_completions.h"
#include "ionic/rdma_decode.h"
#include "ionic/rdma_mem.h"
#include "ionic/rdma_resources.h"
#include "net/mesh.h"
#include "tlm/endpoint_base.h"
#include "tlm/requester.h"
#include "tlm/sim_context.h"

namespace dpusim::ionic {

class RdmaEngine : public net::MeshEnd {
 public:
  struct Env {
    pcie::SimContext& ctx;
    std::string path;          // the NIC's component path ("ep0")
    pcie::EndpointBase& device;  // the NIC: its DMA requester, its own time (after, at_local_time)
    IntrCtrl& intr;
    std::array<uint8_t, 16> gid;  // this NIC's GID (its IPv4 address, ::ffff:a.b.c.d)
  };
  explicit RdmaEngine(Env env);
  ~RdmaEngine() override;

  // Devcmds 50-53, on either path: the completion (status 0, or 1 on a refusal).
  Comp devcmd(const uint8_t* cmd);
  // A doorbell of qtype 5..9.
  void doorbell(const Doorbell& db);
  // The NIC's P4 program (null: none); called again after every replacement.
  void attach_program(p4::Engine* engine);
  // The fp8 unit's implementation by name (rtl/fp8_impl.h: cpp, the default, or rtl); during
  // elaboration. False with *error naming the problem.
  bool set_fp8_impl(const std::string& impl, std::string* error);
  // The fp8 unit's conversion chunk (p4/rdma path.h, P4_RDMA_CONVERT_CHUNK_BYTES); during
  // elaboration. False with *error naming the value and the rule.
  bool set_fp8_chunk_bytes(size_t bytes, std::string* error);

  // The mesh port: an answer goes to the requester, a request to the responder.
  void mesh_arrived(unsigned src, std::vector<uint8_t> bytes) override;
  std::string mesh_name() const override { return env_.path; }
  std::array<uint8_t, 16> mesh_gid() const override { return env_.gid; }

  struct Counters {
    uint64_t admin_cmds = 0, wqes = 0, cqes = 0, eqes = 0, bytes_moved = 0, denied = 0;
  };
  Counters counters() const;
  // Remote requests awaiting their answer (VCD).
  const uint32_t& trace_pending() const { return requester_.trace_pending; }
  void flush_log();

 private:
  // The mesh node a GID belongs to (this node's own included); UINT32_MAX without a mesh.
  bool node_of(const std::array<uint8_t, 16>& gid, uint32_t* node) const;
  // Whether the QP's destination is another node of the mesh.
  bool remote(const RdmaQp& qp) const;
  void send(unsigned dst, const char* kind, std::vector<uint8_t> msg);

  Env env_;
  EndpointIo io_;       // the NIC's DMA and time, for the parts that take a DeviceIo
  RdmaCompletions cq_;  // the CQs and EQs
  RdmaResources res_;   // QPs, address handles, memory regions
  RdmaAdmin admin_;     // the admin queues
  std::unique_ptr<p4::rdma::RdmaPath> path_;
  // fp8-impl rtl: the unit.
  std::unique_ptr<p4::rdma::Fp8Backend> fp8_;
  RdmaResponder responder_;  // receives, and the requests of peers
  RdmaRequester requester_;  // the send queues
};

}  // namespace dpusim::ionic
