"""The scenario runtime: async tasks on simulated time, driving one platform.

Scenarios are ``async def scenario(sim)`` functions. Awaiting is what advances time: the
runtime runs every ready task (in the order they became ready: spawn order first), and only
when every task is blocked does it let SystemC run, until the next thing a task waits for
happens (a completion, a watched event, an MSI) or the next timer. Python owns the run loop;
no SystemC process ever calls into Python. Nothing here reads the wall clock.

This is not asyncio: asyncio's loop keeps wall-clock time. Awaiting an asyncio object inside a
scenario is an error.

Sim is the loop of dpusim.futures (call_soon, report_unhandled) and routes the platform's
notifications to the host, the frames and the watched events; the futures, tasks and errors
themselves live in dpusim.futures and dpusim.errors and are re-exported here.
"""
import collections
import heapq
import json
import random

from dpusim.bdf import bdf, bdf_str
from dpusim.choices import HostChoices
from dpusim.errors import Cancelled, Deadlock, InvariantViolation, SimError, SimTimeout
from dpusim.futures import Future, Task
from dpusim.host import Host
from dpusim.net import Net
from dpusim.polling import poll as _poll
from dpusim.vnet import command as vnet_command
from dpusim.vnet import signal as vnet_signal
from dpusim.vnet import start_standby as vnet_start_standby

INF = 2**64 - 1


async def _await(fut):
    return await fut


def _as_future(sim, aw):
    """A future of `aw`: itself, or a coroutine run as a task of `sim`."""
    if isinstance(aw, Future):
        return aw
    if hasattr(aw, "send") and hasattr(aw, "throw"):
        return sim.spawn(aw)
    raise TypeError(f"{aw!r} is not awaitable here")


