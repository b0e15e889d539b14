// The RDMA decision path of the ionic device: a loaded RDMA program's say over each send work
// request, and the fp8 unit it may hand the request to (P4 engine guide, "Status", "Converting
// between formats", "Security"; docs/rdma.md).
//
// The device calls post_send() for every send work request, after checking the request's own
// gather list and before dispatching it, with the current simulated time and its memory. The
// program runs over metadata alone (rdma_metadata, program.h); nothing is parsed or deparsed.
// The answer is one of four:
//   kDispatch  as usual, as with no program. Always the answer without an RDMA program.
//   kDeny      the program dropped it: nothing is transferred, and it completes with
//              IBV_WC_LOC_QP_OP_ERR whether or not it was signalled. Logged, rate-limited.
//   kDone      the fp8 unit did it (the program called the extern and dropped the request):
//              it completes successfully (if signalled).
//   kFail      the operation failed with `status` (always completed): IBV_WC_LOC_PROT_ERR for
//              an unregistered key or a range outside its region, IBV_WC_LOC_LEN_ERR for an
//              operand over P4_RDMA_MAX_OPERAND_BYTES, IBV_WC_LOC_QP_OP_ERR for a peer's rkey
//              and for an extern call without mark_to_drop (and the rest in docs/rdma.md).
//
// The operand convention is the architecture's, never a table entry's: an RDMA write
// (IONIC_V1_OP_RDMA_WRITE) whose gather list is two equal-length entries is a reduction
// (fp8_unit.apply: dst = sge[0] op sge[1]); one entry is a conversion (fp8_unit.cvt); the
// work request's rkey and remote address are the destination. All three regions are local.
// Any other shape is declined: the pipeline stops at the call and the request dispatches as
// with no program, unless mark_to_drop ran before the call (then it is denied). Sources are
// staged whole before anything is written, so a destination that aliases a source (in-place
// a += b, in-place conversion, through the same key or two keys over the same bytes) gives the
// exact result; only the result's bytes are written, and nothing on failure. The arithmetic is
// the path's Fp8Backend: the C++ codec by default, or another implementation of the same unit
// (set_fp8_backend; the verilated RTL of models/rtl is one).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "dpusim/p4/engine.h"
#include "dpusim/p4/rdma/deny_log.h"
#include "dpusim/p4/rdma/memory.h"
#include "dpusim/p4/rdma/program.h"
#include "dpusim/p4/rdma/verbs.h"

