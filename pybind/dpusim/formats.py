"""Numeric formats of the P4 engine's fp8 extern: conversion and elementwise arithmetic.

The same codec the engine runs (``p4/formats``), bit for bit. Rules, layouts and the format
table are in ``docs/formats.md``; in short:

- Formats by name, numbered as the P4 engine guide numbers them: ``fp32`` (0), ``fp16`` (1),
  ``bf16`` (2), ``fp8_e4m3`` (3, OCP, no infinity), ``fp8_e5m2`` (4, OCP),
  ``fp4_e2m1`` (5, OCP MXFP4, no infinity or NaN).
- Buffers are bytes-like in, ``bytes`` out, laid out as in memory: multi-byte elements
  little-endian, ``fp4_e2m1`` two elements a byte with the even element in the low nibble.
- Round to nearest, ties to even, once. Too large: infinity where the format has one, else the
  largest finite value. NaN: the canonical quiet NaN with its sign, or +-6 in ``fp4_e2m1``.
- Bad arguments (an unknown name, a length that is not a whole number of elements, an odd
  ``fp4_e2m1`` count, operands of unequal length) raise ValueError naming the argument, the
  value and the rule; a buffer that is not bytes-like raises TypeError.

>>> import struct
>>> convert("fp32", "fp8_e4m3", struct.pack("<2f", 1.0, 1000.0)).hex()
'387e'
>>> apply("add", "fp8_e4m3", bytes([0x38]), bytes([0x38])).hex()
'40'
"""
from dpusim import native

_codec = native().formats

#: The format names, indexed by the number a P4 table entry carries.
FORMATS = tuple(_codec.FORMATS)
#: The operation names, indexed by the number the extern's ``apply`` takes.
OPS = tuple(_codec.OPS)


def convert(src, dst, data):
    """Convert every element of ``data`` from format ``src`` to format ``dst``.

    Returns the result as ``bytes``: as many elements as ``data`` holds, in ``dst``'s layout.
    """
    return _codec.convert(src, dst, data)


def apply(op, fmt, a, b):
    """Elementwise ``a op b`` over two equal-length buffers of format ``fmt``.

    ``op`` is one of ``add``, ``sub``, ``mul``, ``min``, ``max``. The exact result of each
    element is rounded once; returns ``bytes`` of the operands' length.
    """
    return _codec.apply(op, fmt, a, b)
