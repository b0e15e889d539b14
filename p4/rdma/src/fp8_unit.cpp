// The fp8_unit extern's methods (fp8_unit.h) and the ionic target's extern registry.
//
// A call checks, in this order, and stops at the first that does not hold:
//   1. the shape: an RDMA write with two equal-length SGEs (apply) or one (cvt), else declined;
//   2. the table entry's op and formats (IBV_WC_LOC_QP_OP_ERR);
//   3. the lengths: every operand and the result within P4_RDMA_MAX_OPERAND_BYTES, and a whole
//      number of elements (IBV_WC_LOC_LEN_ERR);
//   4. each source's lkey: registered, local, covering its range (IBV_WC_LOC_PROT_ERR);
//   5. the rkey: registered (PROT), local (a peer's is IBV_WC_LOC_QP_OP_ERR), writable from
//      the wire (IB_ACCESS_REMOTE_WRITE, as the responder of a plain write would insist; PROT),
//      covering the result (PROT);
// then reads the sources and has the path's Fp8Backend compute the result (the C++ codec
// unless the device chose another, fp8_backend.h). A reduction reads its operands whole; a
// conversion is streamed a chunk at a time, so a destination overlapping the source's unread
// part changes what later chunks read (fp8_stream.h). Nothing is written here: the path writes
// the result once the pipeline has ended and shown that the program dropped the request.
#include <optional>
#include <string>

#include "dpusim/p4/rdma/fp8_unit.h"
#include "dpusim/p4/rdma/program.h"
#include "formats/formats.h"
#include "fp8_operation.h"
#include "fp8_stream.h"
#include "hex.h"

