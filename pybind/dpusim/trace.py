"""The host side of the run's trace (trace.json, written by the platform: tlm/trace_writer.h).

The platform turns its own event stream into tracks and slices; what only Python knows, its
tasks (the host CPU's work: a driver's probe, an IRQ thread, the scenario itself), reaches
the trace here as sink-only events (`platform.trace_task`: the event log and its hash stay as
they are), with the rules that place them:

  - a task is a slice on its own track ("host" / "<name> #<n>", n in spawn order) from its
    spawn to its end, and every await inside it a nested slice named by what it waits for
    ("sleep(100000000)", "config_read 03:00.0+0x10", "event {...}"). A task runs in no
    simulated time between two awaits, so a wait ends where the task's next wait (or its end)
    begins: one event per await.
  - the drivers' `virtio_net` steps are instants on "host" / "virtio_net".
"""
from dpusim.errors import Cancelled

TASK_RULES = [
    {"event": "task_spawn", "kind": "begin", "key": "task/{task}", "process": "host",
     "thread": "{name} #{task}", "name": "{name}", "lanes": False, "category": "task"},
    # A wait begun under the key of the task's previous wait ends that one.
    {"event": "task_wait", "kind": "begin", "key": "wait/{task}", "process": "host",
     "thread": "{name} #{task}", "name": "{what}", "lanes": False, "category": "task"},
    {"event": "task_end", "kind": "end", "key": "wait/{task}"},
    {"event": "task_end", "kind": "end", "key": "task/{task}"},
    {"event": "virtio_net", "kind": "instant", "process": "host", "thread": "virtio_net",
     "name": "{bdf} {step}"},
]


class TaskTracer:
    """The runtime's observer (Sim.observer): each task's life and waits as trace events."""

    def __init__(self, sim):
        self._event = sim.platform.trace_task
        self._ids = {}  # task -> its number, in spawn order (looked up, never iterated)

    def task_spawned(self, task):
        self._ids[task] = n = len(self._ids) + 1
        self._event("task_spawn", n, task.name, "", "")

    def task_waits(self, task, fut):
        self._event("task_wait", self._ids[task], task.name, "what", fut.label or type(fut).__name__)

    def task_done(self, task):
        exc = task.exception()
        outcome = "cancelled" if isinstance(exc, Cancelled) else ("raised" if exc is not None else "returned")
        self._event("task_end", self._ids[task], task.name, "outcome", outcome)


def trace_host_tasks(sim):
    """Registers the host's trace rules and makes `sim` report its tasks (tracing runs only)."""
    for rule in TASK_RULES:
        sim.platform.add_trace_rule(rule)
    sim.observer = TaskTracer(sim)
