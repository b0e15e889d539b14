"""The scenario runtime: async tasks on simulated time, driving one platform.

Scenarios are ``async def scenario(sim)`` functions. Awaiting is what advances time: the
runtime runs every ready task (in the order they became ready: spawn order first), and only
when every task is blocked does it let SystemC run, until the next thing a task waits for
happens (a completion, a watched event, an MSI) or the next timer. Python owns the run loop;
no SystemC process ever calls into Python. Nothing here reads the wall clock.

This is not asyncio: asyncio's loop keeps wall-clock time. Awaiting an asyncio object inside a
scenario is an error.
"""
import collections
import heapq
import json
import random

from dpusim.bdf import bdf_str

INF = 2**64 - 1


class SimError(Exception):
    """Base of the runtime's errors."""


class InvariantViolation(SimError):
    """The invariant checker failed the run (the message names the event's time and path)."""


class Deadlock(SimError):
    """Every task waits for something that nothing in the simulation will ever produce."""


class SimTimeout(SimError):
    """An awaited operation did not finish within the simulated time it was given."""


class Cancelled(BaseException):
    """Thrown into a task that was cancelled (by a timeout, or explicitly)."""


class Future:
    """A value that will exist at some simulated time."""

    __slots__ = ("_sim", "done", "_value", "_exc", "_callbacks", "label")

    def __init__(self, sim, label=""):
        self._sim = sim
        self.done = False
        self._value = None
        self._exc = None
        self._callbacks = []
        self.label = label

    def set_result(self, value):
        if self.done:
            return
        self.done = True
        self._value = value
        self._schedule_callbacks()

    def set_exception(self, exc):
        if self.done:
            return
        self.done = True
        self._exc = exc
        self._schedule_callbacks()

    def _schedule_callbacks(self):
        callbacks, self._callbacks = self._callbacks, []
        for cb in callbacks:
            self._sim._call_soon(cb, self)

    def add_done_callback(self, cb):
        if self.done:
            self._sim._call_soon(cb, self)
        else:
            self._callbacks.append(cb)

    def result(self):
        if not self.done:
            raise SimError(f"future {self.label!r} is not done")
        if self._exc is not None:
            raise self._exc
        return self._value

    def __await__(self):
        if not self.done:
            yield self
        return self.result()


class Task(Future):
    """A coroutine running on simulated time."""

    __slots__ = ("_coro", "name", "_cancel_pending")

    def __init__(self, sim, coro, name):
        super().__init__(sim, name)
        self._coro = coro
        self.name = name
        self._cancel_pending = False
        sim._call_soon(self._step, None, None)
        if sim.observer is not None:
            sim.observer.task_spawned(self)

    def cancel(self):
        """Throws Cancelled into the task at its next step."""
        if not self.done:
            self._cancel_pending = True
            self._sim._call_soon(self._step, None, Cancelled())

    def _wakeup(self, fut):
        if self.done:
            return
        if fut._exc is not None:
            self._step(None, fut._exc)
        else:
            self._step(fut._value, None)

    def _step(self, value, exc):
        if self.done:
            return
        sim = self._sim
        sim._current = self
        try:
            if exc is not None:
                yielded = self._coro.throw(exc)
            else:
                yielded = self._coro.send(value)
        except StopIteration as stop:
            self.set_result(stop.value)
            return
        except Cancelled as c:
            self.set_exception(c)
            return
        except BaseException as e:  # noqa: B902 - a task's failure is reported, never swallowed
            had_waiters = bool(self._callbacks)
            self.set_exception(e)
            if not had_waiters:
                sim._unhandled(self, e)
            return
        finally:
            sim._current = None
            if self.done and sim.observer is not None:
                sim.observer.task_done(self)
        if not isinstance(yielded, Future):
            self._sim._call_soon(
                self._step, None,
                TypeError(f"task {self.name!r} awaited {yielded!r}, which is not a dpusim awaitable "
                          "(asyncio objects keep wall-clock time and cannot run here)"))
            return
        yielded.add_done_callback(self._wakeup)
        if sim.observer is not None:
            sim.observer.task_waits(self, yielded)


