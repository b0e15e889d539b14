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

#include "dpusim/p4/value.h"
#include "program.h"

namespace dpusim::p4 {

// The value is whole; any other count (0 to kValueBits) is of known low bits.
inline constexpr int kWhole = kValueBits + 1;

// A binary data operator of bmv2's (kAdd to kBitXor, kShl and kShr included) on operands with
// ka and kb known bits; returns the result's. On a fault (division by zero, a negative
// operand of / or %, a negative shift amount, an operand that must be whole and is not) it
// sets *fault and returns 0.
int wide_binary(ExprOp op, Value& r, const Value& a, int ka, const Value& b, int kb, const char** fault);

// The number of bits of a two's-complement value without its sign: x < 2^n for x >= 0,
// x >= -2^n for x < 0.
int magnitude_bits(const Value& x);

inline constexpr const char* kNotWhole = "a value past the carried 576 bits where its high bits matter";

}  // namespace dpusim::p4
