"""The guest-misbehaviour fuzzers over a few hundred seeds, one test item per seed (the dpusim
pytest plugin): never a crash or a hang, and the invariant checker clean apart from what the
guest is entitled to cause, which each scenario declares expected (any other violation fails
the run, and the report names the seed and its replay command). The full sweeps, 1000 seeds of
each with schedule exploration, are docs/reliability.md's commands."""
import functools
import os

import pytest

from dpusim.scenario_file import load_scenario

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
fuzz, FUZZ_PLATFORM = load_scenario(os.path.join(ROOT, "scenarios", "guest_fuzz.py"))
fuzz_rings, RINGS_PLATFORM = load_scenario(os.path.join(ROOT, "scenarios", "guest_fuzz_rings.py"))
fuzz_ionic, IONIC_PLATFORM = load_scenario(os.path.join(ROOT, "scenarios", "guest_fuzz_ionic.py"))


@pytest.mark.dpusim(platform=FUZZ_PLATFORM, seeds=range(1, 301))
async def test_guest_fuzz_seed(sim):
    assert await fuzz(sim, operations=60) == 60


@pytest.mark.dpusim(platform=RINGS_PLATFORM, seeds=range(1, 41))
async def test_guest_fuzz_descriptor_rings_seed(sim):
    statuses = await fuzz_rings(sim, rounds=3)
    assert len(statuses) == 3


@pytest.mark.dpusim(platform=IONIC_PLATFORM, seeds=range(1, 31))
def test_guest_fuzz_ionic_seed(sim):
    res = sim.run(functools.partial(fuzz_ionic, operations=80))
    assert res.ok, res.describe()
    assert len(res.events("devcmd", path="ep0")) > 14  # the fuzzer's own commands ran
    assert len(res.events("rdma_wqe", path="ep0")) + len(res.events("rdma_admin", path="ep0")) > 10


@pytest.mark.dpusim(platform=IONIC_PLATFORM, seeds=[497, 503])
async def test_guest_fuzz_ionic_regression_seed(sim):
    """Seeds of a sweep that once crashed the device: work in flight on a QP the guest
    destroyed (or reset) and re-created."""
    await fuzz_ionic(sim)