namespace dpusim::p4::rdma {

namespace {

namespace fmt = dpusim::formats;

constexpr auto kProt = WcStatus::IBV_WC_LOC_PROT_ERR;
constexpr auto kLen = WcStatus::IBV_WC_LOC_LEN_ERR;
constexpr auto kQpOp = WcStatus::IBV_WC_LOC_QP_OP_ERR;

// An argument as a code; one that does not fit 64 bits is no code at all.
std::uint64_t code_of(const Value& v) {
  std::uint64_t out = 0;
  return v.fits_u64(&out) ? out : UINT64_MAX;
}

std::string range(std::uint64_t addr, std::uint64_t len) {
  return "[" + hex64(addr) + ", +" + std::to_string(len) + ")";
}

// Check 4 of the list above for one SGE: its lkey registered, local and covering its range;
// *region is its key's region.
bool check_source(Fp8Operation& op, std::size_t i, MemoryRegion* region) {
  const Sge& s = op.wr->sgl[i];
  const std::string what = "sge[" + std::to_string(i) + "] lkey " + hex32(s.lkey);
  const MemoryRegion* r = op.memory->find(s.lkey);
  if (r == nullptr) {
    op.fail(kProt, FailReason::kUnregisteredKey, what + " is not registered");
    return false;
  }
  if (r->owner != RegionOwner::kLocal) {
    op.fail(kProt, FailReason::kNotLocalKey, what + " belongs to a peer node; an operand must be local memory");
    return false;
  }
  if (!region_covers(*r, s.addr, s.length)) {
    op.fail(kProt, FailReason::kOutOfRegion,
            what + " range " + range(s.addr, s.length) + " is outside its region " + range(r->addr, r->length));
    return false;
  }
  *region = *r;
  return true;
}

// Check 5 of the list above: the rkey registered, local, writable from the wire and covering
// the result; the destination is then recorded in `op`.
bool check_destination(Fp8Operation& op, std::size_t result_bytes) {
  const SendWr& wr = *op.wr;
  const std::string what = "rkey " + hex32(wr.rkey);
  const MemoryRegion* r = op.memory->find_rkey(wr.rkey);
  if (r == nullptr) {
    op.fail(kProt, FailReason::kUnregisteredKey, what + " (the destination) is not registered");
    return false;
  }
  if (r->owner != RegionOwner::kLocal) {
    op.fail(kQpOp, FailReason::kPeerRkey,
            what + " belongs to a peer node; the fp8 unit writes only this device's memory (reduce locally, then send)");
    return false;
  }
  if ((r->access & IB_ACCESS_REMOTE_WRITE) == 0) {
    op.fail(kProt, FailReason::kNoRemoteWrite,
            what + " region was registered with access " + hex32(r->access) + ", without IB_ACCESS_REMOTE_WRITE (0x2)");
    return false;
  }
  if (!region_covers(*r, wr.remote_addr, result_bytes)) {
    op.fail(kProt, FailReason::kOutOfRegion,
            what + " range " + range(wr.remote_addr, result_bytes) + " (the result) is outside its region " +
                range(r->addr, r->length));
    return false;
  }
  op.dst = *r;
  op.dst_addr = wr.remote_addr;
  return true;
}

// Check 3's element shape (a whole number of elements), from the codec's verdict on the lengths.
bool check_elements(Fp8Operation& op, fmt::Status s, const std::string& what) {
  if (s == fmt::Status::ok) return true;
  FailReason reason = s == fmt::Status::odd_fp4_count ? FailReason::kOddFp4Count : FailReason::kPartialElement;
  op.fail(kLen, reason, what + ": " + fmt::status_message(s));
  return false;
}

// Checks 3 to 5 of the list above and the work, for either method. `src` and `dst` are the
// element formats (equal for apply); `apply_op` is the operation, or null for a conversion.
ExternResult run(Fp8Operation& op, const fmt::Op* apply_op, fmt::Format src, fmt::Format dst) {
  const SendWr& wr = *op.wr;
  const std::size_t nsrc = wr.sgl.size();  // 1 or 2: begin() declined every other shape
  for (std::size_t i = 0; i < nsrc; ++i)
    if (wr.sgl[i].length > P4_RDMA_MAX_OPERAND_BYTES) {
      op.fail(kLen, FailReason::kOperandTooLong,
              "sge[" + std::to_string(i) + "] length " + std::to_string(wr.sgl[i].length) +
                  " is over the fp8 unit's operand ceiling of 1048576 bytes (P4_RDMA_MAX_OPERAND_BYTES)");
      return ExternResult::kFault;
    }
  const std::size_t n = wr.sgl[0].length;
  std::size_t result_bytes = 0;
  const std::string shape = std::string(fmt::format_name(src)) + " operand of " + std::to_string(n) + " bytes";
  if (!check_elements(op, fmt::converted_length(src, dst, n, &result_bytes), shape)) return ExternResult::kFault;
  if (result_bytes > P4_RDMA_MAX_OPERAND_BYTES) {
    op.fail(kLen, FailReason::kOperandTooLong,
            "the " + std::string(fmt::format_name(dst)) + " result of " + std::to_string(result_bytes) +
                " bytes is over the fp8 unit's operand ceiling of 1048576 bytes (P4_RDMA_MAX_OPERAND_BYTES)");
    return ExternResult::kFault;
  }
  MemoryRegion sources[2];  // as checked: the table is not asked twice
  for (std::size_t i = 0; i < nsrc; ++i)
    if (!check_source(op, i, &sources[i])) return ExternResult::kFault;
  if (!check_destination(op, result_bytes)) return ExternResult::kFault;

  // Read every source as it is before anything is written.
  op.staged.resize(n * nsrc);
  for (std::size_t i = 0; i < nsrc; ++i) {
    const Sge& s = wr.sgl[i];
    if (n != 0 && !op.memory->read(sources[i], s.addr, op.staged.data() + i * n, n)) {
      op.fail(kProt, FailReason::kDmaError, "sge[" + std::to_string(i) + "] lkey " + hex32(s.lkey) + ": the DMA read of " +
                                                range(s.addr, n) + " failed");
      return ExternResult::kFault;
    }
  }
  op.result.resize(result_bytes);
  if (result_bytes != 0) {
    Fp8Job job;
    job.convert = apply_op == nullptr;
    job.op = apply_op != nullptr ? *apply_op : fmt::Op::add;
    job.src = src;
    job.dst = dst;
    job.a = op.staged.data();
    job.b = apply_op != nullptr ? op.staged.data() + n : nullptr;
    job.src_bytes = n;
    job.result = op.result.data();
    job.result_bytes = result_bytes;
    std::vector<MemoryRun> src_at, dst_at;
    const bool streamed = job.convert && n > op.chunk_bytes &&
                          op.memory->locate(sources[0], wr.sgl[0].addr, n, &src_at) &&
                          op.memory->locate(op.dst, op.dst_addr, result_bytes, &dst_at) && runs_overlap(src_at, dst_at);
    // Streamed or whole, a conversion gives the same bytes unless the result lands on the source.
    op.timing = streamed ? convert_streamed(*op.backend, job, op.chunk_bytes, src_at, dst_at) : op.backend->compute(job);
    if (!check_elements(op, op.timing.status, shape)) return ExternResult::kFault;  // the checks above make this ok
  }
  op.performed = true;
  return ExternResult::kContinue;
}

// Check 1 (the shape) and the refusal of a second call, common to both methods; check 2 (op and
// formats) is the method's own. Null when the call is done with (declined or failed).
Fp8Operation* begin(ExternCall& call, std::size_t sges, ExternResult* early) {
  auto* op = static_cast<Fp8Operation*>(call.context);
  if (op == nullptr) {  // the Ethernet path: decline, do nothing, let the action go on
    *early = ExternResult::kContinue;
    return nullptr;
  }
  if (op->performed) {
    op->fail(kQpOp, FailReason::kSecondCall,
             "fp8_unit instance '" + call.instance->name + "' was called again after it had done the operation");
    *early = ExternResult::kFault;
    return nullptr;
  }
  const SendWr& wr = *op->wr;
  if (wr.opcode != IONIC_V1_OP_RDMA_WRITE || wr.sgl.size() != sges ||
      (sges == 2 && wr.sgl[0].length != wr.sgl[1].length)) {
    op->declined = true;
    *early = ExternResult::kStopPipeline;
    return nullptr;
  }
  return op;
}

ExternResult fp8_apply(ExternCall& call) {
  ExternResult early = ExternResult::kContinue;
  Fp8Operation* op = begin(call, 2, &early);
  if (op == nullptr) return early;
  const std::uint64_t op_code = code_of(call.args[0]), fmt_code = code_of(call.args[1]);
  std::optional<fmt::Op> o = fmt::op_from_code(op_code);
  std::optional<fmt::Format> f = fmt::format_from_code(fmt_code);
  const std::string who = "fp8_unit instance '" + call.instance->name + "' apply(op, fmt)";
  if (!o) {
    op->fail(kQpOp, FailReason::kUnknownOp,
             who + ": op " + call.args[0].to_hex() + " is not an operation (0 add, 1 sub, 2 mul, 3 min, 4 max)");
    return ExternResult::kFault;
  }
  if (!f) {
    op->fail(kQpOp, FailReason::kUnknownFormat, who + ": fmt " + call.args[1].to_hex() + " is not a format (0 to 5)");
    return ExternResult::kFault;
  }
  return run(*op, &*o, *f, *f);
}

ExternResult fp8_cvt(ExternCall& call) {
  ExternResult early = ExternResult::kContinue;
  Fp8Operation* op = begin(call, 1, &early);
  if (op == nullptr) return early;
  const std::string who = "fp8_unit instance '" + call.instance->name + "' cvt(src_fmt, dst_fmt)";
  std::optional<fmt::Format> s = fmt::format_from_code(code_of(call.args[0]));
  std::optional<fmt::Format> d = fmt::format_from_code(code_of(call.args[1]));
  if (!s || !d) {
    const bool bad_src = !s;
    op->fail(kQpOp, FailReason::kUnknownFormat,
             who + ": " + (bad_src ? "src_fmt " : "dst_fmt ") + call.args[bad_src ? 0 : 1].to_hex() +
                 " is not a format (0 to 5)");
    return ExternResult::kFault;
  }
  return run(*op, nullptr, *s, *d);
}

bool validate(const ExternInstance& instance, std::string* error) {
  if (instance.int_attributes.empty() && instance.text_attributes.empty()) return true;
  const std::string name =
      !instance.int_attributes.empty() ? instance.int_attributes.begin()->first : instance.text_attributes.begin()->first;
  *error = "fp8_unit takes no constructor arguments, but instance '" + instance.name + "' has attribute '" + name + "'";
  return false;
}

ExternRegistry make_registry() {
  ExternRegistry r;
  r.add({kFp8UnitType, {{kFp8UnitApply, 2, 2, &fp8_apply}, {kFp8UnitCvt, 2, 2, &fp8_cvt}}, &validate});
  return r;
}

}  // namespace

const ExternRegistry& device_externs() {
  static const ExternRegistry registry = make_registry();
  return registry;
}

}  // namespace dpusim::p4::rdma
