"""The virtio-net application's platform as a scenario reaches it besides the fabric: its
stdin commands, its live update (a signal, a standby process, fault points), and read-only
views of the model for tests (drivers never use these)."""
import json
from dataclasses import dataclass

from dpusim import native
from dpusim.futures import Future


@dataclass(frozen=True)
class CommandResult:
    """What a line on the application's stdin came to (models/vnet/app/command.cpp): `outcome` is
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
    cid, path = native().vnet.command(sim.platform, line)
    done = sim.wait_event("command", path=path, id=cid)
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


def _done(sim, label, value):
    out = Future(sim, label)
    out.set_result(value)
    return out


def signal(sim, name, pid=0):
    """Sends signal `name` ("SIGUSR1", the live update's trigger) to process `pid` (0: the process
    serving the host) now; a future of what it did: "handover" (the active leaves its progress
    loop at its next iteration and hands over), "killed" (no handler: lu-mode none, or a standby)
    or "ignored" (a handover is already under way)."""
    return _done(sim, f"signal {name}", native().vnet.signal(sim.platform, name, int(pid)))


@dataclass(frozen=True)
class Process:
    """A process of the application started by a scenario (a live update's standby): `pid`, and
    futures of the events of its life (docs/vnet.md, Live update)."""

    sim: object
    pid: int

    def _op(self, op):
        return self.sim.wait_event("lu_process", pid=self.pid, op=op)

    def waiting(self):
        """Connected to the active and waiting for its trigger."""
        return self._op("waiting")

    def restored(self):
        """Restored and active ("LU restore complete -- process is active")."""
        return self._op("active")

    def exited(self):
        """Gone (the event carries the reason)."""
        return self._op("exit")


def start_standby(sim, options):
    """Starts a process of the application with `options` (its command-line flags as a platform
    document's, lu-mode "standby") beside the running one; a future of its Process. Options the
    application refuses raise ValueError with its message."""
    pid = native().vnet.start_standby(sim.platform, json.dumps(options))
    return _done(sim, "start_standby", Process(sim, pid))


class Vnet:
    def __init__(self, sim):
        self._m = native().vnet
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

    def vf_state(self, ep, slot):
        """SR-IOV VF `slot` of PF `ep`: its slot's flags, its Requester ID, whether it has an
        engine (then its VQ states and datapath counters), the doorbells it got without one,
        and the frames its engines dropped when destroyed or got without one."""
        return self._m.vf_state(self._p, ep, slot)

    def processes(self):
        """Every process of the application: pid, mode, LU state, alive, serving (the host)."""
        return self._m.processes(self._p)

    def frames(self):
        """The frame ledger so far: sent, received, dropped (by reason), in_flight."""
        return self._m.frames(self._p)

    def lu_shm(self):
        """The live update's SHM segment as the standby reads it (a dict), or None."""
        return self._m.lu_shm(self._p)

    def lu_fault(self, point, action="fail", value=0, skip=0, count=1):
        """A fault at a point of the live update: "msg.<NAME>" with drop, corrupt (the value) or
        close; a standby step ("standby.enable"...) with fail. Fires on the (skip+1)-th time the
        point is reached, `count` times (0: every time)."""
        return self._m.lu_fault(self._p, point, action, int(value), int(skip), int(count))


def vnet(sim):
    return Vnet(sim)
