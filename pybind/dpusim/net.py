"""Frames from the scenario's side of a wire: a wire whose end is "python" is a traffic source
and sink the scenario drives. send() puts a frame on the wire (serialised at the line rate,
logged, captured); recv() awaits the next frame that reaches the Python end."""
import collections
from dataclasses import dataclass

from dpusim.futures import Future


@dataclass(frozen=True)
class Frame:
    time_ps: int   # when its last bit arrived
    wire: int
    id: int        # the frame's id in the event log
    data: bytes


class Net:
    def __init__(self, sim):
        self._sim = sim
        self._queues = collections.defaultdict(collections.deque)
        self._waiters = collections.defaultdict(collections.deque)

    def send(self, wire, frame):
        """Puts `frame` (bytes: destination MAC to payload, no FCS) on `wire` from its Python
        end; returns the frame's id."""
        return self._sim.platform.send_frame(wire, bytes(frame))

    def recv(self, wire, timeout_ps=None):
        """Future of the next Frame to reach the Python end of `wire`."""
        fut = Future(self._sim, f"frame on wire {wire}")
        if self._queues[wire]:
            fut.set_result(self._queues[wire].popleft())
        else:
            self._waiters[wire].append(fut)
        return fut if timeout_ps is None else self._sim.timeout(fut, timeout_ps)

    def pending(self, wire):
        """Frames that reached the Python end and nobody has received yet."""
        return len(self._queues[wire])

    def on_frame(self, note):
        """The run loop's delivery of a frame that reached a Python end (a frame notification)."""
        frame = Frame(note.time_ps, note.token, note.address, bytes(note.data))
        waiters = self._waiters[note.token]
        while waiters:
            fut = waiters.popleft()
            if not fut.done:
                fut.set_result(frame)
                return
        self._queues[note.token].append(frame)
