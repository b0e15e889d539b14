// 576-bit two's-complement arithmetic for the engine's values (see value.h).
#include "dpusim/p4/value.h"

#include <cctype>

#include "dpusim/p4/limits.h"

namespace dpusim::p4 {

bool Value::fits_u64(std::uint64_t* out) const {
  for (int i = 1; i < kValueLimbs; ++i)
    if (w[i] != 0) return false;
  *out = w[0];
  return true;
}

int Value::bit_length() const {
  for (int i = kValueLimbs - 1; i >= 0; --i)
    if (w[i] != 0) return i * 64 + (64 - __builtin_clzll(w[i]));
  return 0;
}

void Value::truncate(int bits) {
  if (bits >= kValueBits) return;
  int limb = bits / 64;
  int rem = bits % 64;
  if (rem != 0) {
    w[limb] &= (~0ull) >> (64 - rem);
    ++limb;
  }
  for (int i = limb; i < kValueLimbs; ++i) w[i] = 0;
}

void Value::set_bytes_be(const std::uint8_t* data, std::size_t n) {
  clear();
  // Byte i from the end lands in bits 8*i..8*i+7.
  for (std::size_t i = 0; i < n && i < static_cast<std::size_t>(kValueLimbs * 8); ++i) {
    std::uint64_t byte = data[n - 1 - i];
    w[i / 8] |= byte << (8 * (i % 8));
  }
}

void Value::get_bytes_be(std::uint8_t* data, std::size_t n) const {
  for (std::size_t i = 0; i < n; ++i) {
    std::uint8_t byte = 0;
    if (i < static_cast<std::size_t>(kValueLimbs * 8))
      byte = static_cast<std::uint8_t>(w[i / 8] >> (8 * (i % 8)));
    data[n - 1 - i] = byte;
  }
}

std::string Value::to_hex() const {
  Value mag = *this;
  std::string sign;
  if (is_negative()) {
    value_neg(mag, *this);
    sign = "-";
  }
  static const char digits[] = "0123456789abcdef";
  std::string out;
  int nibbles = (mag.bit_length() + 3) / 4;
  if (nibbles == 0) nibbles = 1;
  for (int i = nibbles - 1; i >= 0; --i)
    out.push_back(digits[(mag.w[i / 16] >> (4 * (i % 16))) & 0xf]);
  return sign + "0x" + out;
}

std::string Value::to_decimal() const {
  Value mag = *this;
  std::string sign;
  if (is_negative()) {
    value_neg(mag, *this);
    sign = "-";
  }
  if (mag.is_zero()) return "0";
  std::string digits;
  const Value ten = Value::of(10);
  while (!mag.is_zero()) {
    Value q, r;
    value_div(q, mag, ten);
    value_mod(r, mag, ten);
    digits.push_back(static_cast<char>('0' + r.w[0]));
    mag = q;
  }
  return sign + std::string(digits.rbegin(), digits.rend());
}

Value Value::prefix_mask(int width, int prefix) {
  Value m;
  value_xor(m, ones(width), ones(width - prefix));
  return m;
}

bool operator==(const Value& a, const Value& b) {
  for (int i = 0; i < kValueLimbs; ++i)
    if (a.w[i] != b.w[i]) return false;
  return true;
}

int compare(const Value& a, const Value& b) {
  bool an = a.is_negative(), bn = b.is_negative();
  if (an != bn) return an ? -1 : 1;
  // Same sign: two's-complement words compare as unsigned.
  for (int i = kValueLimbs - 1; i >= 0; --i) {
    if (a.w[i] != b.w[i]) return a.w[i] < b.w[i] ? -1 : 1;
  }
  return 0;
}

void value_add(Value& r, const Value& a, const Value& b) {
  unsigned __int128 carry = 0;
  for (int i = 0; i < kValueLimbs; ++i) {
    carry += static_cast<unsigned __int128>(a.w[i]) + b.w[i];
    r.w[i] = static_cast<std::uint64_t>(carry);
    carry >>= 64;
  }
}

void value_sub(Value& r, const Value& a, const Value& b) {
  std::uint64_t borrow = 0;
  for (int i = 0; i < kValueLimbs; ++i) {
    std::uint64_t ai = a.w[i], bi = b.w[i];
    std::uint64_t d = ai - bi - borrow;
    borrow = (ai < bi || (ai == bi && borrow)) ? 1 : 0;
    r.w[i] = d;
  }
}

void value_mul(Value& r, const Value& a, const Value& b) {
  Value out = Value::zero();
  for (int i = 0; i < kValueLimbs; ++i) {
    if (a.w[i] == 0) continue;
    unsigned __int128 carry = 0;
    for (int j = 0; i + j < kValueLimbs; ++j) {
      carry += static_cast<unsigned __int128>(a.w[i]) * b.w[j] + out.w[i + j];
      out.w[i + j] = static_cast<std::uint64_t>(carry);
      carry >>= 64;
    }
  }
  r = out;
}

void value_and(Value& r, const Value& a, const Value& b) {
  for (int i = 0; i < kValueLimbs; ++i) r.w[i] = a.w[i] & b.w[i];
}
void value_or(Value& r, const Value& a, const Value& b) {
  for (int i = 0; i < kValueLimbs; ++i) r.w[i] = a.w[i] | b.w[i];
}
void value_xor(Value& r, const Value& a, const Value& b) {
  for (int i = 0; i < kValueLimbs; ++i) r.w[i] = a.w[i] ^ b.w[i];
}
void value_not(Value& r, const Value& a) {
  for (int i = 0; i < kValueLimbs; ++i) r.w[i] = ~a.w[i];
}
void value_neg(Value& r, const Value& a) {
  Value inv;
  value_not(inv, a);
  value_add(r, inv, Value::of(1));
}

void value_shl(Value& r, const Value& a, unsigned n) {
  Value out = Value::zero();
  unsigned limbs = n / 64, bits = n % 64;
  for (int i = kValueLimbs - 1; i >= static_cast<int>(limbs); --i) {
    std::uint64_t v = a.w[i - limbs] << bits;
    if (bits != 0 && i - static_cast<int>(limbs) - 1 >= 0) v |= a.w[i - limbs - 1] >> (64 - bits);
    out.w[i] = v;
  }
  r = out;
}

void value_shr(Value& r, const Value& a, unsigned n) {
  std::uint64_t fill = a.is_negative() ? ~0ull : 0;
  Value out;
  unsigned limbs = n / 64, bits = n % 64;
  for (int i = 0; i < kValueLimbs; ++i) {
    unsigned src = i + limbs;
    std::uint64_t lo = src < static_cast<unsigned>(kValueLimbs) ? a.w[src] : fill;
    std::uint64_t hi = src + 1 < static_cast<unsigned>(kValueLimbs) ? a.w[src + 1] : fill;
    out.w[i] = bits == 0 ? lo : (lo >> bits) | (hi << (64 - bits));
  }
  r = out;
}

namespace {

// Unsigned long division of non-negative values; d must be non-zero.
void divmod_unsigned(const Value& n, const Value& d, Value* q, Value* rem) {
  std::uint64_t n64, d64;
  if (n.fits_u64(&n64) && d.fits_u64(&d64)) {
    *q = Value::of(n64 / d64);
    *rem = Value::of(n64 % d64);
    return;
  }
  Value quot = Value::zero(), r = Value::zero();
  for (int i = n.bit_length() - 1; i >= 0; --i) {
    value_shl(r, r, 1);
    if (n.bit(i)) r.w[0] |= 1;
    if (compare(r, d) >= 0) {
      value_sub(r, r, d);
      quot.w[i / 64] |= 1ull << (i % 64);
    }
  }
  *q = quot;
  *rem = r;
}

void abs_value(Value& r, const Value& a) {
  if (a.is_negative())
    value_neg(r, a);
  else
    r = a;
}

}  // namespace

bool value_div(Value& r, const Value& a, const Value& b) {
  if (b.is_zero()) return false;
  Value na, nb, q, rem;
  abs_value(na, a);
  abs_value(nb, b);
  divmod_unsigned(na, nb, &q, &rem);
  if (a.is_negative() != b.is_negative()) value_neg(q, q);
  r = q;
  return true;
}

bool value_mod(Value& r, const Value& a, const Value& b) {
  if (b.is_zero()) return false;
  Value na, nb, q, rem;
  abs_value(na, a);
  abs_value(nb, b);
  divmod_unsigned(na, nb, &q, &rem);
  if (a.is_negative()) value_neg(rem, rem);
  r = rem;
  return true;
}

void value_usat_cast(Value& r, const Value& a, int width) {
  if (a.is_negative()) {
    r = Value::zero();
    return;
  }
  if (a.bit_length() > width) {
    r = Value::ones(width);
    return;
  }
  r = a;
}

void value_sat_cast(Value& r, const Value& a, int width) {
  if (width <= 0) {
    r = Value::zero();
    return;
  }
  // max = 2^(width-1) - 1, min = -2^(width-1)
  Value max = Value::ones(width - 1), min;
  value_not(min, max);
  if (compare(a, max) > 0)
    r = max;
  else if (compare(a, min) < 0)
    r = min;
  else
    r = a;
}

void value_two_comp_mod(Value& r, const Value& a, int width) {
  if (width <= 0) {
    r = Value::zero();
    return;
  }
  Value v = a;
  v.truncate(width);
  if (width < kValueBits && v.bit(width - 1)) {
    // Sign-extend: set every bit from `width` up.
    Value high;
    value_xor(high, Value::ones(kValueBits), Value::ones(width));
    value_or(v, v, high);
  }
  r = v;
}

bool parse_hexstr(const std::string& text, Value* out, bool* negative) {
  std::size_t pos = 0;
  *negative = false;
  if (pos < text.size() && text[pos] == '-') {
    *negative = true;
    ++pos;
  }
  // bmv2 reads a hexstr as hexadecimal with or without its 0x (legacy p4c-bm writes "7").
  if (text.size() >= pos + 2 && text[pos] == '0' && (text[pos + 1] == 'x' || text[pos + 1] == 'X')) pos += 2;
  if (pos >= text.size()) return false;
  // Leading zeros are free: p4c pads literals to the width of their destination.
  while (pos + 1 < text.size() && text[pos] == '0') ++pos;
  Value v = Value::zero();
  std::size_t nibbles = text.size() - pos;
  if (nibbles * 4 > static_cast<std::size_t>(P4_MAX_FIELD_BITS) + 3) return false;
  for (std::size_t i = pos; i < text.size(); ++i) {
    int c = static_cast<unsigned char>(text[i]);
    int d;
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
      d = c - 'A' + 10;
    else
      return false;
    value_shl(v, v, 4);
    v.w[0] |= static_cast<std::uint64_t>(d);
  }
  if (v.bit_length() > P4_MAX_FIELD_BITS) return false;
  *out = v;
  return true;
}

bool parse_number(const std::string& text, Value* out) {
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    bool negative = false;
    return parse_hexstr(text, out, &negative) && !negative;
  }
  if (text.empty() || text.size() > 160) return false;
  Value v = Value::zero();
  for (char ch : text) {
    if (!std::isdigit(static_cast<unsigned char>(ch))) return false;
    value_mul(v, v, Value::of(10));
    value_add(v, v, Value::of(static_cast<std::uint64_t>(ch - '0')));
    if (v.bit_length() > P4_MAX_FIELD_BITS) return false;
  }
  *out = v;
  return true;
}

}  // namespace dpusim::p4
