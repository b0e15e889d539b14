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

int wide_multiply(Value& r, const Value& a, int ka, const Value& b, int kb) {
  value_mul(r, a, b);  // the low 576 bits of the product, whatever the signs
  if (ka != kWhole || kb != kWhole) return std::min(ka, kb);
  if (a.is_zero() || b.is_zero()) return kWhole;
  const int bits = magnitude_bits(a) + magnitude_bits(b);
  // |a*b| < 2^bits when both are non-negative, <= 2^bits otherwise; whole below 2^575.
  const int top = kValueBits - 1;
  const bool nonneg = !a.is_negative() && !b.is_negative();
  return bits <= (nonneg ? top : top - 1) ? kWhole : kValueBits;
}

int wide_divide(ExprOp op, Value& r, const Value& a, int ka, const Value& b, int kb, const char** fault) {
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

}  // namespace dpusim::p4
