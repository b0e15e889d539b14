"""The numeric-formats codec through dpusim.formats, against the exact Fraction reference.

Decoding of every code of every 16-, 8- and 4-bit format, the decode / re-encode round trip,
the fp32 -> fp16 sweep against numpy's float16, and encodes and arithmetic on seeded samples.
(The C++ tests in tests/cpp/formats run the 4 Mi encode sweeps into every format and every
operand pair of the 8- and 4-bit formats against their own reference.)
"""
import random
from fractions import Fraction

import numpy as np
import pytest

import formats_reference as ref
from dpusim import formats

SMALL = ["fp16", "bf16", "fp8_e4m3", "fp8_e5m2", "fp4_e2m1"]
FP32 = ref.FORMATS["fp32"]


def all_codes(f):
    return list(range(1 << f.bits))


def fp32_values(codes):
    """Exact values of binary32 codes, from numpy's own float32 (an independent decoder)."""
    return np.array(codes, dtype=np.uint32).view(np.float32).astype(np.float64).tolist()


def test_format_names_are_numbered_as_the_guide():
    assert formats.FORMATS == tuple(ref.FORMATS)
    assert formats.OPS == ("add", "sub", "mul", "min", "max")


@pytest.mark.parametrize("name", SMALL)
def test_every_code_decodes_to_the_value_of_its_fields(name):
    f = ref.FORMATS[name]
    codes = all_codes(f)
    out = ref.unpack(FP32, formats.convert(name, "fp32", ref.pack(f, codes)))
    values = fp32_values(out)
    for code, bits, got in zip(codes, out, values):
        v = ref.decode(f, code)
        if v.kind == "nan":
            assert bits == (0xFFC00000 if v.negative else 0x7FC00000), hex(code)
        elif v.kind == "inf":
            assert got == (float("-inf") if v.negative else float("inf")), hex(code)
        else:
            assert Fraction(got) == v.signed, hex(code)
            assert bool(bits >> 31) == v.negative, hex(code)


@pytest.mark.parametrize("name", SMALL)
def test_every_non_nan_code_survives_decode_and_reencode(name):
    f = ref.FORMATS[name]
    codes = all_codes(f)
    back = ref.unpack(f, formats.convert("fp32", name, formats.convert(name, "fp32", ref.pack(f, codes))))
    for code, got in zip(codes, back):
        v = ref.decode(f, code)
        assert got == (ref.nan_code(f, v.negative) if v.kind == "nan" else code), hex(code)


def sweep():
    """4 Mi binary32 codes: both signs, every exponent field, every top-ten mantissa pattern,
    and low bits that make fp16 results exact, just above, exactly at and just below a tie."""
    sign = np.arange(2, dtype=np.uint32)[:, None, None, None] << 31
    field = np.arange(256, dtype=np.uint32)[None, :, None, None] << 23
    top = np.arange(1024, dtype=np.uint32)[None, None, :, None] << 13
    low = np.array([0x0000, 0x0001, 0x0FFF, 0x1000, 0x1001, 0x1FFF, 0x0A5A, 0x15A5], dtype=np.uint32)
    return (sign | field | top | low[None, None, None, :]).ravel()


def test_fp16_sweep_matches_numpy_float16():
    codes = sweep()
    assert codes.size >= 4 << 20
    got = np.frombuffer(formats.convert("fp32", "fp16", codes.tobytes()), dtype="<u2")
    with np.errstate(over="ignore", invalid="ignore"):
        expected = codes.view(np.float32).astype(np.float16).view(np.uint16)
    nan = np.isnan(codes.view(np.float32))
    assert nan.any() and (~nan).any()
    mismatch = np.nonzero((got != expected) & ~nan)[0]
    assert mismatch.size == 0, [(hex(codes[i]), hex(got[i]), hex(expected[i])) for i in mismatch[:5]]
    # numpy keeps NaN payloads; the codec gives the canonical quiet NaN of the same sign.
    assert np.all(got[nan] == np.where(codes[nan] >> 31, 0xFE00, 0x7E00))


@pytest.mark.parametrize("name", SMALL)
def test_sampled_sweep_encodes_as_the_exact_reference(name):
    f = ref.FORMATS[name]
    codes = sweep()[np.random.default_rng(5).choice(4 << 20, 20000, replace=False)].tolist()
    got = ref.unpack(f, formats.convert("fp32", name, ref.pack(FP32, codes)))
    for code, out in zip(codes, got):
        assert out == ref.encode_value(f, ref.decode(FP32, code)), hex(code)


def operand_pairs(f, rng, count):
    """Random codes, their near neighbours (exponents within 30, sums that cancel) and the
    special values, so every rule and both arithmetic paths come up."""
    specials = [0, f.sign, ref.nan_code(f, False), ref.nan_code(f, True), ref.overflow_code(f, False),
                ref.overflow_code(f, True), 1, f.sign | 1]
    pairs = []
    for _ in range(count):
        a = rng.getrandbits(f.bits)
        kind = rng.randrange(4)
        if kind == 0:
            b = rng.getrandbits(f.bits)
        elif kind == 1:  # exponent within 30 binades, random mantissa and sign
            field = (a >> f.man_bits) & ((1 << f.exp_bits) - 1)
            near = min(max(field + rng.randint(-30, 30), 0), (1 << f.exp_bits) - 1)
            b = rng.getrandbits(1) * f.sign | near << f.man_bits | rng.getrandbits(f.man_bits)
        elif kind == 2:  # -a and its neighbours: cancellation
            b = ((a ^ f.sign) + rng.randint(-2, 2)) % (1 << f.bits)
        else:
            b = rng.choice(specials)
        pairs.append((a, b) if rng.getrandbits(1) else (b, a))
    return pairs


@pytest.mark.parametrize(
    "name,count", [("fp32", 2000), ("bf16", 2000), ("fp16", 2000), ("fp8_e4m3", 300), ("fp8_e5m2", 300),
                   ("fp4_e2m1", 300)])
@pytest.mark.parametrize("op", ["add", "sub", "mul", "min", "max"])
def test_arithmetic_matches_the_exact_reference(name, count, op):
    f = ref.FORMATS[name]
    rng = random.Random(f"{name}-{op}")
    pairs = operand_pairs(f, rng, count)
    a = [p[0] for p in pairs]
    b = [p[1] for p in pairs]
    got = ref.unpack(f, formats.apply(op, name, ref.pack(f, a), ref.pack(f, b)))
    for x, y, out in zip(a, b, got):
        assert out == ref.apply(op, f, x, y), f"{name} {x:#x} {op} {y:#x}"
