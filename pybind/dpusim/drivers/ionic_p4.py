"""A client of the ionic NIC's P4 control surface (device commands 70 IDENTIFY, 71 RPC,
72 QUERY; docs/ionic.md, "The P4 control surface"), on top of the ionic driver: it identifies
the surface, enumerates its endpoints and operations, reads the counters, installs table
entries with the same update records as `./dpusim p4 run --entries`, and pushes a program
down in chunks. Buffers are host memory the device reads and writes by DMA.

Commands go on the Ethernet admin queue by default, or on the BAR0 devcmd window
(via="devcmd"), as a patched guest driver may send them either way. A refused command raises
P4ControlError with the device's status and, for an RPC, its `err` and the response text.
"""
import json
import struct

from dpusim.drivers.ionic import IonicError, cmd_bytes, status_name
from dpusim.drivers.ionic_regs import (COMP_STATUS, IONIC_CMD_P4_IDENTIFY, IONIC_CMD_P4_QUERY, IONIC_CMD_P4_RPC,
                                       IONIC_LIF_CAP_P4)

SCOPES = {"none": 0, "read": 1, "write": 2, "load": 3}
SCOPE_NAMES = {v: k for k, v in SCOPES.items()}
EP_ENGINE = 0
OP_READ_COUNTERS, OP_TABLE_UPDATE, OP_PROGRAM_CHUNK, OP_PROGRAM_COMMIT = 1, 2, 3, 4
QUERY_ENDPOINTS, QUERY_OPERATIONS = 0, 1
RPC_IND_REQ, RPC_IND_RESP = 0x1, 0x2
IDENT_BYTES = 32
LIST_HEADER = 16
COUNTER_ENTRY = 32
DEFAULT_CHUNK = 1024   # program bytes per chunk


class P4ControlError(IonicError):
    """A command of the control surface was refused: `status` the device's, `err` and `text` an
    RPC's operation-level error code and response text."""

    def __init__(self, message, status, err=0, text=""):
        super().__init__(message, status)
        self.err = err
        self.text = text


def parse_list(data, entry_size):
    """(entries as bytes, entries written, total entries) of a list response."""
    written, total = struct.unpack_from("<II", data, 4)
    entries = [data[LIST_HEADER + i * entry_size:LIST_HEADER + (i + 1) * entry_size] for i in range(written)]
    return entries, written, total


