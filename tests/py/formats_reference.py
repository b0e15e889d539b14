"""Exact reference for the numeric-formats tests, by rational arithmetic.

Each format is restated from its defining document (IEEE 754 binary32/binary16, bfloat16 as
binary32's top half, OCP OFP8 rev 1.0 for E4M3/E5M2, OCP MX v1.0 for E2M1), values are
``fractions.Fraction`` computed from the sign, exponent and mantissa fields, and rounding is
the definition of round-to-nearest-even: divide by the quantum and ``round()`` the Fraction
(Python rounds a Fraction's half to even). Nothing here shares code with the codec.
"""
from dataclasses import dataclass
from fractions import Fraction

TWO = Fraction(2)


@dataclass(frozen=True)
class Fmt:
    name: str
    bits: int
    exp_bits: int
    man_bits: int
    bias: int
    specials: str  # "ieee": all-ones exponent is inf/NaN; "e4m3": only S.1111.111 is NaN; "none"

    @property
    def sign(self):
        return 1 << (self.bits - 1)

    @property
    def emin(self):
        return 1 - self.bias

    @property
    def max_value(self):
        top = (1 << self.exp_bits) - 1
        if self.specials == "ieee":  # the top exponent is reserved; mantissa all ones
            return (2 - TWO ** -self.man_bits) * TWO ** (top - 1 - self.bias)
        if self.specials == "e4m3":  # the top exponent is finite but for all-ones mantissa
            return (2 - TWO ** (1 - self.man_bits)) * TWO ** (top - self.bias)
        return (2 - TWO ** -self.man_bits) * TWO ** (top - self.bias)


FORMATS = {
    f.name: f
    for f in (
        Fmt("fp32", 32, 8, 23, 127, "ieee"),
        Fmt("fp16", 16, 5, 10, 15, "ieee"),
        Fmt("bf16", 16, 8, 7, 127, "ieee"),
        Fmt("fp8_e4m3", 8, 4, 3, 7, "e4m3"),
        Fmt("fp8_e5m2", 8, 5, 2, 15, "ieee"),
        Fmt("fp4_e2m1", 4, 2, 1, 1, "none"),
    )
}
# The limits the specifications state, so a slip in the restatement above is caught here.
assert FORMATS["fp8_e4m3"].max_value == 448 and FORMATS["fp8_e5m2"].max_value == 57344
assert FORMATS["fp4_e2m1"].max_value == 6 and FORMATS["fp16"].max_value == 65504


@dataclass(frozen=True)
class Value:
    kind: str  # "num", "inf" or "nan"
    negative: bool
    magnitude: Fraction = Fraction(0)

    @property
    def signed(self):
        return -self.magnitude if self.negative else self.magnitude


def decode(f, code):
    negative = bool(code & f.sign)
    field = (code >> f.man_bits) & ((1 << f.exp_bits) - 1)
    mantissa = code & ((1 << f.man_bits) - 1)
    top = (1 << f.exp_bits) - 1
    if f.specials == "ieee" and field == top:
        return Value("inf" if mantissa == 0 else "nan", negative)
    if f.specials == "e4m3" and field == top and mantissa == (1 << f.man_bits) - 1:
        return Value("nan", negative)
    if field == 0:
        magnitude = Fraction(mantissa, 1 << f.man_bits) * TWO ** f.emin
    else:
        magnitude = (1 + Fraction(mantissa, 1 << f.man_bits)) * TWO ** (field - f.bias)
    return Value("num", negative, magnitude)


def nan_code(f, negative):
    """The canonical quiet NaN (quiet bit set, no payload); +-max in E2M1, which has no NaN."""
    sign = f.sign if negative else 0
    if f.specials == "ieee":
        return sign | ((1 << f.exp_bits) - 1) << f.man_bits | 1 << (f.man_bits - 1)
    return sign | (f.sign - 1)  # E4M3's S.1111.111; E2M1's S.11.1, which is 6