class Sim:
    """What a scenario gets: simulated time, tasks, the host, fault injection and the log."""

    def __init__(self, platform, doc):
        self.platform = platform
        self.doc = doc
        self.seed = platform.seed()
        # Scenario-side randomness, derived from the platform seed (Python's own hash seed is
        # pinned by the launcher and plays no part here).
        self.rng = random.Random(f"dpusim-scenario-{self.seed}")
        self._ready = collections.deque()
        self._timers = []
        self._timer_seq = 0
        self._tokens = {}
        self._watchers = {}
        self._guest_waiters = {}
        self._violation = None
        self._unhandled_error = None
        self._tasks = []
        # Sees each task spawn, wait and end (dpusim.trace); None unless the run is traced.
        self.observer = None
        # Schedule exploration's host side (dpusim.choices): nominal unless the document asks.
        self.explore = HostChoices(platform)
        self.host = Host(self)
        self.faults = Faults(self)
        self.net = Net(self)

    # ---- time and tasks -------------------------------------------------------------------
    @property
    def now(self):
        """Simulated time in picoseconds."""
        return self.platform.now()

    def call_soon(self, fn, *args):
        """Runs fn(*args) once every callback already ready has run (the futures' loop)."""
        self._ready.append((fn, args))

    def report_unhandled(self, task, exc):
        """A task failed with nobody awaiting it: the run ends with its error (the first one)."""
        if self._unhandled_error is None:
            self._unhandled_error = exc

    def sleep(self, ps, ordered=False):
        """A future done after `ps` picoseconds of simulated time. Sleeps ending at the same
        picosecond end in the order they began, unless exploration draws their order (knob
        host.ties; `ordered` keeps this one in order)."""
        if ps < 0:
            raise ValueError(f"sleep of {ps} ps: simulated time does not run backwards")
        fut = Future(self, f"sleep({ps})")
        self._timer_seq += 1
        tie = 0 if ordered else self.explore.tie()
        heapq.heappush(self._timers, (self.now + int(ps), tie, self._timer_seq, fut))
        return fut

    def spawn(self, coro, name=None):
        """Runs `coro` (a coroutine, or any dpusim awaitable) as a concurrent task; returns the
        task (awaitable)."""
        if isinstance(coro, Future):
            coro = _await(coro)
        task = Task(self, coro, name or getattr(coro, "__name__", "task"))
        self._tasks.append(task)
        return task

    def gather(self, *aws):
        """A future of the list of results of `aws` (coroutines become tasks, in order)."""
        items = [_as_future(self, a) for a in aws]
        out = Future(self, "gather")
        results = [None] * len(items)
        left = [len(items)]
        if not items:
            out.set_result([])
            return out

        def done(i):
            def cb(fut):
                if out.done:
                    return
                if fut.exception() is not None:
                    out.set_exception(fut.exception())
                    return
                results[i] = fut.result()
                left[0] -= 1
                if left[0] == 0:
                    out.set_result(results)
            return cb

        for i, f in enumerate(items):
            f.add_done_callback(done(i))
        return out

    def timeout(self, aw, ps):
        """A future of `aw`'s result, or SimTimeout after `ps` (a task `aw` is then cancelled)."""
        inner = _as_future(self, aw)
        out = Future(self, f"timeout({ps})")
        timer = self.sleep(ps)

        def on_inner(f):
            if out.done:
                return
            if f.exception() is not None:
                out.set_exception(f.exception())
            else:
                out.set_result(f.result())

        def on_timer(_):
            if out.done:
                return
            if isinstance(inner, Task):
                inner.cancel()
            out.set_exception(SimTimeout(f"{inner.label or 'operation'} did not finish within {ps} ps"))

        inner.add_done_callback(on_inner)
        timer.add_done_callback(on_timer)
        return out

    def poll(self, read, cond, every, timeout=None, what="the condition", **how):
        """A driver's poll: reads `read()` until `cond(value)`, `every` ps apart (or every() ps
        per wait), for up to `timeout` ps (None: no limit); awaited, Polled(value, reads), or
        PollTimeout naming `what`, the reads and the last value. `how`: counts= and give_up=,
        what counts against the timeout and where the loop gives up (dpusim.polling)."""
        return _poll(self, read, cond, every, timeout, what, **how)

    # ---- platform access ------------------------------------------------------------------
    def expect_completion(self, token, label, convert):
        """A future of the completion of the platform request `token` (what the platform's
        request call returned), done with convert(notification) when it arrives."""
        fut = Future(self, label)
        self._tokens[token] = (fut, convert)
        return fut

    def wait_event(self, event=None, path=None, **fields):
        """A future of the first logged event (a dict) with all these fields equal."""
        match = {}
        if event is not None:
            match["event"] = event
        if path is not None:
            match["path"] = path
        match.update(fields)
        if not match:
            raise ValueError("wait_event needs at least one field to match")
        pairs = sorted((k, json.dumps(v, ensure_ascii=False, separators=(",", ":"))) for k, v in match.items())
        wid = self.platform.add_watcher(pairs, True)
        fut = Future(self, f"event {match}")
        self._watchers[wid] = fut
        return fut

    def wait_guest(self, engine, what):
        """A future done (with the time) at the next notification `what` of the C++ guest driver
        `engine` (models/guest: _dpusim.guest.NOTE_*)."""
        fut = Future(self, f"guest driver {engine} note {what}")
        self._guest_waiters.setdefault((engine, what), []).append(fut)
        return fut

    def command(self, line):
        """A line on the device application's stdin ("plug 0", "unplug 0", "speed 0 25000"),
        sent now; a future of what it came to (dpusim.vnet.CommandResult)."""
        return vnet_command(self, line)

    def signal(self, name, pid=0):
        """A signal to a process of the device application ("SIGUSR1": the live update's
        trigger), by default the one serving the host; a future of what it did
        (dpusim.vnet.signal)."""
        return vnet_signal(self, name, pid)

    def start_standby(self, options):
        """Starts a live update's standby process of the device application with these options
        beside the running one; a future of its dpusim.vnet.Process."""
        return vnet_start_standby(self, options)

    def boot_linux(self, devices, **kw):
        """Boots a user-mode Linux kernel whose own drivers drive the endpoint functions
        `devices` ("ep0"...); a coroutine of its dpusim.linux.Linux (docs/linux.md)."""
        from dpusim.linux import boot_linux
        return boot_linux(self, devices, **kw)

    def set_cost(self, name, value):
        """Overrides a timing-profile parameter from now on (logged as timing_override)."""
        self.platform.set_timing(name, int(value))

    def cost(self, name):
        """A timing-profile parameter's current value."""
        return self.platform.get_timing(name)

    def set_fidelity(self, mode, device=None):
        """Switches the DMA of endpoint `device` ("ep0"; None: every endpoint) to fidelity
        `mode`, "tlp" (every access TLPs on every link) or "lt" (direct memory access, timed
        analytically, temporally decoupled): docs/fidelity.md. Takes effect for the accesses
        the device starts from now on; a future done at once (await it, as any sim call)."""
        self.platform.set_fidelity(mode, device or "")
        fut = Future(self, f"set_fidelity({mode!r}, {device!r})")
        fut.set_result(None)
        return fut

    def fidelity(self, device):
        """The fidelity ("tlp" or "lt") of endpoint `device`'s DMA now."""
        return self.platform.fidelity(device)
    def latency(self, name):
        """One use of a timing parameter as a driver waits it out: its value, or under
        schedule exploration a draw within its documented range (docs/timing.md)."""
        return self.platform.latency(name)

    def violation(self, kind, detail, path="scenario"):
        """Reports a broken invariant that Python-side code checks (a driver's view of a
        device) to the platform's checker: it fails the run unless declared expected."""
        self.platform.violation(path, kind, detail)

    def expect_violation(self, kind, count=1):
        """Declares `count` violations of `kind` expected (0 = any number): they are logged as
        expected and do not fail the run."""
        self.platform.expect_violation(kind, count)

    def log_event(self, path, event, **fields):
        """Writes an event to the log at the current simulated time."""
        pairs = [(k, json.dumps(v, ensure_ascii=False, separators=(",", ":"))) for k, v in fields.items()]
        self.platform.log_event(path, event, pairs)

    def log(self, msg, level="info", path="scenario"):
        """A log line of the scenario (event "log")."""
        self.log_event(path, "log", level=level, msg=msg)

    # ---- the run loop ---------------------------------------------------------------------
    def _dispatch(self, note):
        kind = note.kind
        if kind == "completion":
            fut, convert = self._tokens.pop(note.token)
            fut.set_result(convert(note))
        elif kind == "event":
            fut = self._watchers.pop(note.token, None)
            if fut is not None:
                fut.set_result(json.loads(note.text))
        elif kind == "msi":
            self.host.on_msi(note)
        elif kind == "memory_write":
            self.host.on_memory_write(note)
        elif kind == "frame":
            self.net.on_frame(note)
        elif kind == "guest":
            for fut in self._guest_waiters.pop((note.token, note.status), []):
                fut.set_result(note.time_ps)
        elif kind == "violation":
            if self._violation is None:
                self._violation = note.text

    def run(self, coro):
        """Runs `coro` (the scenario) to completion; returns its value."""
        main = self.spawn(coro, "scenario")
        while True:
            while self._ready:
                fn, args = self._ready.popleft()
                fn(*args)
                if self._unhandled_error is not None:
                    raise self._unhandled_error
                if self._violation is not None:
                    raise InvariantViolation(self._violation)
            if main.done:
                return main.result()
            deadline = self._timers[0][0] if self._timers else INF
            self.platform.advance(deadline)
            notes = self.platform.take_notifications()
            for note in notes:
                self._dispatch(note)
            if self._violation is not None:
                raise InvariantViolation(self._violation)
            now = self.platform.now()
            fired = False
            while self._timers and self._timers[0][0] <= now:
                *_, fut = heapq.heappop(self._timers)
                fut.set_result(None)
                fired = True
            if not notes and not fired and not self._ready:
                waiting = [t.name for t in self._tasks if not t.done]
                raise Deadlock(f"at {now} ps every task waits and nothing is scheduled: {', '.join(waiting)}")


