"""The host's choice points under schedule exploration (docs/explore.md).

A platform built with ``"explore"`` in its document perturbs, within what the specs allow,
every timing that is a range rather than a constant (tlm/explore.h on the C++ side). The host
side is here: the runtime's own knobs and the choice points drivers and scenarios declare.

  host.ties      two host tasks whose sleeps end at the same picosecond resume in a drawn
                 order (two CPUs do not take turns in task order);
  host.issue_ps  each host access enters the root complex 0..1 us after the driver issued
                 it (the CPU's own instructions between two accesses, an interrupt taken in
                 between), never before an access issued earlier;
  choice.NAME    a scenario's or driver's own choice point: a delay or an option drawn in the
                 range it gives (when a second CPU issues its access, which device it resets).

Without exploration every call returns the nominal value and draws nothing, so a nominal run
is the run it always was. Every draw comes from the knob's own seeded stream, counted by the
platform (the explore summary event and shrinking use the counts).
"""

HOST_KNOBS = ("host.ties", "host.issue_ps")
ISSUE_MAX_PS = 1_000_000  # 1 us: an estimate of a driver's work between two MMIO accesses


def check_knob(knob):
    """Raises ValueError unless `knob` names a host-side knob (host.ties, host.issue_ps,
    choice.NAME)."""
    if knob in HOST_KNOBS or (knob.startswith("choice.") and len(knob) > len("choice.")):
        return
    raise ValueError(f"unknown host exploration knob '{knob}' (host.ties, host.issue_ps or choice.NAME)")


class HostChoices:
    """What `sim.explore` offers: the host's choice points, nominal unless exploring."""

    def __init__(self, platform):
        self._p = platform
        self.enabled = platform.explore_enabled()

    def on(self, knob):
        return self.enabled and self._p.explore_knob_on(knob)

    def _draw(self, knob, n):
        return self._p.explore_draw(knob, n)

    def delay(self, name, nominal_ps, lo_ps, hi_ps):
        """A delay in picoseconds at choice point `choice.<name>`: `nominal_ps` in a nominal
        run, uniform in [lo_ps, hi_ps] under exploration."""
        if not lo_ps <= hi_ps:
            raise ValueError(f"choice point {name}: range {lo_ps}..{hi_ps} ps is empty")
        knob = f"choice.{name}"
        check_knob(knob)
        if not self.on(knob):
            return int(nominal_ps)
        return int(lo_ps) + self._draw(knob, int(hi_ps) - int(lo_ps) + 1)

    def pick(self, name, options, nominal=0):
        """One of `options` at choice point `choice.<name>`: options[nominal] in a nominal run,
        any of them under exploration."""
        options = list(options)
        if not options:
            raise ValueError(f"choice point {name}: no options")
        knob = f"choice.{name}"
        check_knob(knob)
        if not self.on(knob):
            return options[nominal]
        return options[self._draw(knob, len(options))]

    def tie(self):
        """The tie-break key of a host timer (0: program order)."""
        return self._draw("host.ties", 1 << 62) if self.on("host.ties") else 0

    def issue_delay(self):
        """How long after the driver issues an access it enters the root complex."""
        return self._draw("host.issue_ps", ISSUE_MAX_PS + 1) if self.on("host.issue_ps") else 0
