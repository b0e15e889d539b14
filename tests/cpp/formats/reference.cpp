#include "reference.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace dpusim::formats::testing {
namespace {

uint32_t exp_field(const RefFormat& f, uint32_t code) {
  return (code >> f.man_bits) & ((1u << f.exp_bits) - 1);
}
uint32_t man_field(const RefFormat& f, uint32_t code) { return code & ((1u << f.man_bits) - 1); }
uint32_t sign_code(const RefFormat& f) { return 1u << (f.bits - 1); }
uint32_t all_ones_exp(const RefFormat& f) { return (1u << f.exp_bits) - 1; }

}  // namespace

RefKind ref_kind(const RefFormat& f, uint32_t code) {
  const uint32_t e = exp_field(f, code);
  const uint32_t m = man_field(f, code);
  switch (f.specials) {
    case RefSpecials::ieee:
      if (e == all_ones_exp(f)) return m == 0 ? RefKind::infinity : RefKind::nan;
      return RefKind::finite;
    case RefSpecials::e4m3:  // OFP8: S.1111.111 is NaN, nothing is infinity
      return (e == all_ones_exp(f) && m == (1u << f.man_bits) - 1) ? RefKind::nan : RefKind::finite;
    case RefSpecials::none: return RefKind::finite;
  }
  return RefKind::finite;
}

bool ref_negative(const RefFormat& f, uint32_t code) { return (code & sign_code(f)) != 0; }

double ref_value(const RefFormat& f, uint32_t code) {
  const int e = static_cast<int>(exp_field(f, code));
  const double m = man_field(f, code);
  const double scale = std::ldexp(1.0, f.man_bits);
  // Subnormal: 0.m * 2^(1 - bias); normal: 1.m * 2^(e - bias).
  const double magnitude =
      e == 0 ? std::ldexp(m / scale, 1 - f.bias) : std::ldexp(1.0 + m / scale, e - f.bias);
  return ref_negative(f, code) ? -magnitude : magnitude;
}

uint32_t ref_nan(const RefFormat& f, bool negative) {
  const uint32_t sign = negative ? sign_code(f) : 0;
  switch (f.specials) {
    case RefSpecials::ieee: return sign | all_ones_exp(f) << f.man_bits | 1u << (f.man_bits - 1);
    case RefSpecials::e4m3: return sign | 0x7F;
    case RefSpecials::none: return sign | 0x7;  // E2M1 has no NaN: +-6
  }
  return 0;
}

uint32_t ref_overflow(const RefFormat& f, bool negative) {
  const uint32_t sign = negative ? sign_code(f) : 0;
  switch (f.specials) {
    case RefSpecials::ieee: return sign | all_ones_exp(f) << f.man_bits;  // infinity
    case RefSpecials::e4m3: return sign | 0x7E;                           // 448
    case RefSpecials::none: return sign | 0x7;                            // 6
  }
  return 0;
}

RefRounder::RefRounder(const RefFormat& f) : f_(f) {
  if (f.bits > 16) throw std::invalid_argument("RefRounder enumerates formats of at most 16 bits");
  for (uint32_t code = 0; code < sign_code(f); ++code) {
    if (ref_kind(f, code) == RefKind::finite) positives_.emplace_back(ref_value(f, code), code);
  }
  std::sort(positives_.begin(), positives_.end());
}

uint32_t RefRounder::round(double exact) const {
  const bool negative = std::signbit(exact);
  if (std::isnan(exact)) return ref_nan(f_, negative);
  const uint32_t sign = negative ? sign_code(f_) : 0;
  if (std::isinf(exact)) return ref_overflow(f_, negative);
  const double x = std::fabs(exact);
  const auto& [max_value, max_code] = positives_.back();
  if (x > max_value) {
    // Without infinity, everything above max saturates. With it, IEEE 754 rounds as if the
    // exponent were unbounded: the next value up would be 2^(emax+1), with an even (zero)
    // mantissa, so the midpoint itself goes up and overflows.
    if (f_.specials != RefSpecials::ieee) return ref_overflow(f_, negative);
    const double beyond = std::ldexp(1.0, static_cast<int>(all_ones_exp(f_)) - f_.bias);
    return x < (max_value + beyond) / 2 ? (sign | max_code) : ref_overflow(f_, negative);
  }
  // First value >= x, and the one before it.
  auto hi = std::lower_bound(positives_.begin(), positives_.end(), std::make_pair(x, uint32_t{0}));
  if (hi->first == x) return sign | hi->second;
  auto lo = hi - 1;
  const double mid = (lo->first + hi->first) / 2;
  uint32_t code;
  if (x < mid) {
    code = lo->second;
  } else if (x > mid) {
    code = hi->second;
  } else {
    code = (lo->second % 2 == 0) ? lo->second : hi->second;  // the even mantissa
  }
  return sign | code;
}

uint32_t float_bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

float bits_float(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

uint32_t ref_round_fp32(double exact) {
  if (std::isnan(exact)) return ref_nan(kRefFormats[0], std::signbit(exact));
  return float_bits(static_cast<float>(exact));
}

}  // namespace dpusim::formats::testing
