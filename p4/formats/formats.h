// The numeric-formats codec of the P4 engine: conversion between the six element formats and
// elementwise arithmetic, bit-exact on any IEEE machine.
//
// Rules (docs/formats.md; the P4 engine guide's "Converting between formats"):
// - Rounding is to nearest, ties to even, everywhere, and happens once: arithmetic computes the
//   exact result and rounds that, never an intermediate. Subnormals are exact in and out.
// - A magnitude too large for the destination becomes infinity where the format has one
//   (fp32, fp16, bf16, fp8_e5m2) and saturates to the largest finite magnitude where it has
//   not (fp8_e4m3: 448, fp4_e2m1: 6). "Too large" is IEEE 754's overflow: the value rounded as
//   if the exponent were unbounded exceeds the largest finite value. An infinite operand or
//   result in a format without infinity saturates the same way, sign kept.
// - A NaN stays a NaN where the destination can encode one; it becomes the destination's
//   canonical quiet NaN with the NaN's sign (fp32 7FC00000, fp16 7E00, bf16 7FC0, E4M3 7F,
//   E5M2 7E; payloads are not carried). fp4_e2m1 has no NaN: a NaN saturates to +-6 by sign.
// - fp4_e2m1 packs two elements a byte: element i in byte i/2, in the low nibble when i is
//   even. Multi-byte elements are little-endian, as in memory. An element count that would be
//   half a byte of fp4 is refused, never rounded.
// - Arithmetic (add, sub, mul, min, max): any NaN operand gives NaN, with the sign of the NaN
//   operand (the first if both; as the operand carries it, so sub does not flip b's NaN);
//   inf + -inf (and inf - inf) and 0 * inf give the positive canonical NaN; -0 + -0 = -0 and
//   an exact zero sum of nonzero or mixed-sign terms is +0; a product's sign is the XOR of the
//   operands' even when it is zero or rounds to zero; min/max order -0 below +0.
// The functions never throw and never assert on input: bad arguments come back as a Status,
// so the fp8 extern can fail an RDMA operation with it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "format_spec.h"

namespace dpusim::formats {

// Elementwise operations, numbered as the fp8 extern's `apply(op, fmt)` takes them.
enum class Op : uint8_t { add = 0, sub = 1, mul = 2, min = 3, max = 4 };
inline constexpr unsigned kOpCount = 5;

enum class Status : uint8_t {
  ok = 0,
  unknown_format,           // a format number outside 0..5
  unknown_op,               // an operation number outside 0..4
  partial_element,          // a byte length that is not a whole number of elements
  odd_fp4_count,            // an odd element count, which fp4_e2m1 cannot pack
  operand_length_mismatch,  // apply: the two operands differ in length
  dst_length_mismatch,      // the destination is not exactly the result's length
  overlapping_buffers,      // the destination partly overlaps a source (see convert and apply)
  too_long,                 // a length whose element or byte count does not fit in size_t
};

// A short sentence stating the rule a non-ok status enforces, for error messages and logs.
const char* status_message(Status s);

// Names as the Python API and the docs spell them ("fp8_e4m3", "add").
const char* format_name(Format f);
const char* op_name(Op op);
std::optional<Format> format_from_name(std::string_view name);
std::optional<Op> op_from_name(std::string_view name);
// Numbers as a P4 table entry carries them; anything out of range is no format / no op.
std::optional<Format> format_from_code(uint64_t code);
std::optional<Op> op_from_code(uint64_t code);

// Number of elements in `bytes` bytes of `f`: partial_element unless it is a whole number.
Status element_count(Format f, size_t bytes, size_t* count);
// Bytes taken by `count` elements of `f`: odd_fp4_count for an odd count of fp4_e2m1.
Status byte_length(Format f, size_t count, size_t* bytes);
// Length of the result of converting `src_bytes` bytes of `src` to `dst`; the status that
// convert() would return for the lengths.
Status converted_length(Format src, Format dst, size_t src_bytes, size_t* dst_bytes);
// The same with format numbers (unknown_format if not 0..5).
Status converted_length(uint64_t src_code, uint64_t dst_code, size_t src_bytes, size_t* dst_bytes);

// Convert a whole buffer from `src` to `dst` (the rules above). `dst_bytes` must be exactly
// converted_length(); only those bytes are written, and nothing on a non-ok status. `dst`
// may be the same address as `src` when both formats have the same width (in place); any
// other overlap is refused (the RDMA path stages the source, so that is where aliasing keys
// are made safe).
Status convert(Format src, Format dst, const uint8_t* src_data, size_t src_bytes, uint8_t* dst_data,
               size_t dst_bytes) noexcept;
// The same with the format numbers a P4 table entry supplies (unknown_format if not 0..5).
Status convert(uint64_t src_code, uint64_t dst_code, const uint8_t* src_data, size_t src_bytes,
               uint8_t* dst_data, size_t dst_bytes) noexcept;

// dst[i] = a[i] op b[i] for every element of `fmt` (the rules above). `a` and `b` must be of
// equal length (operand_length_mismatch), a whole number of elements, and `dst_bytes` must
// equal it. `dst` may be the same address as `a` or `b` (a += b in place); any other overlap is
// refused.
Status apply(Op op, Format fmt, const uint8_t* a, size_t a_bytes, const uint8_t* b, size_t b_bytes,
             uint8_t* dst, size_t dst_bytes) noexcept;
// The same with the numbers a P4 table entry supplies (unknown_op / unknown_format).
Status apply(uint64_t op_code, uint64_t fmt_code, const uint8_t* a, size_t a_bytes,
             const uint8_t* b, size_t b_bytes, uint8_t* dst, size_t dst_bytes) noexcept;

// One element. `code` is the element's bits in the low bits (fp4: the low nibble).
// decode: the element's exact value (every value of the six formats is a double); a NaN
// decodes to a quiet NaN with its sign.
double decode(Format f, uint32_t code) noexcept;
// encode: `value` rounded once to `f` by the rules above (integer operations only, so the
// FPU's rounding mode does not matter).
uint32_t encode(Format f, double value) noexcept;

}  // namespace dpusim::formats
