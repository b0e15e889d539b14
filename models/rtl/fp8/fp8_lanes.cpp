// Elements in memory to lanes and back, and the codec's length rules for a job (fp8_lanes.h).
#include "rtl/fp8/fp8_lanes.h"

namespace dpusim::rtl {

namespace {

namespace fmt = dpusim::formats;

// Whether two byte ranges share a byte; compared as integers, as the codec does.
bool overlap(const std::uint8_t* a, std::size_t a_bytes, const std::uint8_t* b, std::size_t b_bytes) {
  const auto a0 = reinterpret_cast<std::uintptr_t>(a);
  const auto b0 = reinterpret_cast<std::uintptr_t>(b);
  return a_bytes != 0 && b_bytes != 0 && a0 < b0 + b_bytes && b0 < a0 + a_bytes;
}

}  // namespace

std::uint32_t load_element(fmt::Format f, const std::uint8_t* data, std::size_t i) {
  const unsigned bits = fmt::spec(f).bits;
  if (bits == 4) return (data[i / 2] >> (4 * (i & 1))) & 0xFu;
  const std::uint8_t* p = data + i * (bits / 8);
  std::uint32_t code = 0;
  for (unsigned b = 0; b < bits / 8; ++b) code |= std::uint32_t{p[b]} << (8 * b);
  return code;
}

void store_element(fmt::Format f, std::uint8_t* data, std::size_t i, std::uint32_t code) {
  const unsigned bits = fmt::spec(f).bits;
  if (bits == 4) {
    std::uint8_t& byte = data[i / 2];
    byte = (i & 1) ? static_cast<std::uint8_t>((byte & 0x0Fu) | (code & 0xFu) << 4) : static_cast<std::uint8_t>(code & 0xFu);
    return;
  }
  std::uint8_t* p = data + i * (bits / 8);
  for (unsigned b = 0; b < bits / 8; ++b) p[b] = static_cast<std::uint8_t>(code >> (8 * b));
}

fmt::Status check_job(const p4::rdma::Fp8Job& job) {
  if (static_cast<unsigned>(job.src) >= fmt::kFormatCount || static_cast<unsigned>(job.dst) >= fmt::kFormatCount)
    return fmt::Status::unknown_format;
  if (!job.convert && static_cast<unsigned>(job.op) >= fmt::kOpCount) return fmt::Status::unknown_op;
  if (!job.convert && job.dst != job.src) return fmt::Status::unknown_format;  // apply's result is in its format
  std::size_t expected = 0;
  if (fmt::Status s = fmt::converted_length(job.src, job.dst, job.src_bytes, &expected); s != fmt::Status::ok) return s;
  if (job.result_bytes != expected) return fmt::Status::dst_length_mismatch;
  // In place is element for element: the same address at the same width.
  const bool same_width = fmt::spec(job.src).bits == fmt::spec(job.dst).bits;
  for (const std::uint8_t* operand : {job.a, job.b}) {
    if (operand == nullptr) continue;
    if (!(operand == job.result && same_width) && overlap(operand, job.src_bytes, job.result, job.result_bytes))
      return fmt::Status::overlapping_buffers;
  }
  return fmt::Status::ok;
}

std::size_t job_elements(const p4::rdma::Fp8Job& job) {
  std::size_t n = 0;
  (void)fmt::element_count(job.src, job.src_bytes, &n);
  return n;
}

}  // namespace dpusim::rtl