async def _await(fut):
    return await fut


class Sim:
    """What a scenario gets: simulated time, tasks, the host, fault injection and the log."""

    def __init__(self, platform, doc):
        from dpusim.host import Host

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
        self._violation = None
        self._unhandled_error = None
        self._current = None
        self._tasks = []
        # Sees each task spawn, wait and end (dpusim.trace); None unless the run is traced.
        self.observer = None
        self.host = Host(self)
        self.faults = Faults(self)
        from dpusim.net import Net

        self.net = Net(self)
        self._memory_watches = {}

    # ---- time and tasks -------------------------------------------------------------------
    @property
    def now(self):
        """Simulated time in picoseconds."""
        return self.platform.now()

    def _call_soon(self, fn, *args):
        self._ready.append((fn, args))

    def sleep(self, ps):
        """A future done after `ps` picoseconds of simulated time."""
        if ps < 0:
            raise ValueError(f"sleep of {ps} ps: simulated time does not run backwards")
        fut = Future(self, f"sleep({ps})")
        self._timer_seq += 1
        heapq.heappush(self._timers, (self.now + int(ps), self._timer_seq, fut))
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
        items = [self._as_future(a) for a in aws]
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
                if fut._exc is not None:
                    out.set_exception(fut._exc)
                    return
                results[i] = fut._value
                left[0] -= 1
                if left[0] == 0:
                    out.set_result(results)
            return cb

        for i, f in enumerate(items):
            f.add_done_callback(done(i))
        return out

    def timeout(self, aw, ps):
        """A future of `aw`'s result, or SimTimeout after `ps` (a task `aw` is then cancelled)."""
        inner = self._as_future(aw)
        out = Future(self, f"timeout({ps})")
        timer = self.sleep(ps)

        def on_inner(f):
            if out.done:
                return
            if f._exc is not None:
                out.set_exception(f._exc)
            else:
                out.set_result(f._value)

        def on_timer(_):
            if out.done:
                return
            if isinstance(inner, Task):
                inner.cancel()
            out.set_exception(SimTimeout(f"{inner.label or 'operation'} did not finish within {ps} ps"))

        inner.add_done_callback(on_inner)
        timer.add_done_callback(on_timer)
        return out

    def _as_future(self, aw):
        if isinstance(aw, Future):
            return aw
        if hasattr(aw, "send") and hasattr(aw, "throw"):
            return self.spawn(aw)
        raise TypeError(f"{aw!r} is not awaitable here")

    # ---- platform access ------------------------------------------------------------------
    def _submit(self, token, label, convert):
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

    def command(self, line):
        """A line on the device application's stdin ("plug 0", "unplug 0", "speed 0 25000"),
        sent now; a future of what it came to (dpusim.vnet.CommandResult)."""
        from dpusim.vnet import command

        return command(self, line)

    def set_cost(self, name, value):
        """Overrides a timing-profile parameter from now on (logged as timing_override)."""
        self.platform.set_timing(name, int(value))

    def cost(self, name):
        return self.platform.get_timing(name)

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
    def _unhandled(self, task, exc):
        if self._unhandled_error is None:
            self._unhandled_error = exc

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
            self.host._msi(note)
        elif kind == "memory_write":
            fut = self._memory_watches.pop(note.token, None)
            if fut is not None:
                fut.set_result(note.time_ps)
        elif kind == "frame":
            self.net._arrived(note)
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
                _, _, fut = heapq.heappop(self._timers)
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
        from dpusim.bdf import bdf

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

    def systemc_report(self, severity, msg):
        """Raises a SystemC report ("info" or "warning") as a model would: it goes to the
        event log, and a warning fails the run."""
        self._sim.platform.systemc_report(severity, msg)


__all__ = ["Sim", "Future", "Task", "SimError", "InvariantViolation", "Deadlock", "SimTimeout", "Cancelled",
           "bdf_str", "INF"]
