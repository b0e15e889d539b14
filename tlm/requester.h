// The requester side of a PCIe function or root complex (PCIe r5.0 §2.2.6.2, §2.8): tag
// allocation, splitting of memory requests (writes at Max_Payload_Size, reads at
// Max_Read_Request_Size, never across a 4 KiB boundary), reassembly of split completions, and
// the completion timeout.
//
// Every non-posted request completes exactly once: with its data, with an error status, or by
// the requester's own timeout timer (profile parameter cpl_timeout_ps), which reports Timeout.
// A completion that arrives after its request timed out matches nothing and is dropped as an
// Unexpected Completion before it reaches here (the link's monitor).
//
// The requester is also the DMA seam of the fidelity choice (tlm/dma.h): in lt mode its memory
// reads and writes go through direct memory pointers the fabric grants, annotated with the
// time their TLPs would take and completed by its quantum keeper; config and raw requests, and
// memory accesses nothing grants, are TLPs in both modes.
#pragma once

#include <systemc>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tlm/dma.h"
#include "tlm/dmi_cache.h"
#include "tlm/port.h"
#include "tlm/quantum_keeper.h"
#include "tlm/sim_context.h"
#include "tlm/timed_queue.h"

namespace dpusim::pcie {

// How a request ended, as its requester sees it. The values of SC, UR, CRS and CA are the
// completion status codes.
enum class Outcome : int { SC = 0, UR = 1, CRS = 2, CA = 4, Timeout = 8 };
const char* outcome_name(Outcome o);

struct Result {
  Outcome outcome = Outcome::SC;
  std::vector<uint8_t> data;  // reads: the bytes requested (all-ones where they failed)
};

// Splits [addr, addr + len) into chunks that stay inside naturally aligned `limit`-byte blocks,
// which also keeps them off 4 KiB boundaries (limit divides 4096): fn(chunk address, length,
// offset in the range). A zero-length range is one zero-length chunk.
template <typename Fn>
void for_each_request_chunk(uint64_t addr, size_t len, unsigned limit, Fn fn) {
  if (len == 0) {
    fn(addr, size_t(0), size_t(0));
    return;
  }
  uint64_t cur = addr;
  const uint64_t end = addr + len;
  while (cur < end) {
    const uint64_t block_end = (cur / limit + 1) * limit;
    const uint64_t chunk_end = std::min<uint64_t>(end, block_end);
    fn(cur, size_t(chunk_end - cur), size_t(cur - addr));
    cur = chunk_end;
  }
}

class Requester : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(Requester);
  using Done = std::function<void(Result&&)>;

  // `send` transmits a TLP (normally the owner's port); `requester_id` gives the ID to put in
  // requests (a function's captured BDF); `checker_id` identifies it to the invariant checker.
  Requester(sc_core::sc_module_name name, SimContext& ctx, std::function<sc_core::sc_time(Tlp&)> send,
            std::function<uint16_t()> requester_id);

  // Limits, read when a request is split: bytes, powers of two from 128 to 4096.
  std::function<unsigned()> max_payload_size = [] { return 128u; };
  std::function<unsigned()> max_read_request_size = [] { return 512u; };
  // Tags available: 32 without Extended Tag, 256 with it.
  std::function<unsigned()> tag_count = [] { return 256u; };

  // Memory read of `len` bytes (1..): the result holds them.
  // `rid`: the Requester ID its TLPs carry, 0 for the owner's (requester_id). A function that
  // has no port of its own (an SR-IOV VF, PCIe r5.0 §9.1) issues its requests through its
  // PF's requester with its own ID (tlm/function_dma.h): the functions share the tag space,
  // so a tag names one outstanding request of one of them, and a completion must carry the
  // Requester ID of the request its tag names.
  void read(uint64_t addr, size_t len, Done done, uint16_t rid = 0);
  // Posted memory write; returns the time from now at which the last TLP has left the port (in
  // lt mode, would have: see tlm/dma.h). `rid` as for read.
  sc_core::sc_time write(uint64_t addr, const uint8_t* bytes, size_t len, uint16_t rid = 0);

