"""The ionic device's RDMA decision path from Python: a P4 program's say over send work requests.

    from dpusim import p4, rdma
    engine = p4.Engine.load_file("tests/data/p4/fp8_policy.json")   # loads as the device does
    engine.insert("ingress.rdma_policy", [{"field": "meta.rdma_metadata.opcode",
                                           "value": rdma.IONIC_V1_OP_RDMA_WRITE}],
                  "ingress.reduce", {"op": 0, "fmt": 3})            # fp8_e4m3 add
    mem = rdma.Memory(base=0x10000, size=4096)
    mem.register(0x100, 0x10000, 64)                                # lkey/rkey 0x100
    mem.register(0x200, 0x10040, 64)
    lines = []
    path = rdma.RdmaPath(engine, log=lambda t, line: lines.append((t, line)))
    wr = rdma.SendWr(rdma.IONIC_V1_OP_RDMA_WRITE, qp_num=17, rkey=0x100, remote_addr=0x10000,
                     sgl=[rdma.Sge(0x10000, 16, 0x100), rdma.Sge(0x10040, 16, 0x200)])
    path.post_send(wr, now_ps=0, memory=mem)    # Decision("done", IBV_WC_SUCCESS, ...): a += b

The outcomes, statuses and rules are docs/rdma.md's. Simulated time is passed in, in
picoseconds; nothing here reads a clock.
"""
from dataclasses import dataclass
from typing import Sequence

from dpusim import native, p4

_rdma = native().rdma

# enum ionic_v1_op: the work request's opcode, as rdma_metadata.opcode carries it.
IONIC_V1_OP_SEND = 0
IONIC_V1_OP_SEND_INV = 1
IONIC_V1_OP_SEND_IMM = 2
IONIC_V1_OP_RDMA_READ = 3
IONIC_V1_OP_RDMA_WRITE = 4
IONIC_V1_OP_RDMA_WRITE_IMM = 5
IONIC_V1_OP_ATOMIC_CS = 6
IONIC_V1_OP_ATOMIC_FA = 7

# enum ib_access_flags
IB_ACCESS_LOCAL_WRITE = 1
IB_ACCESS_REMOTE_WRITE = 2
IB_ACCESS_REMOTE_READ = 4
IB_ACCESS_REMOTE_ATOMIC = 8

# enum ibv_wc_status (the values the decisions carry)
IBV_WC_SUCCESS = 0
IBV_WC_LOC_LEN_ERR = 1
IBV_WC_LOC_QP_OP_ERR = 2
IBV_WC_LOC_PROT_ERR = 4

#: Each operand of the fp8 unit, and its result, is at most this many bytes (1 MiB).
MAX_OPERAND_BYTES = _rdma.MAX_OPERAND_BYTES
#: At most this many denial lines in a window of DENY_LOG_WINDOW_PS of simulated time.
DENY_LOG_LINES = _rdma.DENY_LOG_LINES
DENY_LOG_WINDOW_PS = _rdma.DENY_LOG_WINDOW_PS


def _check_uint(name, value, bits):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    if not 0 <= value < (1 << bits):
        raise ValueError(f"{name} {value:#x} is outside 0..2^{bits}-1")
    return value


@dataclass(frozen=True)
class Sge:
    """One gather-list entry: guest address, length and the lkey of its region."""
    addr: int
    length: int
    lkey: int


@dataclass(frozen=True)
class SendWr:
    """A send work request. ``length`` defaults to the gather list's sum, as a driver writes it."""
    opcode: int
    qp_num: int = 0
    length: int = None
    imm_data: int = 0
    rkey: int = 0
    remote_addr: int = 0
    sgl: Sequence[Sge] = ()


@dataclass(frozen=True)
class Decision:
    """``action`` is "dispatch", "deny", "done" or "fail"; ``status`` an IBV_WC_* value with its
    ``status_name``; a failure's ``reason`` is a stable code and ``message`` names the object,
    the field, the value and the limit."""
    action: str
    status: int
    status_name: str
    reason: str = "none"
    message: str = ""

    def completes(self, signaled):
        """Whether the request gets a completion: denials and failures always do."""
        return self.action in ("deny", "fail") or signaled


class Memory:
    """Guest memory as one window [base, base + size) with a region table; two keys may cover
    the same bytes. ``owner`` is "local" or "peer" (a peer's range is not in this window)."""

    def __init__(self, base, size):
        self._memory = _rdma.Memory(_check_uint("base", base, 64), _check_uint("size", size, 64))

    def register(self, key, addr, length, access=IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE,
                 owner="local"):
        self._memory.add_region(_check_uint("key", key, 32), _check_uint("addr", addr, 64),
                                _check_uint("length", length, 64), _check_uint("access", access, 32),
                                owner)

    def deregister(self, key):
        if not self._memory.remove_region(_check_uint("key", key, 32)):
            raise ValueError(f"key {key:#x} is not registered")

    def regions(self):
        """(key, addr, length, access, owner) for each region, by key."""
        return self._memory.regions()

    def write(self, addr, data):
        self._memory.write(_check_uint("addr", addr, 64), bytes(data))

    def read(self, addr, length):
        return self._memory.read(_check_uint("addr", addr, 64), _check_uint("length", length, 64))


class RdmaPath:
    """The device's RDMA path. ``engine`` is a dpusim.p4.Engine loaded with the "device" policy
    (or None); ``log(time_ps, line)`` receives the rate-limited denial lines."""

    def __init__(self, engine=None, log=None):
        self._path = _rdma.Path(log)
        self._engine = None
        self.attach(engine)

    def attach(self, engine):
        """Attach a program (None detaches). Raises dpusim.p4.LoadError for one the path refuses."""
        ok, code, message = self._path.attach(None if engine is None else engine.native_engine)
        if not ok:
            self._engine = None
            raise p4.LoadError(code, message)
        self._engine = engine

    @property
    def has_rdma_program(self):
        return self._path.has_rdma_program

    def post_send(self, wr, now_ps, memory):
        """Runs the program over one send work request at simulated time ``now_ps``."""
        sgl = [(_check_uint("sge.addr", s.addr, 64), _check_uint("sge.length", s.length, 32),
                _check_uint("sge.lkey", s.lkey, 32)) for s in wr.sgl]
        length = sum(s[1] for s in sgl) if wr.length is None else wr.length
        return Decision(*self._path.post_send(
            _check_uint("opcode", wr.opcode, 8), _check_uint("qp_num", wr.qp_num, 32),
            _check_uint("length", length, 32), _check_uint("imm_data", wr.imm_data, 32),
            _check_uint("rkey", wr.rkey, 32), _check_uint("remote_addr", wr.remote_addr, 64),
            sgl, _check_uint("now_ps", now_ps, 64), memory._memory))

    def flush_log(self, now_ps):
        """Close the denial log's window if it is over, logging how many lines were not logged."""
        self._path.flush_log(_check_uint("now_ps", now_ps, 64))

    def denial_window_end_ps(self):
        """The simulated time the open denial window ends, or None."""
        return self._path.denial_window_end_ps()

    @property
    def stats(self):
        return self._path.stats()
