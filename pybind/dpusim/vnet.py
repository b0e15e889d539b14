"""The virtio-net application's platform as a scenario reaches it besides the fabric: its
stdin commands, and read-only views of the model for tests (drivers never use these)."""
from dataclasses import dataclass

from dpusim.futures import Future


@dataclass(frozen=True)
class CommandResult:
    """What a line on the application's stdin came to (models/vnet/command.cpp): `outcome` is
    OK, REJECTED, IGNORED, DROPPED, SKIPPED or the DOCA result of its work item (AGAIN,
    IN_PROGRESS, NOT_FOUND, ALREADY_EXIST, NOT_SUPPORTED, BAD_STATE...); `log` the
    application's lines it produced as (thread, level, msg); `time_ps` when the outcome was
    known."""

    id: int
    line: str
    outcome: str
    log: tuple
    time_ps: int

    @property
    def ok(self):
        return self.outcome == "OK"

    @property
    def lines(self):
        return [msg for _, _, msg in self.log]


def command(sim, line):
    """Sends `line` to the application's stdin now; a future of its CommandResult."""
    import _dpusim

    cid = _dpusim.vnet.command(sim.platform, line)
    done = sim.wait_event("command", path="vnet.main", id=cid)
    out = Future(sim, f"command {line!r}")

    def finished(f):
        if f.exception() is not None:
            out.set_exception(f.exception())
            return
        e = f.result()
        out.set_result(CommandResult(e["id"], e["line"], e["outcome"],
                                     tuple((x["path"], x["level"], x["msg"]) for x in e["lines"]), e["time_ps"]))

    done.add_done_callback(finished)
    return out


class Vnet:
    def __init__(self, sim):
        import _dpusim

        self._m = _dpusim.vnet
        self._p = sim.platform
        self._sim = sim

    def command(self, line):
        """A line on the application's stdin: "plug <i>", "unplug <i>", "speed <i> <mbps>"; a
        future of its CommandResult (sim.command is the same)."""
        return command(self._sim, line)

    def acg_credits(self):
        """ACG credits the application has cached now."""
        return self._m.acg_credits(self._p)

    def vq_state(self, ep, vq):
        return self._m.vq_state(self._p, ep, vq)

    def reset_state(self, ep):
        return self._m.reset_state(self._p, ep)

    def counters(self, ep):
        return self._m.counters(self._p, ep)

    def submit_work(self, type, ep=-1, arg=0, arg2=0):
        """Test hook: queues a PCI_CFG_WORK_* item as the application's own code would."""
        return self._m.submit_work(self._p, type, ep, arg, arg2)

    def active_qps(self, ep):
        return self._m.active_qps(self._p, ep)


def vnet(sim):
    return Vnet(sim)
