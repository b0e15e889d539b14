// The state one send work request gives the fp8 unit while its program runs: the request,
// the memory, what the unit decided, and the sources as read and the computed result. The RDMA
// path owns one, reuses its buffers, and hands it to the engine as the extern context.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dpusim/p4/rdma/fp8_backend.h"
#include "dpusim/p4/rdma/path.h"

namespace dpusim::p4::rdma {

struct Fp8Operation {
  const SendWr* wr = nullptr;
  RdmaMemory* memory = nullptr;
  Fp8Backend* backend = nullptr;  // the path's; set once, kept across requests
  std::size_t chunk_bytes = P4_RDMA_CONVERT_CHUNK_BYTES;  // the path's, kept across requests
  bool declined = false;   // a call found the request not compute-shaped and stopped the pipeline
  bool performed = false;  // a call computed the result (written only if the program drops)
  bool failed = false;     // a call failed the operation (the engine faults)
  Decision failure;        // the status, reason and message of the failure
  MemoryRegion dst;        // the destination's region (by value: the table may change later)
  std::uint64_t dst_addr = 0;
  std::vector<std::uint8_t> staged;  // every source, whole, as it was before the operation
  std::vector<std::uint8_t> result;
  Fp8Outcome timing;       // the backend's cycles and busy time for the computed result

  void reset(const SendWr* w, RdmaMemory* m) {
    wr = w;
    memory = m;
    declined = performed = failed = false;
    failure = Decision{};
    dst_addr = 0;
    timing = Fp8Outcome{};
    staged.clear();
    result.clear();
  }
  void fail(WcStatus status, FailReason reason, std::string message) {
    failed = true;
    failure.action = Action::kFail;
    failure.status = status;
    failure.reason = reason;
    failure.message = std::move(message);
  }
};

}  // namespace dpusim::p4::rdma
