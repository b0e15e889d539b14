"""Helpers for the RDMA path's pytest suites: the worked examples, patched as a test needs,
a memory with three regions, and work requests."""
import copy
import json
import pathlib

from dpusim import p4, rdma

DATA = pathlib.Path(__file__).resolve().parents[1] / "data" / "p4"

A, B, DST = 0x100, 0x200, 0x300
A_ADDR, B_ADDR, DST_ADDR = 0x10000, 0x11000, 0x12000
OPCODE = "meta.rdma_metadata.opcode"


def program(name, edit=None):
    """tests/data/p4/<name>, with ``edit(doc)`` applied to the parsed JSON, loaded as the device."""
    doc = json.loads((DATA / name).read_text())
    if edit is not None:
        doc = copy.deepcopy(doc)
        edit(doc)
    return p4.Engine.load(json.dumps(doc))


def reduce_entry(engine, op, fmt, opcode=rdma.IONIC_V1_OP_RDMA_WRITE, modify=False):
    engine.update({"type": "MODIFY" if modify else "INSERT", "table": "ingress.rdma_policy",
                   "match": [{"field": OPCODE, "value": opcode}], "action": "ingress.reduce",
                   "params": {"op": op, "fmt": fmt}})


def memory():
    mem = rdma.Memory(0x10000, 0x4000)
    mem.register(A, A_ADDR, 0x1000)
    mem.register(B, B_ADDR, 0x1000)
    mem.register(DST, DST_ADDR, 0x1000)
    return mem


def write(rkey, remote_addr, *sges, qp=17):
    return rdma.SendWr(rdma.IONIC_V1_OP_RDMA_WRITE, qp_num=qp, rkey=rkey, remote_addr=remote_addr,
                       sgl=[rdma.Sge(*s) for s in sges])


class Log:
    """The path's log sink: (time_ps, line) pairs."""

    def __init__(self):
        self.lines = []

    def __call__(self, time_ps, line):
        self.lines.append((time_ps, line))


def sequence(n, seed):
    """A fixed byte sequence (a linear congruential walk): the test's own data, not randomness."""
    out, x = bytearray(), seed
    for _ in range(n):
        x = (x * 1103515245 + 12345) & 0xFFFFFFFF
        out.append(x >> 16 & 0xFF)
    return bytes(out)
