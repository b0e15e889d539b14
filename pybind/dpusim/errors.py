"""The errors of a dpusim run, in a module that imports nothing of the package, so the runtime,
the host, the drivers and the test helpers all raise and catch the same classes by type."""


class SimError(Exception):
    """Base of the runtime's errors."""


class InvariantViolation(SimError):
    """The invariant checker failed the run (the message names the event's time and path)."""


class Deadlock(SimError):
    """Every task waits for something that nothing in the simulation will ever produce."""


class SimTimeout(SimError):
    """An awaited operation did not finish within the simulated time it was given."""


class PollTimeout(SimTimeout):
    """A poll (Sim.poll) gave up: `what` it waited for, the `value` its last read returned,
    the `reads` it made and the time it counted against its timeout (`spent_ps`)."""

    def __init__(self, what, value, reads, spent_ps, timeout_ps):
        shown = f"{value:#x}" if isinstance(value, int) and not isinstance(value, bool) else repr(value)
        super().__init__(f"{what}: not reached after {reads} reads, {spent_ps} ps of a {timeout_ps} ps timeout "
                         f"(last read {shown})")
        self.what, self.value, self.reads, self.spent_ps = what, value, reads, spent_ps


class Cancelled(BaseException):
    """Thrown into a task that was cancelled (by a timeout, or explicitly)."""


class ScenarioFailed(AssertionError):
    """A run that was expected to succeed did not (RunResult.check): the message says why."""