namespace dpusim::p4::rdma {

// Each operand of the fp8 unit, and its result, is at most this long.
inline constexpr std::size_t P4_RDMA_MAX_OPERAND_BYTES = 1u << 20;  // 1 MiB
// The fp8 unit streams a conversion this many source bytes at a time (read, convert, write).
// The guide does not give the device's chunk; one 4 KiB page is the default, and any multiple
// of 8 bytes (whole elements of every format) up to the operand ceiling may be set.
inline constexpr std::size_t P4_RDMA_CONVERT_CHUNK_BYTES = 4096;

// One entry of a gather list (ionic SGE: va, len, lkey).
struct Sge {
  std::uint64_t addr = 0;
  std::uint32_t length = 0;
  std::uint32_t lkey = 0;
};

// A send work request as the ionic send queue carries it.
struct SendWr {
  std::uint8_t opcode = IONIC_V1_OP_SEND;  // enum ionic_v1_op
  std::uint32_t qp_num = 0;                // 24 bits
  std::uint32_t length = 0;                // as the driver wrote it: the gather list's sum
  std::uint32_t imm_data = 0;
  std::uint32_t rkey = 0;
  std::uint64_t remote_addr = 0;
  std::vector<Sge> sgl;
};

enum class Action : std::uint8_t { kDispatch, kDeny, kDone, kFail };

// Why an operation failed; the names (fail_reason_name) are stable.
enum class FailReason : std::uint8_t {
  kNone,
  kUnregisteredKey,  // PROT: an lkey or the rkey is not registered
  kNotLocalKey,      // PROT: an lkey belongs to a peer node
  kOutOfRegion,      // PROT: a range outside its key's region
  kNoRemoteWrite,    // PROT: the rkey's region was not registered with IB_ACCESS_REMOTE_WRITE
  kDmaError,         // PROT: the memory behind a checked region failed a DMA
  kOperandTooLong,   // LEN: an operand or the result over P4_RDMA_MAX_OPERAND_BYTES
  kPartialElement,   // LEN: an operand that is not a whole number of elements
  kOddFp4Count,      // LEN: an odd number of fp4_e2m1 elements
  kPeerRkey,         // QP_OP: the rkey belongs to a peer node
  kUnknownOp,        // QP_OP: the table entry's op is not 0..4
  kUnknownFormat,    // QP_OP: a table entry's format is not 0..5
  kNoMarkToDrop,     // QP_OP: the extern did the operation but the program did not drop it
  kSecondCall,       // QP_OP: the extern was called again after doing the operation
  kProgramFault,     // QP_OP: a runtime fault in the program
  kBadQpNum,         // QP_OP: a QP number wider than 24 bits (the caller's bug)
};

struct Decision {
  Action action = Action::kDispatch;
  WcStatus status = WcStatus::IBV_WC_SUCCESS;
  FailReason reason = FailReason::kNone;
  std::string message;  // kFail: names the object, the field, the value and the limit
  // When the fp8 unit computed a result (kDone, or a failure found after it had, such as
  // no_mark_to_drop): the clock cycles and simulated time its backend took (fp8_backend.h);
  // 0 with the C++ codec, which models no time. The device completes the request that much
  // later than it decided it.
  std::uint64_t fp8_cycles = 0;
  std::uint64_t fp8_busy_ps = 0;
  // Whether the device writes a completion for the request: a denial and a failure always
  // (error completions ignore signalling), kDone only when signalled; kDispatch leaves it to
  // the ordinary path (the answer here is the signalled flag).
  bool completes(bool signaled) const {
    return action == Action::kDeny || action == Action::kFail || signaled;
  }
};

const char* action_name(Action action);            // "dispatch", "deny", "done", "fail"
const char* fail_reason_name(FailReason reason);   // "unregistered_key", ...

struct RdmaStats {
  std::uint64_t work_requests = 0;  // post_send calls
  std::uint64_t runs = 0;           // ... that ran an RDMA program
  std::uint64_t dispatched = 0;
  std::uint64_t denied = 0;
  std::uint64_t done = 0;
  std::uint64_t failed = 0;
  std::uint64_t declined = 0;       // extern calls declined (the request was not compute-shaped)
};

class Fp8Backend;     // computes the fp8 unit's staged operations (fp8_backend.h)
struct Fp8Operation;  // the per-request state the fp8 unit works in (src/fp8_operation.h)

class RdmaPath {
 public:
  // `sink` receives the denial log's lines (deny_log.h) with their simulated time; may be empty.
  explicit RdmaPath(LogSink sink = {});
  ~RdmaPath();
  RdmaPath(const RdmaPath&) = delete;
  RdmaPath& operator=(const RdmaPath&) = delete;

  // The device's loaded program (null: none), which must outlive its attachment. An Ethernet
  // program is accepted and leaves the path as if none were attached. Refused, leaving no
  // program attached: an engine whose rdma_metadata breaks the rules (program.h), and one
  // loaded with an extern registry other than device_externs() (extern_registry), whose
  // methods would be handed this path's state.
  bool attach(Engine* engine, LoadError* error);
  // What computes the fp8 unit's staged operations (fp8_backend.h); null restores the C++
  // codec. The backend must outlive the path or be replaced first.
  void set_fp8_backend(Fp8Backend* backend);
  Fp8Backend& fp8_backend() const;
  // The conversion's chunk (P4_RDMA_CONVERT_CHUNK_BYTES by default). False, with *error naming
  // the value and the rule, unless it is a non-zero multiple of 8 up to the operand ceiling.
  bool set_convert_chunk_bytes(std::size_t bytes, std::string* error);
  std::size_t convert_chunk_bytes() const;
  bool has_rdma_program() const { return engine_ != nullptr && info_.is_rdma; }

  Decision post_send(const SendWr& wr, std::uint64_t now_ps, RdmaMemory& memory);

  // Ends the denial log's window if it is over by now_ps (post_send does this too); the
  // device may call it when the window ends (denial_window_end_ps) so the count of lines not
  // logged is not left waiting for the next request.
  void flush_log(std::uint64_t now_ps) { log_.flush(now_ps); }
  bool denial_window_end_ps(std::uint64_t* end_ps) const { return log_.window_end_ps(end_ps); }

  const RdmaStats& stats() const { return stats_; }

 private:
  Decision finish(const Verdict& verdict, const SendWr& wr, std::uint64_t now_ps, RdmaMemory& memory);
  Decision count(Decision d);

  Engine* engine_ = nullptr;
  RdmaProgramInfo info_;
  DenyLog log_;
  RdmaStats stats_;
  std::vector<std::pair<int, Value>> inputs_;
  std::unique_ptr<Fp8Operation> op_;
};

}  // namespace dpusim::p4::rdma
