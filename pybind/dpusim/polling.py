"""Polling until a condition holds or a timeout passes: the loop Linux drivers write as

    do { v = read(); if (cond(v)) break; msleep(step); } while (time left);

(pcie_poll_cmd and pci_bus_check_dev in drivers/pci/hotplug/pciehp_hpc.c, pcie_wait_for_link
and pci_dev_wait in drivers/pci/pci.c, ionic_dev_cmd_wait in
drivers/net/ethernet/pensando/ionic/ionic_dev.c, vp_reset in virtio_pci_modern.c), written
once here and reached as Sim.poll. The drivers differ in what they count against the timeout
and where they give up, and a driver's reads are TLPs a run's hash depends on, so both are
parameters, each named for the Linux idiom it stands for:

- counts="time": the simulated time since the first read, reads included (a jiffies
  deadline: `end = jiffies + timeout; ... while (time_before(jiffies, end))`);
  counts="waits": the waits alone, each counted as `step` if given (the nominal step a
  `timeout -= step` loop subtracts while msleep may sleep longer), else as its own length.
- give_up="after_wait": a wait follows every failed read, then the loop ends once the time
  counted reaches the timeout (the do-while: the last read is the one before that wait);
  give_up="before_wait": the loop ends right after a failed read once the time counted has
  reached the timeout.
"""
import inspect
from dataclasses import dataclass

from dpusim.errors import PollTimeout

COUNTS = ("time", "waits")
GIVE_UP = ("after_wait", "before_wait")


@dataclass(frozen=True)
class Polled:
    """A poll that ended on its condition: the value read last and the reads made."""
    value: object
    reads: int


def _ps(x):
    return x() if callable(x) else x


async def poll(sim, read, cond, every, timeout=None, what="the condition", *, counts="time", step=None,
               give_up="after_wait"):
    """Reads `read()` (a coroutine function, or a plain function) until `cond(value)` is true,
    waiting `every` ps between reads (or every() ps, called once per wait: a timing parameter
    drawn under exploration, a backoff). Returns Polled(value, reads). With a `timeout` (ps;
    None polls forever) raises PollTimeout naming `what`, the reads and the last value when
    the time counted reaches it, as the module docstring says."""
    if counts not in COUNTS:
        raise ValueError(f"poll counts={counts!r}: one of {', '.join(COUNTS)}")
    if give_up not in GIVE_UP:
        raise ValueError(f"poll give_up={give_up!r}: one of {', '.join(GIVE_UP)}")
    if step is not None and counts != "waits":
        raise ValueError("poll step= is what each wait counts: it needs counts='waits'")
    start = sim.now
    spent = 0
    reads = 0

    def over():
        used = sim.now - start if counts == "time" else spent
        return timeout is not None and used >= timeout, used

    while True:
        value = read()
        if inspect.isawaitable(value):
            value = await value
        reads += 1
        if cond(value):
            return Polled(value, reads)
        if give_up == "before_wait":
            done, used = over()
            if done:
                raise PollTimeout(what, value, reads, used, timeout)
        wait = int(_ps(every))
        await sim.sleep(wait)
        spent += wait if step is None else int(_ps(step))
        if give_up == "after_wait":
            done, used = over()
            if done:
                raise PollTimeout(what, value, reads, used, timeout)


__all__ = ["poll", "Polled", "PollTimeout"]
