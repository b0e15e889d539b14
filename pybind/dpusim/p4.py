"""The P4 match-action engine from Python.

    from dpusim import p4
    engine = p4.Engine.load_file("prog.json")            # the device's two ports
    engine.update({"type": "INSERT", "table": "ingress.dmac",
                   "match": [{"field": "hdr.ethernet.dstAddr", "value": "0x0a0000000001"}],
                   "action": "ingress.forward", "params": {"port": 1}})
    result = engine.process(0, frame)                   # Forwarded(port, data) or Dropped(reason)

The update record is the one of UPDATES.json (see docs/p4.md); values may be Python ints
or "0x.."/decimal strings. Refusals raise LoadError / UpdateError carrying the same stable
codes as `dpusim p4 check`.
"""
from dataclasses import dataclass

from dpusim import native

HOST = 0
UPLINK = 1


class LoadError(Exception):
    """A program the engine refused: ``code`` is stable, ``message`` names the problem."""

    def __init__(self, code, message):
        super().__init__(f"error[{code}]: {message}")
        self.code = code
        self.message = message


class UpdateError(Exception):
    """A table update the engine refused."""

    def __init__(self, code, message):
        super().__init__(f"error[{code}]: {message}")
        self.code = code
        self.message = message


class CliError(Exception):
    """A simple_switch_CLI command the engine refused."""

    def __init__(self, message):
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class Forwarded:
    port: int
    data: bytes


@dataclass(frozen=True)
class Dropped:
    reason: str  # too_small, too_big, ingress_drop, egress_drop, no_such_port, fault
    fault: str = ""


@dataclass(frozen=True)
class Output:
    port: int
    data: bytes
    instance_type: int = 0  # 0 normal, 1 ingress clone, 2 egress clone, 4 recirculated, 5 replicated, 6 resubmitted


@dataclass(frozen=True)
class Digest:
    list: str
    fields: tuple  # (("header.field", "0x.."), ...)


@dataclass(frozen=True)
class Run:
    """Everything one input frame caused (Engine.run)."""
    outputs: list
    digests: list
    logs: list
    drops: int
    first_drop: str = "none"
    fault: str = ""


class Engine:
    """A loaded program with its tables. ``policy`` is "device" (ports 0 and 1, an
    unassigned egress_spec goes to the other port) or "v1model" (bmv2's ports 0-510);
    ``features`` the feature policy: "bmv2" (everything the engine builds, the default) or
    "ernic" (what rocm-ernic's P4 engine runs, the ionic device's default)."""

    def __init__(self, native_engine):
        self._engine = native_engine

    @property
    def native_engine(self):
        """The extension's engine object, for what attaches this program (dpusim.rdma)."""
        return self._engine

    @classmethod
    def load(cls, json_text, policy="device", features="bmv2"):
        engine, code, message = native().p4.load(json_text, policy, features)
        if engine is None:
            raise LoadError(code, message)
        return cls(engine)

    @classmethod
    def load_file(cls, path, policy="device", features="bmv2"):
        engine, code, message = native().p4.load_file(str(path), policy, features)
        if engine is None:
            raise LoadError(code, message)
        return cls(engine)

    def update(self, record):
        """Applies one update record; returns the entry's handle for a table INSERT."""
        ok, code, message, handle = self._engine.update(record)
        if not ok:
            raise UpdateError(code, message)
        return handle

    def insert(self, table, match, action, params=None, priority=None):
        """INSERT shorthand: ``match`` is a list of {"field", "value", "prefix_len"|"mask"}."""
        self.update({"type": "INSERT", "table": table, "match": match, "action": action,
                     "params": params or {}, "priority": priority})

    def set_default(self, table, action, params=None):
        self.update({"type": "DEFAULT", "table": table, "action": action, "params": params or {}})

    def run(self, port, frame, time_ns=0):
        """Runs one frame with simple_switch's flow at engine time ``time_ns``: every packet
        it causes (clones, multicast copies, recirculated packets), digests and log_msg lines."""
        outputs, digests, logs, drops, first_drop, fault = self._engine.run(port, bytes(frame), time_ns)
        return Run([Output(p, d, t) for p, d, t in outputs],
                   [Digest(name, tuple(fields)) for name, fields in digests], list(logs), drops, first_drop, fault)

    def cli(self, line):
        """Runs one simple_switch_CLI command (table_add, mirroring_add, mc_node_create,
        counter_read...); returns what the CLI prints. Raises CliError when refused."""
        if not hasattr(self, "_cli"):
            self._cli = native().p4.Cli(self._engine)
        ok, out, error = self._cli.execute(line)
        if not ok:
            raise CliError(error)
        return out

    def set_seed(self, seed):
        self._engine.set_seed(seed)

    def objects(self):
        """Counters, meters, registers, action profiles, parse value sets and learn lists."""
        return self._engine.objects()

    def process(self, port, frame):
        dropped, reason, out_port, data, fault = self._engine.process(port, bytes(frame))
        if dropped:
            return Dropped(reason, fault)
        return Forwarded(out_port, data)

    @property
    def stats(self):
        return self._engine.stats()

    def stats_line(self):
        return self._engine.stats_line()

    def summary(self):
        return self._engine.summary()

    def tables(self):
        return self._engine.tables()

    def run_stf(self, text):
        """Runs a p4c STF test (the engine must use the "v1model" policy).
        Returns (passed, message)."""
        passed, message, _packets, _expects = self._engine.run_stf(text)
        return passed, message
