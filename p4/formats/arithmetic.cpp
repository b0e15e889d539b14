// Elementwise add, sub, mul, min and max, computed exactly and rounded once.
//
// Operands are decoded to binary32 (exact, decode_tables.h) and taken apart into an integer
// significand m < 2^24 and an exponent e >= -149. The exact result is formed with integer
// arithmetic and handed to round_pack, the only rounding.
//
// Why not the FPU: a double holds every product of two binary32 significands (48 bits) and
// every sum of two fp16 or fp8 values, but not every sum of two binary32 or bf16 values
// (2^127 + 2^-149 needs 277 bits). There double addition rounds, its result then depends on the
// rounding mode (and on x87 excess precision), and rounding that again to the format is a
// double rounding. Integers are exact everywhere, so every format takes the same path.
#include <array>
#include <utility>

#include "decode_tables.h"
#include "element_io.h"
#include "encode_binary32.h"
#include "formats.h"
#include "rounding.h"

namespace dpusim::formats {
namespace detail {
namespace {

using B = Binary32;

// Significands (24 bits) are placed this far up a 64-bit word before aligning, so a sum stays
// below 2^63 and an operand shifted down by up to this many places loses no bits.
constexpr int kHeadroom = 38;

// x + y for non-NaN binary32 operands that are values of F, rounded once to F.
//
// Exactness: with |x| >= |y| and d = ex - ey, y's significand is shifted left by
// kHeadroom - d to line up with x's, which loses nothing while d <= kHeadroom, so the sum is
// exact and round_pack rounds it once. When d > kHeadroom the result is x itself, exactly
// rounded: |y| < 2^(ey + 24) < 2^(ex - 14), while x, a value of F with a significand of at most
// 24 bits, is at least 2^(ex - 1) from either neighbour in F (half that below a power of two
// of a 24-bit format), so x + y lies well inside x's rounding interval. (x subnormal in F
// cannot be that far above y: a nonzero y of F is at least F's least subnormal, which is at
// least 2^-23 of any subnormal of F, while d > 38 means |y| < 2^-38 |x|.)
template <Format F>
uint32_t add(uint32_t x, uint32_t y) {
  if (B::is_inf(x) || B::is_inf(y)) {
    if (B::is_inf(x) && B::is_inf(y) && x != y) return nan_code<F>(false);  // inf + -inf
    return overflow_code<F>(B::negative(B::is_inf(x) ? x : y));
  }
  if (B::is_zero(x) && B::is_zero(y)) return (x & y & B::kSign) ? spec(F).sign_bit() : 0;
  if ((y & B::kMagnitude) > (x & B::kMagnitude)) std::swap(x, y);
  const int d = B::exponent(x) - B::exponent(y);
  // x is a value of F, so re-encoding it is exact.
  if (B::is_zero(y) || d > kHeadroom) return encode_binary32<F>(x);
  const uint64_t mx = uint64_t{B::significand(x)} << kHeadroom;
  const uint64_t my = uint64_t{B::significand(y)} << (kHeadroom - d);
  const bool same_sign = ((x ^ y) & B::kSign) == 0;
  const uint64_t sum = same_sign ? mx + my : mx - my;  // < 2^63, and >= 0 as |x| >= |y|
  if (sum == 0) return 0;                              // x + (-x) = +0 in round-to-nearest
  return round_pack<F>(B::negative(x), sum, B::exponent(x) - kHeadroom);
}

// x * y: the significands' product has at most 48 bits, so it is exact in a uint64_t.
template <Format F>
uint32_t mul(uint32_t x, uint32_t y) {
  const bool neg = B::negative(x) != B::negative(y);
  if (B::is_inf(x) || B::is_inf(y)) {
    if (B::is_zero(x) || B::is_zero(y)) return nan_code<F>(false);  // 0 * inf
    return overflow_code<F>(neg);
  }
  if (B::is_zero(x) || B::is_zero(y)) return neg ? spec(F).sign_bit() : 0;
  return round_pack<F>(neg, uint64_t{B::significand(x)} * B::significand(y),
                       B::exponent(x) + B::exponent(y));
}

// Total order of non-NaN values with -0 below +0: magnitude for positives, below zero for
// negatives (-0 maps to -1).
inline int64_t order_key(uint32_t x) {
  const int64_t magnitude = x & B::kMagnitude;
  return B::negative(x) ? -magnitude - 1 : magnitude;
}

// One element: codes in, code out.
template <Format F, Op O>
uint32_t apply_one(const DecodeTables& t, uint32_t a, uint32_t b) {
  const uint32_t x = to_binary32<F>(t, a);
  const uint32_t y = to_binary32<F>(t, b);
  if (B::is_nan(x)) return nan_code<F>(B::negative(x));
  if (B::is_nan(y)) return nan_code<F>(B::negative(y));
  if constexpr (O == Op::add) return add<F>(x, y);
  if constexpr (O == Op::sub) return add<F>(x, y ^ B::kSign);
  if constexpr (O == Op::mul) return mul<F>(x, y);
  // min and max return an operand's own code: no rounding, and the sign of zero is kept.
  if constexpr (O == Op::min) return order_key(x) <= order_key(y) ? a : b;
  if constexpr (O == Op::max) return order_key(x) >= order_key(y) ? a : b;
}

// Each element is read before its own destination element is written, so dst may be a or b.
template <Format F, Op O>
void apply_elements(const uint8_t* a, const uint8_t* b, uint8_t* dst, size_t count,
                    const DecodeTables& t) {
  if constexpr (F == Format::fp4_e2m1) {
    for (size_t i = 0; i < count; i += 2) {
      const uint32_t even = apply_one<F, O>(t, load<F>(a, i), load<F>(b, i));
      const uint32_t odd = apply_one<F, O>(t, load<F>(a, i + 1), load<F>(b, i + 1));
      store_fp4_pair(dst, i, even, odd);
    }
  } else {
    for (size_t i = 0; i < count; ++i)
      store<F>(dst, i, apply_one<F, O>(t, load<F>(a, i), load<F>(b, i)));
  }
}

using ApplyFn = void (*)(const uint8_t*, const uint8_t*, uint8_t*, size_t, const DecodeTables&);

template <size_t... I>
constexpr std::array<ApplyFn, sizeof...(I)> make_appliers(std::index_sequence<I...>) {
  return {&apply_elements<static_cast<Format>(I / kOpCount), static_cast<Op>(I % kOpCount)>...};
}

// Indexed by format * kOpCount + op.
constexpr auto kAppliers = make_appliers(std::make_index_sequence<kFormatCount * kOpCount>{});

}  // namespace
}  // namespace detail

Status apply(Op op, Format fmt, const uint8_t* a, size_t a_bytes, const uint8_t* b, size_t b_bytes,
             uint8_t* dst, size_t dst_bytes) noexcept {
  size_t count = 0;
  if (Status s = element_count(fmt, a_bytes, &count); s != Status::ok) return s;
  if (b_bytes != a_bytes) return Status::operand_length_mismatch;
  if (dst_bytes != a_bytes) return Status::dst_length_mismatch;
  for (const uint8_t* operand : {a, b}) {
    if (dst != operand && detail::overlap(operand, a_bytes, dst, dst_bytes)) {
      return Status::overlapping_buffers;
    }
  }
  if (count == 0) return Status::ok;
  const auto apply_fn =
      detail::kAppliers[static_cast<unsigned>(fmt) * kOpCount + static_cast<unsigned>(op)];
  apply_fn(a, b, dst, count, detail::decode_tables());
  return Status::ok;
}

Status apply(uint64_t op_code, uint64_t fmt_code, const uint8_t* a, size_t a_bytes,
             const uint8_t* b, size_t b_bytes, uint8_t* dst, size_t dst_bytes) noexcept {
  const auto op = op_from_code(op_code);
  if (!op) return Status::unknown_op;
  const auto fmt = format_from_code(fmt_code);
  if (!fmt) return Status::unknown_format;
  return apply(*op, *fmt, a, a_bytes, b, b_bytes, dst, dst_bytes);
}

}  // namespace dpusim::formats
