"""Arithmetic at field widths 9, 32, 48, 64, 128 and 512 bits, against Python's integers
as the independent reference. For each width the test writes a program (in the shape p4c
emits for `bit<W>` arithmetic: every + - * << and ~ masked back to W bits) whose one
action computes every operator of two operands into result fields."""
import json
import random

import pytest

from dpusim import p4

OPS = ["add", "sub", "mul", "shl", "shr", "and", "or", "xor", "not", "div", "mod"]


def field(f):
    return {"type": "field", "value": ["w", f]}


def hexstr(v):
    return {"type": "hexstr", "value": hex(v)}


def expr(op, left, right):
    return {"type": "expression", "value": {"op": op, "left": left, "right": right}}


def program(width):
    mask = hexstr((1 << width) - 1)
    fields = [["a", width, False], ["b", width, False], ["s", 16, False]] + [["r_" + o, width, False] for o in OPS] + [["flags", 8, False]]
    pad = (-sum(f[1] for f in fields)) % 8
    if pad:
        fields.append(["_pad", pad, False])
    a, b, s = field("a"), field("b"), field("s")
    results = {
        "add": expr("&", expr("+", a, b), mask), "sub": expr("&", expr("-", a, b), mask),
        "mul": expr("&", expr("*", a, b), mask), "shl": expr("&", expr("<<", a, s), mask),
        "shr": expr(">>", a, s), "and": expr("&", a, b), "or": expr("|", a, b), "xor": expr("^", a, b),
        "not": expr("&", expr("~", None, a), mask), "div": expr("/", a, b), "mod": expr("%", a, b),
    }
    prims = [{"op": "assign", "parameters": [field("r_" + o), {"type": "expression", "value": e}]} for o, e in results.items()]
    flags = None
    for i, op in enumerate(["==", "!=", "<", "<=", ">", ">="]):
        bit = expr("<<", expr("b2d", None, expr(op, a, b)), hexstr(i))
        flags = bit if flags is None else expr("|", flags, bit)
    prims.append({"op": "assign", "parameters": [field("flags"), {"type": "expression", "value": flags}]})
    prims.append({"op": "assign", "parameters": [{"type": "field", "value": ["standard_metadata", "egress_spec"]},
                                                 {"type": "hexstr", "value": "0x0001"}]})
    std = [["ingress_port", 9, False], ["egress_spec", 9, False], ["egress_port", 9, False], ["instance_type", 32, False],
           ["packet_length", 32, False], ["parser_error", 32, False], ["_padding", 5, False]]
    doc = {
        "program": f"arith{width}.p4", "__meta__": {"version": [2, 23], "compiler": "https://github.com/p4lang/p4c"},
        "header_types": [{"name": "standard_metadata", "id": 0, "fields": std}, {"name": "w_t", "id": 1, "fields": fields}],
        "headers": [{"name": "standard_metadata", "id": 0, "header_type": "standard_metadata", "metadata": True},
                    {"name": "w", "id": 1, "header_type": "w_t", "metadata": False}],
        "errors": [["NoError", 0], ["PacketTooShort", 1]],
        "parsers": [{"name": "parser", "id": 0, "init_state": "start", "parse_states": [
            {"name": "start", "id": 0, "parser_ops": [{"op": "extract", "parameters": [{"type": "regular", "value": "w"}]}],
             "transition_key": [], "transitions": [{"type": "default", "value": None, "mask": None, "next_state": None}]}]}],
        "deparsers": [{"name": "deparser", "id": 0, "order": ["w"], "primitives": []}],
        "actions": [{"name": "compute", "id": 0, "runtime_data": [], "primitives": prims}],
        "pipelines": [
            {"name": "ingress", "id": 0, "init_table": "tbl_compute", "action_profiles": [], "conditionals": [], "tables": [
                {"name": "tbl_compute", "id": 0, "key": [], "match_type": "exact", "type": "simple", "max_size": 1024,
                 "with_counters": False, "support_timeout": False, "direct_meters": None, "action_ids": [0],
                 "actions": ["compute"], "base_default_next": None, "next_tables": {"compute": None},
                 "default_entry": {"action_id": 0, "action_const": True, "action_data": [], "action_entry_const": True}}]},
            {"name": "egress", "id": 1, "init_table": None, "tables": [], "action_profiles": [], "conditionals": []}],
    }
    return json.dumps(doc), fields


