"""dpusim.formats as docs/formats.md specifies its Python API: names, bytes-like in and bytes out,
the memory layout, and a ValueError naming the argument, the value and the rule."""
import array
import doctest
import struct

import numpy as np
import pytest

from dpusim import formats


def test_result_is_bytes_whatever_bytes_like_goes_in():
    one = struct.pack("<f", 1.0)
    for data in (one, bytearray(one), memoryview(one), array.array("f", [1.0]), np.array([1.0], np.float32)):
        out = formats.convert("fp32", "fp16", data)
        assert type(out) is bytes and out == b"\x00\x3c"
    out = formats.apply("add", "fp16", bytearray(b"\x00\x3c"), memoryview(b"\x00\x3c"))
    assert type(out) is bytes and out == b"\x00\x40"


def test_multi_byte_elements_are_little_endian():
    assert formats.convert("fp16", "fp32", b"\x00\x3c\x00\xc0") == struct.pack("<2f", 1.0, -2.0)
    assert formats.convert("fp32", "bf16", struct.pack("<f", -1.0)) == b"\x80\xbf"


def test_fp4_puts_the_even_element_in_the_low_nibble():
    assert formats.convert("fp32", "fp4_e2m1", struct.pack("<4f", 1.0, 2.0, -6.0, 0.5)) == b"\x42\x1f"
    assert formats.convert("fp4_e2m1", "fp32", b"\x42") == struct.pack("<2f", 1.0, 2.0)


def test_empty_input_gives_empty_output():
    assert formats.convert("fp16", "fp4_e2m1", b"") == b""
    assert formats.apply("max", "fp4_e2m1", b"", b"") == b""


@pytest.mark.parametrize(
    "call,words",
    [
        (lambda: formats.convert("fp64", "fp16", b""), ["src", "'fp64'", "fp32, fp16, bf16, fp8_e4m3"]),
        (lambda: formats.convert("fp16", "FP32", b""), ["dst", "'FP32'", "formats are"]),
        (lambda: formats.convert("fp16", 1, b""), ["dst", "1", "formats are"]),
        (lambda: formats.convert("fp32", "fp16", b"abcdef"), ["data", "6 bytes", "whole number", "4 bytes each"]),
        (lambda: formats.convert("fp16", "fp4_e2m1", b"abcdef"), ["data", "3 fp16 elements", "even"]),
        (lambda: formats.apply("div", "fp16", b"", b""), ["op", "'div'", "add, sub, mul, min, max"]),
        (lambda: formats.apply("add", "fp8", b"", b""), ["fmt", "'fp8'", "formats are"]),
        (lambda: formats.apply("add", "fp16", b"abc", b"abc"), ["a:", "3 bytes", "fp16", "2 bytes each"]),
        (lambda: formats.apply("add", "fp32", b"abcd", b"abc"), ["b:", "3 bytes", "fp32"]),
        (lambda: formats.apply("mul", "fp16", b"ab", b"abcd"), ["b:", "4 bytes", "a is 2 bytes", "equal length"]),
    ],
)
def test_bad_arguments_raise_value_error_naming_argument_value_and_rule(call, words):
    with pytest.raises(ValueError) as err:
        call()
    for word in words:
        assert word in str(err.value)


def test_a_buffer_that_is_not_bytes_like_is_a_type_error():
    with pytest.raises(TypeError, match="data: str is not a contiguous bytes-like object"):
        formats.convert("fp32", "fp16", "abcd")
    with pytest.raises(TypeError, match="b: "):
        formats.apply("add", "fp8_e4m3", b"\x38\x38", memoryview(b"\x38\x38\x38\x38")[::2])


def test_module_examples_hold():
    result = doctest.testmod(formats)
    assert result.attempted >= 2 and result.failed == 0