def overflow_code(f, negative):
    """Infinity where the format has one, else the largest finite value."""
    sign = f.sign if negative else 0
    if f.specials == "ieee":
        return sign | ((1 << f.exp_bits) - 1) << f.man_bits
    return sign | exact_code(f, f.max_value)


def floor_log2(q):
    e = q.numerator.bit_length() - q.denominator.bit_length()
    return e - 1 if TWO**e > q else e


def exact_code(f, r):
    """The code of a representable magnitude r."""
    if r == 0:
        return 0
    e = floor_log2(r)
    if e < f.emin:
        n = r / TWO ** (f.emin - f.man_bits)
        assert n.denominator == 1
        return int(n)
    n = r / TWO ** (e - f.man_bits) - (1 << f.man_bits)
    assert n.denominator == 1
    return (e + f.bias) << f.man_bits | int(n)


def round_to(f, negative, magnitude):
    """Round an exact magnitude to nearest, ties to even; overflow to inf or max."""
    sign = f.sign if negative else 0
    if magnitude == 0:
        return sign
    quantum = TWO ** (max(floor_log2(magnitude), f.emin) - f.man_bits)
    rounded = round(magnitude / quantum) * quantum
    if rounded > f.max_value:
        return overflow_code(f, negative)
    return sign | exact_code(f, rounded)


def encode_value(f, v):
    if v.kind == "nan":
        return nan_code(f, v.negative)
    if v.kind == "inf":
        return overflow_code(f, v.negative)
    return round_to(f, v.negative, v.magnitude)


def _order_key(v):
    """Numeric order with -0 below +0 (for non-NaN values)."""
    if v.kind == "inf":
        return (-1 if v.negative else 1, 0, 0)
    return (0, v.signed, 0 if v.negative else 1)


def apply(op, f, a, b):
    """The rules of docs/formats.md for one element: codes in, code out."""
    x, y = decode(f, a), decode(f, b)
    if x.kind == "nan":
        return nan_code(f, x.negative)
    if y.kind == "nan":
        return nan_code(f, y.negative)
    if op in ("min", "max"):
        a_below = _order_key(x) <= _order_key(y)
        return a if (op == "min") == a_below else b
    if op == "sub":
        y = Value(y.kind, not y.negative, y.magnitude)
        op = "add"
    if op == "add":
        if x.kind == "inf" or y.kind == "inf":
            if x.kind == y.kind == "inf" and x.negative != y.negative:
                return nan_code(f, False)
            return overflow_code(f, (x if x.kind == "inf" else y).negative)
        exact = x.signed + y.signed
        if exact == 0:  # -0 only from -0 + -0; an exact cancellation is +0
            both_negative_zeros = x.negative and y.negative and x.magnitude == y.magnitude == 0
            return f.sign if both_negative_zeros else 0
        return round_to(f, exact < 0, abs(exact))
    assert op == "mul"
    negative = x.negative != y.negative
    if x.kind == "inf" or y.kind == "inf":
        if (x.kind == "num" and x.magnitude == 0) or (y.kind == "num" and y.magnitude == 0):
            return nan_code(f, False)
        return overflow_code(f, negative)
    return round_to(f, negative, x.magnitude * y.magnitude)


def pack(f, codes):
    """Codes laid out as in memory: little-endian, fp4 two a byte with the even one low."""
    if f.bits == 4:
        assert len(codes) % 2 == 0
        return bytes(codes[i] | codes[i + 1] << 4 for i in range(0, len(codes), 2))
    return b"".join(c.to_bytes(f.bits // 8, "little") for c in codes)


def unpack(f, data):
    if f.bits == 4:
        return [n for byte in data for n in (byte & 0xF, byte >> 4)]
    width = f.bits // 8
    return [int.from_bytes(data[i : i + width], "little") for i in range(0, len(data), width)]
