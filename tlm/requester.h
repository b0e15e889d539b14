// The requester side of a PCIe function or root complex (PCIe r5.0 §2.2.6.2, §2.8): tag
// allocation, splitting of memory requests (writes at Max_Payload_Size, reads at
// Max_Read_Request_Size, never across a 4 KiB boundary), reassembly of split completions, and
// the completion timeout.
//
// Every non-posted request completes exactly once: with its data, with an error status, or by
// the requester's own timeout timer (profile parameter cpl_timeout_ps), which reports Timeout.
// A completion that arrives after its request timed out matches nothing and is dropped as an
// Unexpected Completion before it reaches here (the link's monitor).
#pragma once

#include <systemc>

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tlm/port.h"
#include "tlm/sim_context.h"

namespace dpusim::pcie {

// How a request ended, as its requester sees it. The values of SC, UR, CRS and CA are the
// completion status codes.
enum class Outcome : int { SC = 0, UR = 1, CRS = 2, CA = 4, Timeout = 8 };
const char* outcome_name(Outcome o);

struct Result {
  Outcome outcome = Outcome::SC;
  std::vector<uint8_t> data;  // reads: the bytes requested (all-ones where they failed)
};

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
  void read(uint64_t addr, size_t len, Done done);
  // Posted memory write; returns the time from now at which the last TLP has left the port.
  sc_core::sc_time write(uint64_t addr, const uint8_t* bytes, size_t len);
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
};

}  // namespace dpusim::pcie