  // ---- fidelity (tlm/dma.h) ----
  // How the owner asks the fabric for a direct memory pointer: the payload carries the address,
  // the command and a DmiRoute extension (normally the owner's Port::get_dmi). Unset: never.
  std::function<bool(tlm::tlm_generic_payload&, tlm::tlm_dmi&)> get_dmi;
  // How it sends a loosely timed posted write that no grant covers (an MSI): b_transport with
  // a TlpExtension, the delay annotated on the way (normally the owner's Port::transport).
  std::function<void(tlm::tlm_generic_payload&, sc_core::sc_time&)> transport;
  void set_fidelity(Fidelity f);
  Fidelity fidelity() const { return fidelity_; }
  // Drops the grants overlapping [start, end] (the backward path's invalidate_direct_mem_ptr).
  void invalidate_dmi(uint64_t start, uint64_t end) { dmi_.invalidate(start, end); }
  // The local time of the requester's device (its quantum keeper's), and how far it is ahead of
  // the kernel's: what a device doing lt work annotates its timed actions with.
  uint64_t local_ps() const { return keeper_.local_ps(); }
  sc_core::sc_time local_offset() const { return keeper_.offset(); }
  // In lt mode, a completion due within the quantum may run at once, nested in the code that
  // issued the access (its done() before read() returns), when the device's code allows it:
  // it issues nothing after an access that depends on the access not having completed.
  void allow_nested_completions(bool on) { keeper_.allow_nesting(on); }
  // The loosely timed coding style (IEEE 1666-2011 §11.1.2: blocking transport with timing
  // annotation) for a device that allows nested completions: in lt mode, when [addr, addr + len)
  // is served directly and the read's completion (*due_ps) would run now (runs_now), read_now
  // copies the bytes into `out` and returns true, and the caller continues at *due_ps with
  // run_now; otherwise it does nothing and returns false, and the caller uses read().
  // direct_due says the same without reading.
  bool read_now(uint64_t addr, size_t len, uint8_t* out, uint64_t* due_ps);
  bool direct_due(uint64_t addr, size_t len, uint64_t* due_ps);
  bool runs_now(uint64_t due_ps) const { return fidelity_ == Fidelity::Lt && keeper_.runs_now(due_ps); }
  template <typename Fn>
  void run_now(uint64_t due_ps, Fn&& fn) {
    keeper_.run_now(due_ps, std::forward<Fn>(fn));
  }
  // Runs `fn` at the device's local time + `delay`, through the quantum keeper (decoupled).
  void post_local(const sc_core::sc_time& delay, std::function<void()> fn) {
    keeper_.post(keeper_.local_ps() + delay.value(), std::move(fn));
  }
  // Accesses served directly (lt) since the start, for tests and benchmarks.
  uint64_t direct_reads() const { return direct_reads_; }
  uint64_t direct_writes() const { return direct_writes_; }
  // Config request (Type 0 or 1), one DW with byte enables.
  void config(bool write, bool type1, uint16_t target_id, uint16_t offset, uint8_t byte_enable,
              uint32_t value, Done done);
  // Any TLP as given (requester ID and tag filled in for non-posted ones). Non-posted requests
  // complete through `done`; posted ones call it at once with SC and no data.
  void raw(const tlp::Header& h, const uint8_t* bytes, size_t n, Done done);

  // The owner hands every completion it receives here.
  void on_completion(Tlp& t);

  unsigned outstanding() const { return outstanding_; }
  // The invariant checker's id of this requester (for completion timeouts), -1 if untracked.
  int checker_id = -1;
  uint32_t trace_outstanding = 0;  // traced in the VCD

 private:
  struct Op {
    Done done;
    Result result;
    size_t parts_left = 0;
    bool failed = false;
  };
  struct Part {
    uint64_t op;
    tlp::Header hdr;
    std::vector<uint8_t> payload;
    size_t offset = 0;    // where this part's bytes go in the op's result
    size_t len = 0;       // bytes this part reads
    size_t received = 0;
  };
  struct TagSlot {
    bool busy = false;
    Part part;
    uint64_t deadline_ps = 0;
  };

  bool read_direct(uint64_t addr, size_t len, Done& done);
  // Copies the DMI segments into `out` and counts and logs a direct read issued at `issued`.
  void take_direct(uint64_t addr, size_t len, uint8_t* out, uint64_t issued, uint64_t due);
  bool write_direct(uint64_t addr, const uint8_t* bytes, size_t len, sc_core::sc_time* sent);
  bool write_transport(uint64_t addr, const uint8_t* bytes, size_t len, sc_core::sc_time* sent, uint16_t rid);
  // When an access issued at local time `issued` gets onto the device's link in lt mode: after
  // the device's direct writes issued before it have left (egress_free_ps_). Decoupled chains
  // of one device run in the order they were posted, not always in time order: an access issued
  // earlier in simulated time than the last write was does not wait for that write.
  uint64_t egress_start(uint64_t issued) const {
    return issued >= egress_write_issued_ps_ ? std::max(issued, egress_free_ps_) : issued;
  }
  // lt: how long from now a TLP the device issues now waits to leave: until its local time, and
  // until its direct writes have left.
  sc_core::sc_time tlp_wait() const {
    return sc_core::sc_time::from_value(egress_start(keeper_.local_ps()) - ctx_.now_ps());
  }
  uint64_t new_op(Done done, size_t result_len);
  void submit(Part part);
  void issue(uint8_t tag);
  int alloc_tag();
  void finish_part(uint8_t tag, Outcome outcome);
  void finish_op(uint64_t op_id);
  void on_timeout();

  SimContext& ctx_;
  std::function<sc_core::sc_time(Tlp&)> send_;
  std::function<uint16_t()> requester_id_;
  std::vector<TagSlot> tags_;
  unsigned next_tag_ = 0;
  unsigned outstanding_ = 0;
  std::deque<Part> waiting_;  // parts waiting for a free tag, in issue order
  std::map<uint64_t, Op> ops_;  // live operations by id
  uint64_t next_op_ = 1;
  std::set<std::pair<uint64_t, uint8_t>> deadlines_;  // (deadline_ps, tag)
  sc_core::sc_event timeout_event_;

  Fidelity fidelity_ = Fidelity::Tlp;
  DmiCache dmi_{ctx_, get_dmi};
  QuantumKeeper keeper_;
  // lt: the local time at which the device's link has sent the last TLP of its direct writes.
  // A posted write occupies the link for its TLPs' serialisation, and whatever the device sends
  // next (a read request, another write, an MSI) queues behind it, as in tlp mode.
  uint64_t egress_free_ps_ = 0;
  uint64_t egress_write_issued_ps_ = 0;  // when the latest of those writes was issued
  TimedQueue sync_;  // TLP-path accesses of a device running ahead, issued at its local time
  uint64_t direct_reads_ = 0, direct_writes_ = 0;
  tlm::tlm_generic_payload transport_gp_;  // write_transport's, reused
  std::vector<uint8_t> transport_bytes_;
};

}  // namespace dpusim::pcie
