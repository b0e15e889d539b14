// The default Fp8Backend: the C++ codec (fp8_backend.h).
#include "dpusim/p4/rdma/fp8_backend.h"

namespace dpusim::p4::rdma {

Fp8Outcome CodecFp8Backend::compute(const Fp8Job& job) {
  Fp8Outcome out;
  out.status = job.convert
                   ? formats::convert(job.src, job.dst, job.a, job.src_bytes, job.result, job.result_bytes)
                   : formats::apply(job.op, job.src, job.a, job.src_bytes, job.b, job.src_bytes, job.result,
                                    job.result_bytes);
  return out;
}

Fp8Backend& codec_fp8_backend() {
  static CodecFp8Backend backend;
  return backend;
}

}  // namespace dpusim::p4::rdma
