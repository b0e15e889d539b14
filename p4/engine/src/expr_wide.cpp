// bmv2's unbounded expression arithmetic on 576-bit values (see expr_wide.h). The operators
// follow src/bm_sim/expressions.cpp and Data's methods in include/bm/bm_sim/data.h: GMP's
// integers, where ~x is -x-1, & | ^ act on the infinite two's complement, >> floors and
// / and % truncate (bmv2 asserts both operands of / and % are non-negative and the divisor
// non-zero, and a shift amount non-negative).
#include "expr_wide.h"

#include <algorithm>

namespace dpusim::p4 {

int magnitude_bits(const Value& x) {
  if (!x.is_negative()) return x.bit_length();
  Value inv;
  value_not(inv, x);  // -x-1 >= 0, and x >= -2^n exactly when -x-1 < 2^n
  return inv.bit_length();
}

namespace {

constexpr int kTop = kValueBits - 1;  // a whole value has at most this many magnitude bits

// A sum or difference of whole operands is whole unless it left the carried range, which
// two's-complement overflow at 576 bits shows.
int add_sub(bool add, Value& r, const Value& a, int ka, const Value& b, int kb) {
  const bool an = a.is_negative(), bn = b.is_negative();
  if (add) value_add(r, a, b);
  else value_sub(r, a, b);
  if (ka != kWhole || kb != kWhole) return std::min(ka, kb);
  const bool same_signs = add ? an == bn : an != bn;
  return same_signs && r.is_negative() != an ? kValueBits : kWhole;
}

int multiply(Value& r, const Value& a, int ka, const Value& b, int kb) {
  value_mul(r, a, b);  // the low 576 bits of the product, whatever the signs
  if (ka != kWhole || kb != kWhole) return std::min(ka, kb);
  if (a.is_zero() || b.is_zero()) return kWhole;
  const int bits = magnitude_bits(a) + magnitude_bits(b);
  // |a*b| < 2^bits when both are non-negative, <= 2^bits otherwise.
  const bool nonneg = !a.is_negative() && !b.is_negative();
  return bits <= (nonneg ? kTop : kTop - 1) ? kWhole : kValueBits;
}

int bit_and(Value& r, const Value& a, int ka, const Value& b, int kb) {
  value_and(r, a, b);
  if (ka == kWhole && kb == kWhole) return kWhole;
  // A non-negative whole mask clears every bit above its own: the low bits decide.
  if (ka == kWhole && !a.is_negative() && a.bit_length() <= kb) return kWhole;
  if (kb == kWhole && !b.is_negative() && b.bit_length() <= ka) return kWhole;
  return std::min(ka, kb);
}

// The shift amount: whole and non-negative (bmv2 asserts the latter). Amounts past the
// carried width all act alike, so they are clamped to it.
bool shift_amount(const Value& b, int kb, unsigned* n, const char** fault) {
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

int shift_left(Value& r, const Value& a, int ka, unsigned n) {
  if (n >= static_cast<unsigned>(kValueBits)) r = Value::zero();
  else value_shl(r, a, n);
  if (ka != kWhole) return std::min(kValueBits, ka + static_cast<int>(n));
  if (a.is_zero()) return kWhole;
  return magnitude_bits(a) + static_cast<int>(n) <= kTop ? kWhole : kValueBits;
}

int shift_right(Value& r, const Value& a, int ka, unsigned n) {
  if (n >= static_cast<unsigned>(kValueBits)) {
    // Floor division by 2^n: 0, or -1 for a negative value.
    r = ka == kWhole && a.is_negative() ? Value::ones(kValueBits) : Value::zero();
    return ka == kWhole ? kWhole : 0;
  }
  value_shr(r, a, n);
  if (ka == kWhole) return kWhole;
  return ka > static_cast<int>(n) ? ka - static_cast<int>(n) : 0;
}

int divide(ExprOp op, Value& r, const Value& a, int ka, const Value& b, int kb, const char** fault) {
  if (ka != kWhole || kb != kWhole) {
    *fault = kNotWhole;
    return 0;
  }
  if (b.is_zero()) {
    *fault = "division by zero";
    return 0;
  }
  if (a.is_negative() || b.is_negative()) {
    *fault = "a division or remainder of a negative value";
    return 0;
  }
  if (op == ExprOp::kDiv) value_div(r, a, b);
  else value_mod(r, a, b);
  return kWhole;
}

}  // namespace

int wide_binary(ExprOp op, Value& r, const Value& a, int ka, const Value& b, int kb, const char** fault) {
  switch (op) {
    case ExprOp::kAdd: return add_sub(true, r, a, ka, b, kb);
    case ExprOp::kSub: return add_sub(false, r, a, ka, b, kb);
    case ExprOp::kMul: return multiply(r, a, ka, b, kb);
    case ExprOp::kDiv:
    case ExprOp::kMod: return divide(op, r, a, ka, b, kb, fault);
    case ExprOp::kBitAnd: return bit_and(r, a, ka, b, kb);
    case ExprOp::kBitOr: value_or(r, a, b); return std::min(ka, kb);
    case ExprOp::kBitXor: value_xor(r, a, b); return std::min(ka, kb);
    case ExprOp::kShl:
    case ExprOp::kShr: {
      unsigned n;
      if (!shift_amount(b, kb, &n, fault)) return 0;
      return op == ExprOp::kShl ? shift_left(r, a, ka, n) : shift_right(r, a, ka, n);
    }
    default:
      *fault = "internal: an expression node of the wrong kind";
      return 0;
  }
}

}  // namespace dpusim::p4
