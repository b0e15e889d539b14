// `dpusim p4 run --rdma WORK.json`: send work requests through the device's RDMA path, over a
// flat guest memory, as the ionic device would post them (docs/rdma.md, "The RDMA path").
//
// WORK.json (every number a JSON integer; unknown keys are refused):
//   {"memory": {"base": B, "size": S},                   the guest window, zero at first
//    "regions": [{"key": K, "addr": A, "length": L,      registered regions (lkeys and rkeys)
//                 "access": F, "owner": "local"|"peer"}],  access: IB_ACCESS_* bits, default 3
//                                                        (LOCAL_WRITE | REMOTE_WRITE); owner
//                                                        default "local"
//    "fill": [{"addr": A, "hex": "0011aa..."}],          bytes written into the window first
//    "work_requests": [{"opcode": O, "qp_num": Q, "rkey": R, "remote_addr": A,
//                       "imm_data": I, "length": N, "time_ps": T,
//                       "sgl": [{"addr": A, "length": N, "lkey": K}]}]}
// A request's `length` defaults to its gather list's sum; `time_ps` (the simulated time it is
// posted at, which the denial log's window counts in) defaults to the previous request's and
// may not go backwards. Every other field of a request defaults to 0 (opcode 0 is SEND).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "dpusim/p4/rdma/memory.h"
#include "dpusim/p4/rdma/path.h"

namespace dpusim::p4::tool {

struct RdmaWork {
  struct Request {
    rdma::SendWr wr;
    std::uint64_t time_ps = 0;
  };
  std::unique_ptr<rdma::FlatMemory> memory;
  std::vector<Request> requests;
};

// False with *error as "<JSON path>: <rule>" when the document is malformed.
bool parse_rdma_work(std::string_view text, RdmaWork* out, std::string* error);

}  // namespace dpusim::p4::tool
