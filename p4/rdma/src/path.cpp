// The RDMA decision path (path.h): runs an RDMA program over a send work request's metadata
// and turns the verdict, and what the fp8 unit did, into one of the four outcomes.
#include "dpusim/p4/rdma/path.h"

#include "fp8_operation.h"
#include "hex.h"

namespace dpusim::p4::rdma {

const char* action_name(Action action) {
  switch (action) {
    case Action::kDispatch: return "dispatch";
    case Action::kDeny: return "deny";
    case Action::kDone: return "done";
    case Action::kFail: return "fail";
  }
  return "unknown";
}

const char* fail_reason_name(FailReason reason) {
  switch (reason) {
    case FailReason::kNone: return "none";
    case FailReason::kUnregisteredKey: return "unregistered_key";
    case FailReason::kNotLocalKey: return "not_local_key";
    case FailReason::kOutOfRegion: return "out_of_region";
    case FailReason::kNoRemoteWrite: return "no_remote_write";
    case FailReason::kDmaError: return "dma_error";
    case FailReason::kOperandTooLong: return "operand_too_long";
    case FailReason::kPartialElement: return "partial_element";
    case FailReason::kOddFp4Count: return "odd_fp4_count";
    case FailReason::kPeerRkey: return "peer_rkey";
    case FailReason::kUnknownOp: return "unknown_op";
    case FailReason::kUnknownFormat: return "unknown_format";
    case FailReason::kNoMarkToDrop: return "no_mark_to_drop";
    case FailReason::kSecondCall: return "second_call";
    case FailReason::kProgramFault: return "program_fault";
    case FailReason::kBadQpNum: return "bad_qp_num";
  }
  return "unknown";
}

RdmaPath::RdmaPath(LogSink sink) : log_(std::move(sink)), op_(std::make_unique<Fp8Operation>()) {
  op_->backend = &codec_fp8_backend();
}
RdmaPath::~RdmaPath() = default;

void RdmaPath::set_fp8_backend(Fp8Backend* backend) {
  op_->backend = backend != nullptr ? backend : &codec_fp8_backend();
}

Fp8Backend& RdmaPath::fp8_backend() const { return *op_->backend; }

bool RdmaPath::set_convert_chunk_bytes(std::size_t bytes, std::string* error) {
  if (bytes == 0 || bytes % 8 != 0 || bytes > P4_RDMA_MAX_OPERAND_BYTES) {
    *error = "conversion chunk of " + std::to_string(bytes) +
             " bytes: must be a non-zero multiple of 8 bytes up to 1048576 (P4_RDMA_MAX_OPERAND_BYTES)";
    return false;
  }
  op_->chunk_bytes = bytes;
  return true;
}

std::size_t RdmaPath::convert_chunk_bytes() const { return op_->chunk_bytes; }

bool RdmaPath::attach(Engine* engine, LoadError* error) {
  engine_ = nullptr;
  info_ = RdmaProgramInfo{};
  if (engine == nullptr) return true;
  const ExternRegistry* externs = engine->load_options().externs;
  if (externs != nullptr && externs != &device_externs()) {
    *error = {LoadCode::kExternRegistry,
              "the engine was loaded with an extern registry other than the ionic target's (rdma::device_externs()); "
              "its methods would be handed the RDMA path's state"};
    return false;
  }
  RdmaProgramInfo info;
  if (!analyze_rdma_program(*engine, &info, error)) return false;
  engine_ = engine;
  info_ = info;
  return true;
}

Decision RdmaPath::count(Decision d) {
  switch (d.action) {
    case Action::kDispatch: ++stats_.dispatched; break;
    case Action::kDeny: ++stats_.denied; break;
    case Action::kDone: ++stats_.done; break;
    case Action::kFail: ++stats_.failed; break;
  }
  return d;
}

Decision RdmaPath::post_send(const SendWr& wr, std::uint64_t now_ps, RdmaMemory& memory) {
  ++stats_.work_requests;
  log_.flush(now_ps);
  if (!has_rdma_program()) return count(Decision{});
  if (wr.qp_num > 0xffffffu) {
    // The QP number comes from the device's own QP table; one that does not fit rdma_metadata's
    // 24 bits is a caller's bug, refused rather than truncated into another QP's number.
    Decision d;
    d.action = Action::kFail;
    d.status = WcStatus::IBV_WC_LOC_QP_OP_ERR;
    d.reason = FailReason::kBadQpNum;
    d.message = "work request qp_num " + hex32(wr.qp_num) + " is wider than rdma_metadata.qp_num's 24 bits";
    return count(std::move(d));
  }
  inputs_.clear();
  const std::pair<int, std::uint64_t> fields[] = {
      {info_.opcode, wr.opcode}, {info_.qp_num, wr.qp_num}, {info_.length, wr.length},
      {info_.imm_data, wr.imm_data}, {info_.rkey, wr.rkey}};
  for (const auto& [handle, value] : fields)
    if (handle >= 0) inputs_.emplace_back(handle, Value::of(value));
  op_->reset(&wr, &memory);
  ++stats_.runs;
  engine_->metadata().set_extern_context(op_.get());
  const Verdict v = engine_->metadata().run(inputs_);
  // The Ethernet path must find no request in hand: its calls decline and do nothing.
  engine_->metadata().set_extern_context(nullptr);
  if (op_->declined) ++stats_.declined;
  Decision d = finish(v, wr, now_ps, memory);
  if (op_->performed) {
    d.fp8_cycles = op_->timing.cycles;
    d.fp8_busy_ps = op_->timing.busy_ps;
  }
  return count(std::move(d));
}

Decision RdmaPath::finish(const Verdict& v, const SendWr& wr, std::uint64_t now_ps, RdmaMemory& memory) {
  Decision d;
  if (op_->failed) return op_->failure;
  if (v.reason == DropReason::kFault) {
    d.action = Action::kFail;
    d.status = WcStatus::IBV_WC_LOC_QP_OP_ERR;
    d.reason = FailReason::kProgramFault;
    d.message = std::string("the P4 program faulted: ") + (v.fault != nullptr ? v.fault : "unknown fault");
    return d;
  }
  if (op_->performed) {
    if (!v.dropped) {
      // The ordinary transfer would land on top of the result: fail rather than do both.
      d.action = Action::kFail;
      d.status = WcStatus::IBV_WC_LOC_QP_OP_ERR;
      d.reason = FailReason::kNoMarkToDrop;
      d.message = "the program called fp8_unit but did not mark_to_drop the work request; nothing was written";
      return d;
    }
    if (!op_->result.empty() &&
        !memory.write(op_->dst, op_->dst_addr, op_->result.data(), op_->result.size())) {
      d.action = Action::kFail;
      d.status = WcStatus::IBV_WC_LOC_PROT_ERR;
      d.reason = FailReason::kDmaError;
      d.message = "rkey " + hex32(op_->dst.key) + ": the DMA write of [" + hex64(op_->dst_addr) + ", +" +
                  std::to_string(op_->result.size()) + ") failed";
      return d;
    }
    d.action = Action::kDone;
    return d;
  }
  if (v.dropped) {
    d.action = Action::kDeny;
    d.status = WcStatus::IBV_WC_LOC_QP_OP_ERR;
    log_.denied(now_ps, "P4 program denied work request: qp=" + std::to_string(wr.qp_num) + " opcode=" +
                            std::to_string(wr.opcode) + " (" + ionic_op_name(wr.opcode) + ") length=" +
                            std::to_string(wr.length));
    return d;
  }
  return d;  // dispatch, declined or not
}

}  // namespace dpusim::p4::rdma
