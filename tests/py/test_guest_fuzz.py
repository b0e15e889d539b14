"""The guest-misbehaviour fuzzers over a few hundred seeds, one test item per seed (the dpusim
pytest plugin): never a crash or a hang, and the invariant checker clean apart from what the
guest is entitled to cause, which each scenario declares expected (any other violation fails
the run, and the report names the seed and its replay command). The full sweeps, 1000 seeds of
each with schedule exploration, are docs/reliability.md's commands."""
import os

import pytest

from dpusim.scenario_file import load_scenario

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
fuzz, FUZZ_PLATFORM = load_scenario(os.path.join(ROOT, "scenarios", "guest_fuzz.py"))
fuzz_rings, RINGS_PLATFORM = load_scenario(os.path.join(ROOT, "scenarios", "guest_fuzz_rings.py"))


@pytest.mark.dpusim(platform=FUZZ_PLATFORM, seeds=range(1, 301))
async def test_guest_fuzz_seed(sim):
    assert await fuzz(sim, operations=60) == 60


@pytest.mark.dpusim(platform=RINGS_PLATFORM, seeds=range(1, 41))
async def test_guest_fuzz_descriptor_rings_seed(sim):
    statuses = await fuzz_rings(sim, rounds=3)
    assert len(statuses) == 3
