"""What the Python drivers of network devices share once their data queues are handed to a
driver datapath in C++ (models/guest/guest_datapath.h): frames in and out in batches, so that
Python's cost is per batch and not per frame (send_many, recv_many), and traffic runs from a
seeded source checked on their way back (traffic), with their result (TrafficResult).

A driver mixes CppDatapath in and provides: fast_path() (hands its queues over, once, and
returns the C++ driver's id, kept in the attribute fast), _check_active(qp) (ValueError for a
queue pair not in use), _active_queue_pairs(), and the attributes sim, bdf and mac. It calls
fast_path_detach() when the device's queues go (a reset, a removal)."""
from dataclasses import dataclass

from dpusim import native
from dpusim.errors import SimTimeout
from dpusim.units import ms


@dataclass(frozen=True)
class TrafficResult:
    """What a traffic run (VirtioNet.traffic, Ionic.traffic) came to: frames asked for, sent
    and received; of those received, `good` ones and those the checker refused (malformed, corrupt,
    duplicate, reordered within a receive queue), `missing` ones never received; the good
    frames' latency from being posted by the driver to being taken back by it (min, mean, max,
    ps); the simulated times of the first frame posted and the last one received."""

    running: bool
    done: bool
    frames: int
    sent: int
    bytes_sent: int
    received: int
    good: int
    malformed: int
    corrupt: int
    duplicate: int
    reordered: int
    missing: int
    latency_min_ps: int
    latency_mean_ps: int
    latency_max_ps: int
    first_problem: str
    start_ps: int
    end_ps: int

    @property
    def ok(self):
        return self.good == self.frames

    @property
    def elapsed_ps(self):
        return self.end_ps - self.start_ps



class CppDatapath:
    @staticmethod
    def _guest():
        return native().guest

    def fast_path_detach(self):
        """The device went away: the C++ datapath lets go of its queues and their interrupts."""
        if self.fast is not None:
            self._guest().detach(self.sim.platform, self.fast)
            self.fast = None

    async def send_many(self, frames, qp=0):
        """start_xmit for a batch: every frame (bytes) on queue pair `qp` with one kick per 64
        (frames wait in the driver while the ring is full). Returns how many were queued."""
        frames = [bytes(f) for f in frames]
        self._check_active(qp)
        self._guest().send(self.sim.platform, self.fast_path(), qp, frames)
        return len(frames)

    async def recv_many(self, count, timeout_ps=ms(100)):
        """At least `count` received frames as (qp, bytes), in the order the driver took them;
        SimTimeout if they do not come within `timeout_ps`."""
        g, p, fid = self._guest(), self.sim.platform, self.fast_path()
        if g.received_waiting(p, fid) < count:
            ready = self.sim.wait_guest(fid, g.NOTE_FRAMES_READY)
            g.notify_when_received(p, fid, count)
            try:
                await self.sim.timeout(ready, timeout_ps)
            except SimTimeout:
                raise SimTimeout(f"{self.bdf}: {g.received_waiting(p, fid)} of {count} frames within {timeout_ps} ps")
        return list(g.take(p, fid, g.received_waiting(p, fid)))

    async def traffic(self, frames, size=64, rate_fps=0, batch=64, qps=None, dst=b"\x02\x00\x00\x00\x00\x01",
                      timeout_ps=None):
        """A traffic run in C++: `frames` frames shared over queue pairs `qps` (default: the
        active ones), each pair its own flow, made by a seeded source (sizes: an int, (min, max)
        or [(size, weight), ...]; frame bytes without FCS), at `rate_fps` frames per simulated
        second per pair (0: as fast as the rings go), `batch` frames per kick; every frame that
        comes back is checked (sequence and content). Returns a TrafficResult once all came
        back; SimTimeout after `timeout_ps` if they do not."""
        g, p, fid = self._guest(), self.sim.platform, self.fast_path()
        qps = list(range(self._active_queue_pairs())) if qps is None else list(qps)
        for qp in qps:
            self._check_active(qp)
        done = self.sim.wait_guest(fid, g.NOTE_TRAFFIC_DONE)
        g.start_traffic(p, fid, frames, size, rate_fps, batch, qps, bytes(dst), bytes(self.mac or b"\x02\0\0\0\0\x02"))
        try:
            await (done if timeout_ps is None else self.sim.timeout(done, timeout_ps))
        except SimTimeout:
            r = g.traffic(p, fid)
            raise SimTimeout(f"{self.bdf}: {r['received']} of {frames} frames back within {timeout_ps} ps "
                             f"({r['missing']} missing)")
        return TrafficResult(**g.traffic(p, fid))


__all__ = ["CppDatapath", "TrafficResult"]
