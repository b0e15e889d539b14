// bmv2's unbounded expression arithmetic on values carried at 576 bits.
//
// bmv2 evaluates an expression on arbitrary-precision integers (Data holds a GMP integer,
// include/bm/bm_sim/data.h) and truncates only where the program says so: on a write to a
// field and in the operators that name a width (two_comp_mod, usat_cast, sat_cast). Here a
// value is a 576-bit two's-complement integer plus how many of its low bits are the
// unbounded value's. While the value stays in [-2^575, 2^575) all of it is (kWhole). When a
// sum, product or left shift leaves that range, only its low 576 bits are kept; those are
// still exact, because the low n bits of a sum, difference, product, left shift and of the
// bitwise operators depend only on the low n bits of their operands. A right shift by k
// loses k of the known bits; a mask `& m` with a non-negative whole m of at most that many
// bits makes the value whole again (p4c masks every bit<W> operation this way). A
// comparison, division, saturating cast or index needs the whole value: without it the
// frame faults.
#pragma once

#include <cstdint>

#include "dpusim/p4/value.h"
#include "program.h"

namespace dpusim::p4 {

// The value is whole; any other count (0 to kValueBits) is of known low bits.
inline constexpr int kWhole = kValueBits + 1;

inline constexpr const char* kNotWhole = "a value past the carried 576 bits where its high bits matter";

// The number of bits of a two's-complement value without its sign: x < 2^n for x >= 0,
// x >= -2^n for x < 0.
int magnitude_bits(const Value& x);

// The operators that are rare or costly (expr_wide.cpp).
int wide_multiply(Value& r, const Value& a, int ka, const Value& b, int kb);
int wide_divide(ExprOp op, Value& r, const Value& a, int ka, const Value& b, int kb, const char** fault);

// A sum or difference of whole operands is whole unless it left the carried range, which
// two's-complement overflow at 576 bits shows.
inline int wide_add_sub(bool add, Value& r, const Value& a, int ka, const Value& b, int kb) {
  const bool an = a.is_negative(), bn = b.is_negative();
  if (add) value_add(r, a, b);
  else value_sub(r, a, b);
  if (ka != kWhole || kb != kWhole) return ka < kb ? ka : kb;
  const bool same_signs = add ? an == bn : an != bn;
  return same_signs && r.is_negative() != an ? kValueBits : kWhole;
}

inline int wide_and(Value& r, const Value& a, int ka, const Value& b, int kb) {
  value_and(r, a, b);
  if (ka == kWhole && kb == kWhole) return kWhole;
  // A non-negative whole mask clears every bit above its own: the low bits decide.
  if (ka == kWhole && !a.is_negative() && a.bit_length() <= kb) return kWhole;
  if (kb == kWhole && !b.is_negative() && b.bit_length() <= ka) return kWhole;
  return ka < kb ? ka : kb;
}

// The shift amount: whole and non-negative (bmv2 asserts the latter). Amounts past the
// carried width all act alike, so they are clamped to it.
inline bool wide_shift_amount(const Value& b, int kb, unsigned* n, const char** fault) {
  if (kb != kWhole) {
    *fault = kNotWhole;
    return false;
  }
  if (b.is_negative()) {
    *fault = "a shift by a negative amount";
    return false;
  }
  std::uint64_t x;
  *n = !b.fits_u64(&x) || x > static_cast<std::uint64_t>(kValueBits) ? static_cast<unsigned>(kValueBits) : static_cast<unsigned>(x);
  return true;
}

inline int wide_shift_left(Value& r, const Value& a, int ka, unsigned n) {
  if (n >= static_cast<unsigned>(kValueBits)) r = Value::zero();
  else value_shl(r, a, n);
  if (ka != kWhole) return ka + static_cast<int>(n) < kValueBits ? ka + static_cast<int>(n) : kValueBits;
  // Whole when a * 2^n stays in range: bits 575-n..575 of a all copy its sign.
  if (n < 64) {
    const auto top = static_cast<std::int64_t>(a.w[kValueLimbs - 1]);
    return (top >> (63 - n)) == (top >> 63) ? kWhole : kValueBits;
  }
  if (a.is_zero()) return kWhole;
  return magnitude_bits(a) + static_cast<int>(n) < kValueBits ? kWhole : kValueBits;
}

inline int wide_shift_right(Value& r, const Value& a, int ka, unsigned n) {
  if (n >= static_cast<unsigned>(kValueBits)) {
    // Floor division by 2^n: 0, or -1 for a negative value.
    r = ka == kWhole && a.is_negative() ? Value::ones(kValueBits) : Value::zero();
    return ka == kWhole ? kWhole : 0;
  }
  value_shr(r, a, n);
  if (ka == kWhole) return kWhole;
  return ka > static_cast<int>(n) ? ka - static_cast<int>(n) : 0;
}

// A binary data operator of bmv2's (kAdd to kBitXor, kShl and kShr included) on operands with
// ka and kb known bits; returns the result's. On a fault (division by zero, a negative
// operand of / or %, a negative shift amount, an operand that must be whole and is not) it
// sets *fault and returns 0.
inline int wide_binary(ExprOp op, Value& r, const Value& a, int ka, const Value& b, int kb, const char** fault) {
  switch (op) {
    case ExprOp::kAdd: return wide_add_sub(true, r, a, ka, b, kb);
    case ExprOp::kSub: return wide_add_sub(false, r, a, ka, b, kb);
    case ExprOp::kMul: return wide_multiply(r, a, ka, b, kb);
    case ExprOp::kDiv:
    case ExprOp::kMod: return wide_divide(op, r, a, ka, b, kb, fault);
    case ExprOp::kBitAnd: return wide_and(r, a, ka, b, kb);
    case ExprOp::kBitOr: value_or(r, a, b); return ka < kb ? ka : kb;
    case ExprOp::kBitXor: value_xor(r, a, b); return ka < kb ? ka : kb;
    case ExprOp::kShl:
    case ExprOp::kShr: {
      unsigned n;
      if (!wide_shift_amount(b, kb, &n, fault)) return 0;
      return op == ExprOp::kShl ? wide_shift_left(r, a, ka, n) : wide_shift_right(r, a, ka, n);
    }
    default:
      *fault = "internal: an expression node of the wrong kind";
      return 0;
  }
}

}  // namespace dpusim::p4