def pack(fields, values):
    acc, bits = 0, 0
    for name, w, _ in fields:
        acc = (acc << w) | (values.get(name, 0) & ((1 << w) - 1))
        bits += w
    return acc.to_bytes(bits // 8, "big")


def unpack(fields, data):
    acc = int.from_bytes(data, "big")
    out, shift = {}, len(data) * 8
    for name, w, _ in fields:
        shift -= w
        out[name] = (acc >> shift) & ((1 << w) - 1)
    return out


@pytest.mark.parametrize("width", [9, 32, 48, 64, 128, 512])
def test_arithmetic_matches_python_integers(width):
    text, fields = program(width)
    engine = p4.Engine.load(text)
    rng = random.Random(width)
    top = (1 << width) - 1
    edges = [0, 1, 2, top, top - 1, 1 << (width - 1), (1 << (width - 1)) - 1]
    pairs = [(x, y) for x in edges for y in edges] + [(rng.getrandbits(width), rng.getrandbits(width)) for _ in range(60)]
    for a, b in pairs:
        s = rng.randrange(0, width + 10)  # past the field's width, within the carried 576 bits
        frame = pack(fields, {"a": a, "b": b, "s": s})
        result = engine.process(p4.HOST, frame)
        if b == 0:
            assert result == p4.Dropped("fault", "division by zero")
            continue
        got = unpack(fields, result.data)
        want = {
            "r_add": (a + b) & top, "r_sub": (a - b) & top, "r_mul": (a * b) & top, "r_shl": (a << s) & top,
            "r_shr": a >> s, "r_and": a & b, "r_or": a | b, "r_xor": a ^ b, "r_not": ~a & top,
            "r_div": a // b, "r_mod": a % b,
            "flags": sum(1 << i for i, ok in enumerate([a == b, a != b, a < b, a <= b, a > b, a >= b]) if ok),
        }
        assert {k: got[k] for k in want} == want, (width, hex(a), hex(b), s)


def incremental_checksum_program():
    """The shape of an incremental IPv4 checksum in an action, as p4c emits it for bmv2: a
    concatenation (`src ++ state`, a shift and an or, masked to 48 bits) sliced into 16-bit
    words (shift and mask), a ones' complement sum of them, of the destination's two words and
    of `~csum` in a bit<32> (each + masked to 32 bits), the carries folded twice
    (`(sum & 0xffff) + (sum >> 16)`), and `~sum[15:0] == csum` taken as a flag."""
    fields = [["src", 32, False], ["dst", 32, False], ["csum", 16, False], ["state", 16, False], ["cat", 48, False],
              ["sum", 32, False], ["flag", 8, False]]
    m16, m32, m48 = hexstr(0xFFFF), hexstr(0xFFFFFFFF), hexstr((1 << 48) - 1)
    src, dst, csum, state, cat, total = (field(f) for f in ("src", "dst", "csum", "state", "cat", "sum"))

    def word(v, shift):
        return expr("&", expr(">>", v, hexstr(shift)), m16)

    def add32(a, b):
        return expr("&", expr("+", a, b), m32)

    terms = [word(cat, 32), word(cat, 16), word(cat, 0), word(dst, 16), word(dst, 0), expr("&", expr("~", None, csum), m16)]
    acc = terms[0]
    for t in terms[1:]:
        acc = add32(acc, t)
    fold = add32(expr("&", total, m16), expr(">>", total, hexstr(16)))
    same = expr("==", expr("&", expr("~", None, total), m16), csum)
    prims = [("cat", expr("&", expr("|", expr("<<", src, hexstr(16)), state), m48)), ("sum", acc), ("sum", fold), ("sum", fold),
             ("flag", expr("b2d", None, same))]
    return fields, [{"op": "assign", "parameters": [field(f), {"type": "expression", "value": e}]} for f, e in prims]


def test_incremental_checksum_matches_bmv2_unbounded_arithmetic():
    fields, prims = incremental_checksum_program()
    text, _ = program(9)
    doc = json.loads(text)
    doc["header_types"][1]["fields"] = fields
    doc["actions"][0]["primitives"] = prims + doc["actions"][0]["primitives"][-1:]  # and egress_spec = 1
    engine = p4.Engine.load(json.dumps(doc))
    rng = random.Random(26)
    cases = [(0, 0, 0, 0), (0xFFFFFFFF, 0xFFFFFFFF, 0xFFFF, 0xFFFF), (0xFFFFFFFF, 0xFFFFFFFF, 0, 0xFFFF)]
    cases += [tuple(rng.getrandbits(w) for w in (32, 32, 16, 16)) for _ in range(200)]
    for src, dst, _, state in cases[3:103]:  # the checksum that makes the sum come out right
        s = (src >> 16) + (src & 0xFFFF) + state + (dst >> 16) + (dst & 0xFFFF)
        s = (s & 0xFFFF) + (s >> 16)
        cases.append((src, dst, ~((s & 0xFFFF) + (s >> 16)) & 0xFFFF, state))
    flags = 0
    for src, dst, csum, state in cases:
        # bmv2: every intermediate at unbounded precision, truncated only by the masks p4c
        # emits and by the assignment to a field.
        cat = ((src << 16) | state) & ((1 << 48) - 1)
        total = ((cat >> 32) & 0xFFFF) + ((cat >> 16) & 0xFFFF) + (cat & 0xFFFF) + (dst >> 16) + (dst & 0xFFFF) + (~csum & 0xFFFF)
        total &= 0xFFFFFFFF
        for _ in range(2):
            total = ((total & 0xFFFF) + (total >> 16)) & 0xFFFFFFFF
        want = {"cat": cat, "sum": total, "flag": int((~total & 0xFFFF) == csum)}
        flags += want["flag"]
        got = unpack(fields, engine.process(p4.HOST, pack(fields, {"src": src, "dst": dst, "csum": csum, "state": state})).data)
        assert {k: got[k] for k in want} == want, (hex(src), hex(dst), hex(csum), hex(state))
    assert 0 < flags < len(cases)  # both branches taken
