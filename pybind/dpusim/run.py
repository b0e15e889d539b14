"""Running a scenario on a fresh platform, one platform per OS process.

SystemC elaborates once per process, so `run` forks before any SystemC object exists, builds
the platform in the child, runs the scenario there and sends back its hash, result or error.
Every run therefore starts from the same state, whatever ran before it in the parent, and two
runs of the same scenario and seed are two independent processes.
"""
import hashlib
import inspect
import json
import os
import pickle
import re
import select
import signal
import struct
import sys
import time
import traceback
from dataclasses import dataclass, field

from dpusim import native
from dpusim.choices import check_knob
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
    # "hash" when `hash` is the SHA-256 of events.jsonl as written; "hash (summary)" with the log
    # level none, where nothing is written and it is the SHA-256 of the summary stream.
    hash_label: str = "hash"
    explore: object = None  # None (nominal), "all", or the list of knobs explored
    explored: dict = field(default_factory=dict)  # knob -> draws, when exploring
    hung: bool = False      # killed after the wall-clock timeout

    @property
    def ok(self):
        return not (self.failure or self.error or self.doc_error)

    @property
    def kind(self):
        """What failed, in one word: the violated invariant's kind, the exception the scenario
        raised, "hang", "crash" or "doc_error"; None when the run succeeded."""
        if self.doc_error:
            return "doc_error"
        if self.hung:
            return "hang"
        if self.failure:
            m = re.match(r"invariant (\S+) violated", self.failure)
            return m.group(1) if m else "failure"
        if self.error:
            if self.error.startswith("the simulator process"):
                return "crash"
            last = self.error.strip().splitlines()[-1]
            return last.split(":")[0].split(".")[-1].strip() or "error"
        return None

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

    def log_tail(self, n=20):
        """The last `n` lines of the event log up to the violation that failed the run (its
        line last), or up to the end: what led to the failure."""
        lines = self.log.decode("utf-8", "replace").splitlines()
        end = len(lines)
        for i, line in enumerate(lines):
            if '"event":"invariant_violation"' in line and '"expected":false' in line:
                end = i + 1
                break
        return lines[max(0, end - n):end]

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


def platform_doc(platform, seed, explore=None):
    """The document to build: `platform` (default DEFAULT_PLATFORM) with `seed` and, when
    `explore` is given, schedule exploration: True for every knob, a list for only those."""
    doc = dict(DEFAULT_PLATFORM if platform is None else platform)
    if seed is not None:
        doc["seed"] = seed
    doc.setdefault("seed", 1)
    if explore is True:
        doc["explore"] = True
    elif explore not in (None, False):
        doc["explore"] = {"only": sorted(explore)}
    return doc


def with_profile(doc, profile):
    """`doc` with its timing starting from the named profile (docs/timing.md, Profiles), its own
    timing overrides kept beside it; `doc` itself when `profile` is None."""
    if profile is None:
        return doc
    doc = dict(doc)
    doc["timing"] = {"profile": profile, **doc.get("timing", {})}
    return doc


def take_profile_option(argv, prog):
    """Removes `--profile NAME` from the list `argv` (a benchmark's arguments) and returns NAME,
    or None when it is not there."""
    if "--profile" not in argv:
        return None
    i = argv.index("--profile")
    if i + 1 >= len(argv) or argv[i + 1].startswith("-"):
        sys.exit(f"{prog}: --profile needs a timing profile's name (docs/timing.md, Profiles)")
    name = argv[i + 1]
    del argv[i:i + 2]
    return name


def explore_of(doc):
    """None, "all" or the list of knobs the document explores."""
    e = doc.get("explore", False)
    if e is True:
        return "all"
    if isinstance(e, dict):
        return list(e.get("only", [])) if "only" in e else "all"
    return None


def run(scenario, platform=None, seed=None, out=None, fork=True, explore=None, wall_timeout=None, quiet=False,
        trace=False):
    """Runs `scenario` (an ``async def f(sim)``) on a platform built from `platform` (a dict;
    `seed` overrides its seed). Outputs go to directory `out` (created; events.jsonl, waves.vcd,
    one pcap per wire, and trace.json with `trace`) or stay in memory. `explore` turns schedule
    exploration on (True: every knob; a list: those knobs only). A child that has not reported
    after `wall_timeout` seconds of wall-clock time is killed and the run counts as hung;
    `quiet` discards what the scenario prints (a sweep's seeds). Returns a RunResult."""
    doc = platform_doc(platform, seed, explore)
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
        if quiet:
            os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
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
    data = _read_all(rfd, pid, wall_timeout)
    _, status = os.waitpid(pid, 0)
    if data is None:
        return RunResult(error=f"the run produced no result within {wall_timeout} s of wall-clock time "
                               f"(killed: a hang)", seed=doc["seed"], hung=True, explore=explore_of(doc))
    if len(data) >= 8:
        (n,) = struct.unpack("<Q", data[:8])
        return pickle.loads(data[8:8 + n])
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        return RunResult(error=f"the simulator process died of signal {sig} ({signal.Signals(sig).name})",
                         seed=doc["seed"])
    return RunResult(error=f"the simulator process exited with status {os.WEXITSTATUS(status)} without a result",
                     seed=doc["seed"])


def _read_all(fd, pid, wall_timeout):
    """Everything the child writes to `fd`, or None (the child killed) when `wall_timeout`
    seconds pass first."""
    deadline = None if wall_timeout is None else time.monotonic() + wall_timeout
    chunks = []
    with os.fdopen(fd, "rb", buffering=0) as r:
        while True:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                os.kill(pid, signal.SIGKILL)
                return None
            ready, _, _ = select.select([r], [], [], left)
            if not ready:
                continue
            chunk = r.read(1 << 20)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)


REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def doc_search_dirs(scenario):
    """Where a relative file name in the platform document (a device option such as a P4
    program) resolves: the folder of the file that defines the scenario (the wrapped function's,
    for a wrapper made with functools.wraps), then the repository root."""
    dirs = []
    code = getattr(inspect.unwrap(scenario), "__code__", None)
    if code is not None and os.path.isfile(code.co_filename):
        dirs.append(os.path.dirname(os.path.abspath(code.co_filename)))
    if REPO_ROOT not in dirs:
        dirs.append(REPO_ROOT)
    return dirs


def _run_here(scenario, doc, out, trace=False):
    from dpusim.runtime import InvariantViolation, Sim

    core = native()

    res = RunResult(seed=doc["seed"], out=out, explore=explore_of(doc))
    text = json.dumps(doc, sort_keys=True)
    search_dirs = doc_search_dirs(scenario)
    try:
        core.platform.validate(text, search_dirs)
        for knob in res.explore if isinstance(res.explore, list) else []:
            if (knob.startswith("host.") and knob not in core.platform.explore_ranges()) or knob.startswith("choice."):
                check_knob(knob)
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
    platform = core.platform.Platform(text, log_path, vcd_base, pcap_dir, search_dirs, trace_path)
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
    if res.explore is not None:
        res.explored = dict(platform.explore_used())
    if platform.log_level() == "none":
        res.hash = platform.log_digest()
        res.hash_label = "hash (summary)"
        return res
    if log_path:
        with open(log_path, "rb") as f:
            res.log = f.read()
    else:
        res.log = platform.take_log()
    res.hash = hashlib.sha256(res.log).hexdigest()
    return res
