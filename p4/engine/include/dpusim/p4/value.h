// Fixed-width values of the P4 engine.
//
// bmv2 evaluates expressions at infinite precision and truncates on assignment to a field
// (JSON_format.md, "General information"). A value here is a 576-bit two's-complement
// integer: fields are at most 512 bits (P4_MAX_FIELD_BITS), and the 64 bits of headroom keep
// the sign of a difference such as `ttl - 1` (which p4c feeds to usat_cast for a saturating
// subtraction), so comparisons and saturating casts of intermediate values agree with
// bmv2's. A result that needs more than 576 bits (a product of two 512-bit values, a left
// shift past the carried width) keeps its low 576 bits, which are exact; the evaluator
// tracks how many of them are known and faults where the lost ones decide (expr_wide.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace dpusim::p4 {

inline constexpr int kValueLimbs = 9;
inline constexpr int kValueBits = kValueLimbs * 64;

struct Value {
  // Little-endian limbs: w[0] holds bits 0..63.
  std::uint64_t w[kValueLimbs];

  static Value zero() {
    Value v;
    v.clear();
    return v;
  }
  static Value of(std::uint64_t x) {
    Value v = zero();
    v.w[0] = x;
    return v;
  }
  // 2^bits - 1: the mask of a field of that width.
  static Value ones(int bits) {
    Value v;
    for (auto& limb : v.w) limb = ~0ull;
    v.truncate(bits);
    return v;
  }
  // The mask of the top `prefix` bits of a `width`-bit field.
  static Value prefix_mask(int width, int prefix);

  void clear() {
    for (auto& limb : w) limb = 0;
  }
  bool is_zero() const {
    std::uint64_t acc = 0;
    for (auto limb : w) acc |= limb;
    return acc == 0;
  }
  bool is_negative() const { return (w[kValueLimbs - 1] >> 63) != 0; }
  // True when the value is non-negative and below 2^64; `out` receives it.
  bool fits_u64(std::uint64_t* out) const;
  // Number of significant bits of a non-negative value (0 for zero).
  int bit_length() const;
  bool bit(int i) const { return ((w[i / 64] >> (i % 64)) & 1u) != 0; }

  // Keep the low `bits` bits, as an assignment to an unsigned field of that width does.
  void truncate(int bits);

  // Big-endian bytes (the wire and table-key representation).
  void set_bytes_be(const std::uint8_t* data, std::size_t n);
  // Writes the low n*8 bits as n big-endian bytes.
  void get_bytes_be(std::uint8_t* data, std::size_t n) const;

  std::string to_hex() const;      // "0x..." of a non-negative value, "-0x..." otherwise
  std::string to_decimal() const;  // "123", "-5"
};

bool operator==(const Value& a, const Value& b);
inline bool operator!=(const Value& a, const Value& b) { return !(a == b); }
// Signed comparison (two's complement at kValueBits).
int compare(const Value& a, const Value& b);

void value_add(Value& r, const Value& a, const Value& b);
void value_sub(Value& r, const Value& a, const Value& b);
void value_mul(Value& r, const Value& a, const Value& b);
// Truncating division and remainder (the sign of a remainder follows the dividend), as
// bmv2's big integers do. Returns false on division by zero.
bool value_div(Value& r, const Value& a, const Value& b);
bool value_mod(Value& r, const Value& a, const Value& b);
void value_and(Value& r, const Value& a, const Value& b);
void value_or(Value& r, const Value& a, const Value& b);
void value_xor(Value& r, const Value& a, const Value& b);
void value_not(Value& r, const Value& a);
void value_neg(Value& r, const Value& a);
// Shifts by `n` bits; n must be < kValueBits (callers handle wider shifts).
void value_shl(Value& r, const Value& a, unsigned n);
// Arithmetic: a negative value stays negative, as floor division by 2^n does.
void value_shr(Value& r, const Value& a, unsigned n);
// bmv2's usat_cast(a, width): clamp to [0, 2^width - 1].
void value_usat_cast(Value& r, const Value& a, int width);
// bmv2's sat_cast(a, width): clamp to [-2^(width-1), 2^(width-1) - 1].
void value_sat_cast(Value& r, const Value& a, int width);
// bmv2's two_comp_mod(a, width): the low `width` bits read as a signed number.
void value_two_comp_mod(Value& r, const Value& a, int width);

// Parses bmv2's "hexstr" (0x-prefixed hex, optionally negative) or a decimal string.
// Returns false when the text is not a number or needs more than P4_MAX_FIELD_BITS bits.
bool parse_hexstr(const std::string& text, Value* out, bool* negative);
bool parse_number(const std::string& text, Value* out);  // "0x.." or decimal, non-negative

}  // namespace dpusim::p4
