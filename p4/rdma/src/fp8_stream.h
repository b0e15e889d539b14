// A conversion as the fp8 unit streams it (P4 engine guide, "Converting": "a conversion is
// streamed a chunk at a time -- read, convert, write"): chunk k's source bytes are read after
// chunks 0..k-1 have written their results, so a destination that overlaps the part of the
// source still to be read hands the later chunks its own results as input, and the operation
// completes successfully with wrong values from that point on (fp16 widened to fp32 in place
// is wrong from the second chunk). Overlap is decided on where the bytes are (locate), so two
// keys over the same pages overlap as one key would.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "dpusim/p4/rdma/fp8_backend.h"
#include "dpusim/p4/rdma/memory.h"

namespace dpusim::p4::rdma {

// Whether any byte of `a` is a byte of `b`.
bool runs_overlap(const std::vector<MemoryRun>& a, const std::vector<MemoryRun>& b);

// Computes `whole` (a conversion: whole.a holds the source as it was before the operation,
// whole.result receives the result) chunk by chunk of `chunk_bytes` source bytes, a multiple of
// 8 so that every chunk is whole elements of every format. `src_runs` and `dst_runs` say where
// the source's and the result's bytes are. The outcome's cycles and busy time are the chunks'
// sums; its status the first one that is not ok (nothing more is computed then).
Fp8Outcome convert_streamed(Fp8Backend& backend, const Fp8Job& whole, std::size_t chunk_bytes,
                            const std::vector<MemoryRun>& src_runs, const std::vector<MemoryRun>& dst_runs);

}  // namespace dpusim::p4::rdma
