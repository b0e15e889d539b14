"""tests/data/p4/features.json: a parser select with masks and several fields, LPM and
ternary tables, every arithmetic primitive and every comparison. Expected results are
Python integer arithmetic on the operands."""
import pathlib
import random

import pytest

from dpusim import p4
from p4_frames import ETH_OPS, ETH_VLAN, ethernet, ipv4, ops, unpack_ops, vlan

DATA = pathlib.Path(__file__).resolve().parents[1] / "data" / "p4"
M32 = 0xFFFFFFFF


def shl32(a, c):
    """(a << c) & M32 without building a << 2^32-1 (512 MiB) when c is past 32."""
    return (a << c) & M32 if c < 32 else 0


def b(x):
    return 1 if x else 0


# op code -> (action, expected (r, flags) from a and b)
OPS = {
    1: ("op_add", lambda a, c: ((a + c) & M32, None)),
    2: ("op_sub", lambda a, c: ((a - c) & M32, None)),
    3: ("op_mul", lambda a, c: ((a * c) & M32, None)),
    4: ("op_div", lambda a, c: (a // c, None)),
    5: ("op_mod", lambda a, c: (a % c, None)),
    6: ("op_shl", lambda a, c: (shl32(a, c), None)),
    7: ("op_shr", lambda a, c: (a >> c, None)),
    8: ("op_and", lambda a, c: (a & c, None)),
    9: ("op_or", lambda a, c: (a | c, None)),
    10: ("op_xor", lambda a, c: (a ^ c, None)),
    11: ("op_not", lambda a, c: (~a & M32, None)),
    12: ("op_cmp", lambda a, c: (None, b(a == c) << 5 | b(a != c) << 4 | b(a < c) << 3 | b(a <= c) << 2 | b(a > c) << 1 | b(a >= c))),
    13: ("op_logic", lambda a, c: (None, b(a < c and a != 0) << 1 | b(a == 0 or c == 0))),
    14: ("op_min", lambda a, c: (min(a, c), None)),
    15: ("op_satsub", lambda a, c: (max(a - c, 0), None)),
    16: ("op_prim_add", lambda a, c: ((a + c) & M32, None)),
    17: ("op_prim_subtract", lambda a, c: ((a - c) & M32, None)),
    18: ("op_prim_bit_and", lambda a, c: (a & c, None)),
    19: ("op_prim_bit_or", lambda a, c: (a | c, None)),
    20: ("op_prim_bit_xor", lambda a, c: (a ^ c, None)),
    21: ("op_prim_shift_left", lambda a, c: (shl32(a, c), None)),
    22: ("op_prim_shift_right", lambda a, c: (a >> c, None)),
    23: ("op_add_to_field", lambda a, c: ((c + a) & M32, None)),
    24: ("op_subtract_from_field", lambda a, c: ((c - a) & M32, None)),
    25: ("op_modify_field", lambda a, c: (a, None)),
}
SHIFTS = {6, 7, 21, 22}


@pytest.fixture
def engine():
    e = p4.Engine.load_file(DATA / "features.json")
    for code, (action, _) in OPS.items():
        e.insert("ingress.ops_tbl", [{"field": "hdr.ops.op", "value": code}], "ingress." + action)
    return e


def operands(code):
    rng = random.Random(code)
    edges = [0, 1, 2, 0x7FFFFFFF, 0x80000000, M32, 0xDEADBEEF]
    pairs = [(x, y) for x in edges for y in edges]
    pairs += [(rng.getrandbits(32), rng.getrandbits(32)) for _ in range(40)]
    if code in SHIFTS:
        # past the field's width, and past the carried 576 bits: bmv2 shifts by any amount
        pairs = [(x, y % 70) for x, y in pairs] + [(x, y) for x in edges for y in (575, 576, 1000, M32)]
    if code in (4, 5):
        pairs = [(x, y) for x, y in pairs if y != 0]
    return pairs


@pytest.mark.parametrize("code", sorted(OPS))
def test_every_arithmetic_primitive_and_comparison(engine, code):
    _, expect = OPS[code]
    for a, c in operands(code):
        frame = ethernet(ethertype=ETH_OPS) + ops(code, a, c) + b"\xaa\xbb"
        result = engine.process(p4.UPLINK, frame)
        assert isinstance(result, p4.Forwarded), (code, a, c, result)
        assert result.port == p4.UPLINK  # bounced to its ingress port
        got = unpack_ops(result.data[14:])
        r, flags = expect(a, c)
        want = {"op": code, "a": a, "b": c, "r": 0 if r is None else r, "flags": 0 if flags is None else flags}
        assert got == want, (hex(a), hex(c))
        assert result.data[28:] == b"\xaa\xbb"


def test_division_by_zero_drops_and_counts(engine):
    assert engine.process(p4.HOST, ethernet(ethertype=ETH_OPS) + ops(4, 5, 0)) == p4.Dropped("fault", "division by zero")
    assert engine.process(p4.HOST, ethernet(ethertype=ETH_OPS) + ops(5, 5, 0)).reason == "fault"
    # A shift past the carried width is no fault: bmv2's unbounded 5 << 1000, masked to 32 bits, is 0.
    shifted = engine.process(p4.HOST, ethernet(ethertype=ETH_OPS) + ops(6, 5, 1000))
    assert unpack_ops(shifted.data[14:])["r"] == 0
    assert engine.stats["faults"] == 2 and engine.stats["dropped"] == 2


def ipv4_class(result):
    """The parser's class for the frame, which ingress copies into the IPv4 identification."""
    return int.from_bytes(result.data[-16:-14], "big")


def test_select_on_several_fields_with_masks(engine):
    engine.insert("ingress.ipv4_lpm", [{"field": "hdr.ipv4.dstAddr", "value": 0, "prefix_len": 0}], "ingress.set_port", {"port": 1})
    ip = ipv4(dst="10.0.0.2")
    # VLAN 10 over IPv4 is select key 0x000a0800 (each field right-aligned in whole bytes).
    r = engine.process(p4.HOST, ethernet(ethertype=ETH_VLAN) + vlan(10, 0x0800) + ip)
    assert r.port == 1 and ipv4_class(r) == 1
    # VLAN 5 misses 0x000a0800 and matches 0x00000800 under mask 0x0f00ffff.
    r = engine.process(p4.HOST, ethernet(ethertype=ETH_VLAN) + vlan(5, 0x0800, pcp=7) + ip)
    assert r.port == 1 and ipv4_class(r) == 2
    # VLAN 300 (0x12c) matches neither: the default accepts, IPv4 stays unparsed and the
    # frame is bounced unchanged.
    frame = ethernet(ethertype=ETH_VLAN) + vlan(300, 0x0800) + ip
    assert engine.process(p4.HOST, frame) == p4.Forwarded(p4.HOST, frame)
    r = engine.process(p4.HOST, ethernet() + ip)
    assert r.port == 1 and ipv4_class(r) == 3
    # Any VLAN over the ops EtherType matches 0x000088b5 under 0x0000ffff.
    frame = ethernet(ethertype=ETH_VLAN) + vlan(4000, ETH_OPS) + ops(1, 2, 3)
    r = engine.process(p4.UPLINK, frame)
    assert unpack_ops(r.data[18:])["r"] == 5


def test_lpm_longest_prefix_wins(engine):
    for prefix, length, port in (("10.0.0.0", 8, 1), ("10.1.0.0", 16, 0), ("10.1.2.0", 24, 1)):
        value = int.from_bytes(bytes(int(x) for x in prefix.split(".")), "big")
        engine.insert("ingress.ipv4_lpm", [{"field": "hdr.ipv4.dstAddr", "value": value, "prefix_len": length}],
                      "ingress.set_port", {"port": port})
    for dst, port in (("10.1.2.3", 1), ("10.1.9.9", 0), ("10.9.9.9", 1), ("10.1.2.255", 1)):
        frame = ethernet() + ipv4(dst=dst)
        r = engine.process(p4.HOST, frame)
        assert isinstance(r, p4.Forwarded) and r.port == port, dst
    assert engine.process(p4.HOST, ethernet() + ipv4(dst="11.0.0.1")) == p4.Dropped("ingress_drop")


def test_ternary_highest_priority_wins(engine):
    engine.insert("ingress.ipv4_lpm", [{"field": "hdr.ipv4.dstAddr", "value": 0, "prefix_len": 0}], "ingress.set_port", {"port": 0})
    engine.insert("ingress.acl", [{"field": "hdr.ipv4.srcAddr", "value": 0xC0A80000, "mask": 0xFFFF0000},
                                  {"field": "hdr.ipv4.protocol", "value": 0, "mask": 0}], "ingress.mark", {"tos": 0x10}, priority=10)
    engine.insert("ingress.acl", [{"field": "hdr.ipv4.srcAddr", "value": 0xC0A80100, "mask": 0xFFFFFF00},
                                  {"field": "hdr.ipv4.protocol", "value": 6, "mask": 0xFF}], "ingress.drop", priority=20)
    assert engine.process(p4.UPLINK, ethernet() + ipv4(src="192.168.1.5", proto=6)) == p4.Dropped("ingress_drop")
    for src, proto in (("192.168.1.5", 17), ("192.168.2.5", 6)):
        r = engine.process(p4.UPLINK, ethernet() + ipv4(src=src, proto=proto))
        assert r.port == 0 and r.data[15] == 0x10, src
    r = engine.process(p4.UPLINK, ethernet() + ipv4(src="10.0.0.1"))
    assert r.port == 0 and r.data[15] == 0