class IonicP4:
    def __init__(self, nic, via="adminq", claim="load"):
        if via not in ("adminq", "devcmd"):
            raise ValueError(f"via must be 'adminq' or 'devcmd', not {via!r}")
        self.nic = nic
        self.sim = nic.sim
        self.via = via
        self.claim = SCOPES[claim]

    @property
    def advertised(self):
        """Whether LIF_IDENTIFY advertised IONIC_LIF_CAP_P4 (the surface is registered)."""
        return bool(self.nic.capabilities & IONIC_LIF_CAP_P4)

    async def _command(self, cmd):
        if self.via == "devcmd":
            return await self.nic.dev_cmd(cmd, check=False)
        return await self.nic.adminq_cmd(cmd, check=False)

    def _refused(self, what, comp, err=0, text=""):
        status = comp[COMP_STATUS]
        raise P4ControlError(f"{self.nic.bdf}: P4 {what} refused: status {status} ({status_name(status)})"
                             + (f", err {err}" if err else "") + (f": {text}" if text else ""), status, err, text)

    def _buffer(self, size):
        return self.sim.host.alloc(max(size, 1), 64)

    async def identify(self):
        """IDENTIFY: {'version', 'max_req_sz', 'max_resp_sz', 'scope', 'endpoints'}."""
        h = self.sim.host
        buf = self._buffer(IDENT_BYTES)
        comp = await self._command(cmd_bytes(IONIC_CMD_P4_IDENTIFY, [(2, "B", 1), (4, "I", IDENT_BYTES), (8, "Q", buf)]))
        data = h.read(buf, IDENT_BYTES)
        h.free(buf)
        if comp[COMP_STATUS]:
            self._refused("IDENTIFY", comp)
        version, max_req, max_resp = data[8], *struct.unpack_from("<II", data, 12)
        return {"version": version, "max_req_sz": max_req, "max_resp_sz": max_resp,
                "scope": SCOPE_NAMES.get(data[22], data[22]), "endpoints": struct.unpack_from("<I", data, 24)[0]}

    async def query(self, entity, ep=0, buf_len=256):
        """QUERY: the raw list (entries as bytes, written, total)."""
        h = self.sim.host
        buf = self._buffer(buf_len)
        comp = await self._command(cmd_bytes(IONIC_CMD_P4_QUERY, [(1, "B", entity), (2, "B", 1), (4, "I", buf_len),
                                                                 (8, "Q", buf), (16, "I", ep)]))
        data = h.read(buf, buf_len)
        h.free(buf)
        if comp[COMP_STATUS]:
            self._refused("QUERY", comp)
        entry = 4 if entity == QUERY_ENDPOINTS else 8
        return parse_list(data, entry)

    async def endpoints(self, buf_len=256):
        entries, _, total = await self.query(QUERY_ENDPOINTS, buf_len=buf_len)
        return [struct.unpack_from("<I", e)[0] for e in entries], total

    async def operations(self, ep=EP_ENGINE, buf_len=256):
        """[(operation id, scope name)] within the operator's grant, and the total."""
        entries, _, total = await self.query(QUERY_OPERATIONS, ep, buf_len)
        return [(struct.unpack_from("<I", e)[0], SCOPE_NAMES.get(e[4], e[4])) for e in entries], total

    async def rpc(self, op, request=b"", resp_size=4096, ep=EP_ENGINE, claim=None, check=True):
        """RPC: (status, err, response bytes as long as the device says it is, capped at the
        buffer). Raises P4ControlError on a refusal when `check`."""
        h = self.sim.host
        req = self._buffer(len(request)) if request else 0
        if request:
            h.write(req, request)
        resp = self._buffer(resp_size) if resp_size else 0
        flags = (RPC_IND_REQ if request else 0) | (RPC_IND_RESP if resp_size else 0)
        c = self.claim if claim is None else SCOPES[claim]
        comp = await self._command(cmd_bytes(IONIC_CMD_P4_RPC, [
            (1, "B", c), (2, "H", flags), (4, "I", ep), (8, "I", op), (28, "Q", req), (36, "I", len(request)),
            (44, "Q", resp), (52, "I", resp_size)]))
        err, resp_len = struct.unpack_from("<II", comp, 4)
        data = h.read(resp, min(resp_len, resp_size)) if resp_size else b""
        for a in (req, resp):
            if a:
                h.free(a)
        if check and comp[COMP_STATUS]:
            text = data.decode("ascii", "replace") if op != OP_TABLE_UPDATE else data[4:].decode("ascii", "replace")
            self._refused(f"RPC {op}", comp, err, text)
        return comp[COMP_STATUS], err, data

    async def counters(self, resp_size=1024):
        """{name: value} of the engine's and the device's counters."""
        _, _, data = await self.rpc(OP_READ_COUNTERS, resp_size=resp_size)
        entries, _, _ = parse_list(data, COUNTER_ENTRY)
        return {e[:24].split(b"\0")[0].decode(): struct.unpack_from("<Q", e, 24)[0] for e in entries}

    async def update(self, records):
        """Applies update records (a list of dicts as UPDATES.json holds, or its JSON text) in
        order; returns how many were applied."""
        text = records if isinstance(records, (str, bytes)) else json.dumps(records, separators=(",", ":"))
        _, _, data = await self.rpc(OP_TABLE_UPDATE, text.encode() if isinstance(text, str) else text, resp_size=512)
        return struct.unpack_from("<I", data)[0]

    async def load_program(self, program, chunk=DEFAULT_CHUNK):
        """Pushes a program (a path to a bmv2 JSON file, or its bytes) in chunks, then commits
        it; returns the device's one-line summary of the program now running."""
        if isinstance(program, str):
            with open(program, "rb") as f:
                program = f.read()
        total = len(program)
        for off in range(0, total, chunk):
            await self.rpc(OP_PROGRAM_CHUNK, struct.pack("<II", off, total) + program[off:off + chunk], resp_size=256)
        _, _, data = await self.rpc(OP_PROGRAM_COMMIT, struct.pack("<I", total), resp_size=1024)
        return data.decode("ascii", "replace")


__all__ = ["IonicP4", "P4ControlError", "SCOPES", "parse_list"]
