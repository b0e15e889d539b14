// The fidelity of an endpoint's DMA, chosen per device and per region of a run, the TLM-2.0 way
// (IEEE 1666-2011 §10.3 coding styles, §11.2 direct memory interface, §12.4 quantum keeper):
//
//  - tlp: every memory read and write of the requester is split into TLPs (MRd at
//    Max_Read_Request_Size, MWr at Max_Payload_Size) that cross every link and switch, are
//    timed there one by one (a busy link queues them), logged, fault-injected and checked;
//  - lt:  loosely timed. The requester asks the fabric for a direct memory pointer
//    (`get_direct_mem_ptr` through its port: each link and switch on the way appends itself to
//    the request's DmiRoute, the host grants a page of allocated memory), then reads and writes
//    host memory through it, and annotates each access with the time its TLPs would have taken
//    on an idle fabric, computed from the route (DmiRoute::read_ps, write_ps), once the
//    device's own earlier direct writes have left its link (Requester::egress_start).
//    Completions are delivered by a quantum keeper (tlm/quantum_keeper.h): temporally
//    decoupled by at most the quantum `lt.quantum_ps`.
//
// What lt gives up is listed in docs/fidelity.md (link contention between concurrent streams,
// TLP-level ordering and visibility, fault injection and the per-TLP invariants on DMA). Where
// no grant is given (the MSI window, memory a driver watches, a link that is down, an address
// outside host memory) the access takes the TLP path in either mode, so its effects (an MSI, a
// watched write, `dma_outside_memory`) are the same.
#pragma once

#include <systemc>
#include <tlm>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace dpusim::pcie {

class Link;
class SimContext;
class TimingParam;

enum class Fidelity : uint8_t { Tlp, Lt };
const char* fidelity_name(Fidelity f);
// "tlp" or "lt"; throws std::invalid_argument naming the value otherwise.
Fidelity parse_fidelity(const std::string& name);

// One hop between a requester and the memory a grant points into, as the hop described itself
// when the request passed it: a link (timed with its generation and width as they are at each
// access) or a switch (its traversal latency).
struct DmiHop {
  const Link* link = nullptr;
  const TimingParam* traversal = nullptr;
};

// The request for a direct memory pointer carries this extension through the fabric; the
// granting target fills in how it serves reads.
class DmiRoute : public tlm::tlm_extension<DmiRoute> {
 public:
  static constexpr size_t kMaxHops = 16;

  std::vector<DmiHop> hops;  // from the requester toward the target
  const TimingParam* read_latency = nullptr;  // the target's, from a request's arrival to its completions
  unsigned max_payload_size = 128;            // the target's completions are split at these
  unsigned read_completion_boundary = 64;

  tlm::tlm_extension_base* clone() const override { return new DmiRoute(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override { *this = static_cast<const DmiRoute&>(other); }

  // Picoseconds from issuing a read of [addr, addr + len) to its last completion byte arriving
  // at the requester, as the TLPs take them on an idle fabric: the requests split at `mrrs`
  // (never across 4 KiB), each serialised on every link (a link sends one TLP after another)
  // with the link's propagation delay and each switch's traversal, the target's read latency,
  // and the completions split at the target's Max_Payload_Size and Read Completion Boundary
  // coming back the same way.
  uint64_t read_ps(const SimContext& ctx, uint64_t addr, size_t len, unsigned mrrs) const;
  // A posted write split at `mps`: `sent` = picoseconds until its last TLP has left the first
  // link (what Requester::write returns), `landed` = until its last byte is in memory.
  struct WriteTimes {
    uint64_t sent = 0, landed = 0;
  };
  WriteTimes write_ps(const SimContext& ctx, uint64_t addr, size_t len, unsigned mps) const;
};

}  // namespace dpusim::pcie
