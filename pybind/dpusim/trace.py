"""The host side of the run's trace (trace.json, written by the platform: tlm/trace_writer.h).

The platform turns its own event stream into tracks and slices; what only Python knows, its
tasks (the host CPU's work: a driver's probe, an IRQ thread, the scenario itself), reaches
the trace here, straight to the writer (`platform.trace_task_spawn`, `trace_task_wait`,
`trace_task_end`; tlm/trace_tasks.h): no event, so the event log and its hash stay as they are.

  - a task is a slice on its own track ("host" / "<name> #<n>", n in spawn order) from its
    spawn to its end, and every await inside it a nested slice named by what it waits for
    ("sleep(100000000)", "config_read 03:00.0+0x10", "event {...}"). A task runs in no
    simulated time between two awaits, so a wait ends where the task's next wait (or its end)
    begins: one call per await.
  - the drivers' `virtio_net` steps are instants on "host" / "virtio_net" (a rule: they are
    events of the log).
"""
from dpusim.errors import Cancelled

TASK_RULES = [
    {"event": "virtio_net", "kind": "instant", "process": "host", "thread": "virtio_net",
     "name": "{bdf} {step}"},
]


class TaskTracer:
    """The runtime's observer (Sim.observer): each task's life and waits, to the trace."""

    def __init__(self, sim):
        p = sim.platform
        self._spawn, self._wait, self._end = p.trace_task_spawn, p.trace_task_wait, p.trace_task_end
        self._ids = {}  # task -> its number, in spawn order (looked up, never iterated)

    def task_spawned(self, task):
        self._ids[task] = n = len(self._ids) + 1
        self._spawn(n, task.name)

    def task_waits(self, task, fut):
        self._wait(self._ids[task], fut.label or type(fut).__name__)

    def task_done(self, task):
        exc = task.exception()
        outcome = "cancelled" if isinstance(exc, Cancelled) else ("raised" if exc is not None else "returned")
        self._end(self._ids[task], outcome)


def trace_host_tasks(sim):
    """Registers the host's trace rules and makes `sim` report its tasks (tracing runs only)."""
    for rule in TASK_RULES:
        sim.platform.add_trace_rule(rule)
    sim.observer = TaskTracer(sim)
