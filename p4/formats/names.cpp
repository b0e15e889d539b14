// Names, numbers, lengths and status messages of the codec's public API.
#include <limits>

#include "formats.h"

namespace dpusim::formats {
namespace {

constexpr const char* kOpNames[kOpCount] = {"add", "sub", "mul", "min", "max"};

}  // namespace

const char* status_message(Status s) {
  switch (s) {
    case Status::ok: return "ok";
    case Status::unknown_format:
      return "a format is 0 fp32, 1 fp16, 2 bf16, 3 fp8_e4m3, 4 fp8_e5m2 or 5 fp4_e2m1";
    case Status::unknown_op: return "an operation is 0 add, 1 sub, 2 mul, 3 min or 4 max";
    case Status::partial_element: return "a length must be a whole number of elements";
    case Status::odd_fp4_count:
      return "fp4_e2m1 packs two elements a byte, so the element count must be even";
    case Status::operand_length_mismatch: return "the two operands must be of equal length";
    case Status::dst_length_mismatch:
      return "the destination must be exactly as long as the result";
    case Status::overlapping_buffers:
      return "the destination may be a source's own address (same element width) but must not "
             "otherwise overlap it";
    case Status::too_long: return "a length must have an element and byte count that fit in size_t";
  }
  return "unknown status";
}

const char* format_name(Format f) { return spec(f).name; }

const char* op_name(Op op) { return kOpNames[static_cast<unsigned>(op)]; }

std::optional<Format> format_from_name(std::string_view name) {
  for (const FormatSpec& s : kFormatSpecs) {
    if (name == s.name) return s.format;
  }
  return std::nullopt;
}

std::optional<Op> op_from_name(std::string_view name) {
  for (unsigned i = 0; i < kOpCount; ++i) {
    if (name == kOpNames[i]) return static_cast<Op>(i);
  }
  return std::nullopt;
}

std::optional<Format> format_from_code(uint64_t code) {
  if (code >= kFormatCount) return std::nullopt;
  return static_cast<Format>(code);
}

std::optional<Op> op_from_code(uint64_t code) {
  if (code >= kOpCount) return std::nullopt;
  return static_cast<Op>(code);
}

Status element_count(Format f, size_t bytes, size_t* count) {
  const unsigned bits = spec(f).bits;
  if (bits == 4) {
    // Every byte is two whole elements; a count that would wrap is refused, never wrapped.
    if (bytes > std::numeric_limits<size_t>::max() / 2) return Status::too_long;
    *count = 2 * bytes;
    return Status::ok;
  }
  if (bytes % (bits / 8) != 0) return Status::partial_element;
  *count = bytes / (bits / 8);
  return Status::ok;
}

Status byte_length(Format f, size_t count, size_t* bytes) {
  const unsigned bits = spec(f).bits;
  if (bits == 4) {
    if (count % 2 != 0) return Status::odd_fp4_count;
    *bytes = count / 2;
    return Status::ok;
  }
  if (count > std::numeric_limits<size_t>::max() / (bits / 8)) return Status::too_long;
  *bytes = count * (bits / 8);
  return Status::ok;
}

Status converted_length(Format src, Format dst, size_t src_bytes, size_t* dst_bytes) {
  size_t count = 0;
  if (Status s = element_count(src, src_bytes, &count); s != Status::ok) return s;
  return byte_length(dst, count, dst_bytes);
}

Status converted_length(uint64_t src_code, uint64_t dst_code, size_t src_bytes, size_t* dst_bytes) {
  const auto src = format_from_code(src_code);
  const auto dst = format_from_code(dst_code);
  if (!src || !dst) return Status::unknown_format;
  return converted_length(*src, *dst, src_bytes, dst_bytes);
}

}  // namespace dpusim::formats
