"""Futures and tasks on simulated time: the awaitables of a scenario.

A Future is a value that will exist at some simulated time; a Task runs a coroutine, one step
each time what it awaits is done. Neither knows the simulator: both are driven by a loop (in a
run, dpusim.runtime.Sim) that offers two methods and an attribute:

- ``call_soon(fn, *args)``: runs fn(*args) after everything already ready (FIFO);
- ``report_unhandled(task, exc)``: a task failed and nothing was waiting for its result;
- ``observer``: None, or an object told of each task's spawn, waits and end
  (``task_spawned(task)``, ``task_waits(task, future)``, ``task_done(task)``; dpusim.trace).

This module imports nothing of the package but its errors.
"""
from dpusim.errors import Cancelled, SimError


class Future:
    """A value that will exist at some simulated time."""

    __slots__ = ("_loop", "done", "_value", "_exc", "_callbacks", "label")

    def __init__(self, loop, label=""):
        self._loop = loop
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
            self._loop.call_soon(cb, self)

    def add_done_callback(self, cb):
        if self.done:
            self._loop.call_soon(cb, self)
        else:
            self._callbacks.append(cb)

    def result(self):
        if not self.done:
            raise SimError(f"future {self.label!r} is not done")
        if self._exc is not None:
            raise self._exc
        return self._value

    def exception(self):
        """The exception the future was done with, or None (it succeeded)."""
        if not self.done:
            raise SimError(f"future {self.label!r} is not done")
        return self._exc

    def __await__(self):
        if not self.done:
            yield self
        return self.result()


class Task(Future):
    """A coroutine running on simulated time."""

    __slots__ = ("_coro", "name")

    def __init__(self, loop, coro, name):
        super().__init__(loop, name)
        self._coro = coro
        self.name = name
        loop.call_soon(self._step, None, None)
        if loop.observer is not None:
            loop.observer.task_spawned(self)

    def cancel(self):
        """Throws Cancelled into the task at its next step."""
        if not self.done:
            self._loop.call_soon(self._step, None, Cancelled())

    def _wakeup(self, fut):
        if self.done:
            return
        exc = fut.exception()
        if exc is not None:
            self._step(None, exc)
        else:
            self._step(fut.result(), None)

    def _step(self, value, exc):
        if self.done:
            return
        observer = self._loop.observer
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
                self._loop.report_unhandled(self, e)
            return
        finally:
            if self.done and observer is not None:
                observer.task_done(self)
        if not isinstance(yielded, Future):
            self._loop.call_soon(
                self._step, None,
                TypeError(f"task {self.name!r} awaited {yielded!r}, which is not a dpusim awaitable "
                          "(asyncio objects keep wall-clock time and cannot run here)"))
            return
        yielded.add_done_callback(self._wakeup)
        if observer is not None:
            observer.task_waits(self, yielded)
