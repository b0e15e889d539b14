"""Running a scenario on a fresh platform, one platform per OS process.

SystemC elaborates once per process, so `run` forks before any SystemC object exists, builds
the platform in the child, runs the scenario there and sends back its hash, result or error.
Every run therefore starts from the same state, whatever ran before it in the parent, and two
runs of the same scenario and seed are two independent processes.
"""
import hashlib
import json
import os
import pickle
import signal
import struct
import sys
import traceback
from dataclasses import dataclass, field

from dpusim.errors import ScenarioFailed

DEFAULT_PLATFORM = {"topology": {"endpoints": 4}}


@dataclass
class RunResult:
    hash: str = ""
    failure: str = None    # an invariant violation or SystemC failure: the message names it
    error: str = None      # the scenario raised: its traceback
    doc_error: str = None  # the platform document was refused: path and reason
    result: object = None  # what the scenario returned
    log: bytes = b""       # events.jsonl as written
    out: str = None
    seed: int = 1

    @property
    def ok(self):
        return not (self.failure or self.error or self.doc_error)

    def events(self, event=None, **fields):
        """The logged events (dicts), optionally only those with these field values."""
        out = []
        for line in self.log.splitlines():
            e = json.loads(line)
            if event is not None and e.get("event") != event:
                continue
            if all(e.get(k) == v for k, v in fields.items()):
                out.append(e)
        return out

    def check(self):
        """Raises ScenarioFailed unless the run succeeded; returns self."""
        if not self.ok:
            raise ScenarioFailed(self.describe())
        return self

    def describe(self):
        if self.doc_error:
            return f"platform document refused: {self.doc_error}"
        if self.failure:
            return f"run failed: {self.failure}"
        if self.error:
            return f"scenario raised:\n{self.error}"
        return "ok"


def platform_doc(platform, seed):
    doc = dict(DEFAULT_PLATFORM if platform is None else platform)
    if seed is not None:
        doc["seed"] = seed
    doc.setdefault("seed", 1)
    return doc


def run(scenario, platform=None, seed=None, out=None, fork=True, trace=False):
    """Runs `scenario` (an ``async def f(sim)``) on a platform built from `platform` (a dict;
    `seed` overrides its seed). Outputs go to directory `out` (created; events.jsonl, waves.vcd,
    one pcap per wire, and trace.json with `trace`) or stay in memory. Returns a RunResult."""
    doc = platform_doc(platform, seed)
    if trace and not out:
        raise ValueError("a trace is written to the output directory: give `out` with trace=True")
    if not fork:
        return _run_here(scenario, doc, out, trace)
    rfd, wfd = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child: build, run, report, exit without running the parent's cleanup
        os.close(rfd)
        code = 0
        try:
            res = _run_here(scenario, doc, out, trace)
            try:
                payload = pickle.dumps(res)
            except Exception:  # an unpicklable scenario result travels as its repr
                res.result = repr(res.result)
                payload = pickle.dumps(res)
            with os.fdopen(wfd, "wb") as w:
                w.write(struct.pack("<Q", len(payload)))
                w.write(payload)
        except BaseException:
            traceback.print_exc()
            code = 3
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    os.close(wfd)
    with os.fdopen(rfd, "rb") as r:
        data = r.read()
    _, status = os.waitpid(pid, 0)
    if len(data) >= 8:
        (n,) = struct.unpack("<Q", data[:8])
        return pickle.loads(data[8:8 + n])
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        return RunResult(error=f"the simulator process died of signal {sig} ({signal.Signals(sig).name})",
                         seed=doc["seed"])
    return RunResult(error=f"the simulator process exited with status {os.WEXITSTATUS(status)} without a result",
                     seed=doc["seed"])


REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def doc_search_dirs(scenario):
    """Where a relative file name in the platform document (a device option such as a P4
    program) resolves: the folder of the file that defines the scenario, then the repository
    root."""
    dirs = []
    code = getattr(scenario, "__code__", None)
    if code is not None and os.path.isfile(code.co_filename):
        dirs.append(os.path.dirname(os.path.abspath(code.co_filename)))
    if REPO_ROOT not in dirs:
        dirs.append(REPO_ROOT)
    return dirs


def _run_here(scenario, doc, out, trace=False):
    import _dpusim

    from dpusim.runtime import InvariantViolation, Sim

    res = RunResult(seed=doc["seed"], out=out)
    text = json.dumps(doc, sort_keys=True)
    search_dirs = doc_search_dirs(scenario)
    try:
        _dpusim.platform.validate(text, search_dirs)
    except ValueError as e:
        res.doc_error = str(e)
        return res
    log_path = vcd_base = pcap_dir = ""
    if out:
        os.makedirs(out, exist_ok=True)
        log_path = os.path.join(out, "events.jsonl")
        vcd_base = os.path.join(out, "waves")
        pcap_dir = out
    trace_path = os.path.join(out, "trace.json") if trace else ""
    platform = _dpusim.platform.Platform(text, log_path, vcd_base, pcap_dir, search_dirs, trace_path)
    sim = Sim(platform, doc)
    if trace:
        from dpusim.trace import trace_host_tasks

        trace_host_tasks(sim)
    try:
        res.result = sim.run(scenario(sim))
    except InvariantViolation as e:
        res.failure = str(e)
    except BaseException:
        res.error = traceback.format_exc()
    # The end of the run (a device family's shutdown, the frame ledger) may fail it too.
    platform.finish()
    if platform.failed() and not res.failure:
        res.failure = platform.failure()
    if log_path:
        with open(log_path, "rb") as f:
            res.log = f.read()
    else:
        res.log = platform.take_log()
    res.hash = hashlib.sha256(res.log).hexdigest()
    return res