class Faults:
    """Fault injection on the fabric: each rule matches TLPs by header fields and link.

    Match fields: type ("MRd", "CplD"...), path (link: "link_host", "link_dsp0"...), dir ("up"
    toward the host, "down"), requester, target, completer (BDF strings or ints), tag,
    status ("SC", "UR"...), address_lo/address_hi (memory requests in [lo, hi)), reg.
    A rule fires on its (skip+1)-th match, then up to `count` times (0 = every match).
    """

    def __init__(self, sim):
        self._sim = sim

    def _add(self, action, count, skip, delay_ps, match):
        m = {}
        for key, value in match.items():
            if key in ("requester", "target", "completer"):
                value = bdf(value)
            m[key] = value
        return self._sim.platform.add_fault(action, m, int(delay_ps), int(skip), int(count))

    def drop(self, count=1, skip=0, **match):
        return self._add("drop", count, skip, 0, match)

    def duplicate(self, count=1, skip=0, **match):
        return self._add("duplicate", count, skip, 0, match)

    def delay(self, delay_ps, count=1, skip=0, **match):
        return self._add("delay", count, skip, delay_ps, match)

    def remove(self, rule):
        self._sim.platform.remove_fault(rule)

    # ---- the mesh between devices (net/mesh.h) -------------------------------------------
    def _mesh(self, action, count, skip, delay_ps, src, dst, kind):
        return self._sim.platform.add_mesh_fault(action, src, dst, kind, int(delay_ps), int(skip), int(count))

    def mesh_drop(self, count=1, skip=0, src=None, dst=None, kind=None):
        """Drops the mesh messages from `src` to `dst` ("ep0"...) of `kind` ("SEND", "ACK"...);
        None matches any."""
        return self._mesh("drop", count, skip, 0, src, dst, kind)

    def mesh_delay(self, delay_ps, count=1, skip=0, src=None, dst=None, kind=None):
        return self._mesh("delay", count, skip, delay_ps, src, dst, kind)

    def mesh_duplicate(self, count=1, skip=0, src=None, dst=None, kind=None):
        return self._mesh("duplicate", count, skip, 0, src, dst, kind)

    def remove_mesh(self, rule):
        self._sim.platform.remove_mesh_fault(rule)

    def systemc_report(self, severity, msg):
        """Raises a SystemC report ("info" or "warning") as a model would: it goes to the
        event log, and a warning fails the run."""
        self._sim.platform.systemc_report(severity, msg)


__all__ = ["Sim", "Future", "Task", "SimError", "InvariantViolation", "Deadlock", "SimTimeout", "Cancelled",
           "bdf_str", "INF"]
