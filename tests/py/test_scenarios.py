"""Every scenarios/*.py is runnable, and replays bit for bit: twice, the same hash."""
import os

import pytest

from dpusim.cli import load_scenario
from dpusim.run import run

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# A scenario on an RTL block (rtl_*.py) needs the RTL co-simulation: marker `rtl`; one that
# boots the user-mode Linux kernel (linux_*.py, docs/linux.md) needs the kernel: marker `linux`.
MARKS = {"rtl_": pytest.mark.rtl, "linux_": pytest.mark.linux}
SCENARIOS = [next((pytest.param(f, marks=m) for p, m in MARKS.items() if f.startswith(p)), f)
             for f in sorted(f for f in os.listdir(os.path.join(ROOT, "scenarios")) if f.endswith(".py"))]


@pytest.mark.parametrize("name", SCENARIOS)
def test_scenario_runs_and_replays(name, capfd):
    fn, platform = load_scenario(os.path.join(ROOT, "scenarios", name))
    first = run(fn, platform)
    assert first.ok, first.describe()
    second = run(fn, platform)
    assert second.ok, second.describe()
    assert first.log == second.log, first_difference(first.log, second.log)
    assert first.hash == second.hash


def first_difference(a, b):
    """Where two event logs part: the line number and both lines (the first run's, the second's)."""
    la, lb = bytes(a).decode().splitlines(), bytes(b).decode().splitlines()
    for i, (x, y) in enumerate(zip(la, lb)):
        if x != y:
            return f"event {i}: first run {x}\nsecond run {y}"
    return f"one log ends at event {min(len(la), len(lb))}: {len(la)} and {len(lb)} events"
