"""The guest-misbehaviour fuzzer over a few hundred seeds: never a crash or a hang, and the
invariant checker clean apart from what the guest is entitled to cause."""
import os

import pytest

from dpusim.cli import load_scenario
from dpusim.run import run

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SEEDS = range(1, 301)
BATCH = 30


@pytest.mark.parametrize("first", range(SEEDS.start, SEEDS.stop, BATCH))
def test_guest_fuzz_seeds(first):
    fn, platform = load_scenario(os.path.join(ROOT, "scenarios", "guest_fuzz.py"))

    async def short(sim):
        return await fn(sim, operations=60)

    for seed in range(first, min(first + BATCH, SEEDS.stop)):
        res = run(short, platform, seed=seed)
        assert res.ok, (f"seed {seed} failed; replay with: ./dpusim run scenarios/guest_fuzz.py --seed {seed}\n"
                        + res.describe())
        kinds = {e["kind"] for e in res.events("invariant_violation")}
        assert kinds <= {"completion_timeout", "dma_outside_memory"}, (seed, kinds)


RING_SEEDS = range(1, 41)


@pytest.mark.parametrize("first", range(RING_SEEDS.start, RING_SEEDS.stop, 10))
def test_guest_fuzz_descriptor_rings(first):
    fn, platform = load_scenario(os.path.join(ROOT, "scenarios", "guest_fuzz_rings.py"))

    async def short(sim):
        return await fn(sim, rounds=3)

    for seed in range(first, min(first + 10, RING_SEEDS.stop)):
        res = run(short, platform, seed=seed)
        assert res.ok, (f"seed {seed} failed; replay with: ./dpusim run scenarios/guest_fuzz_rings.py --seed {seed}\n"
                        + res.describe())
        kinds = {e["kind"] for e in res.events("invariant_violation")}
        assert kinds <= {"dma_outside_memory"}, (seed, kinds)


IONIC_SEEDS = range(1, 31)


@pytest.mark.parametrize("first", range(IONIC_SEEDS.start, IONIC_SEEDS.stop, 10))
def test_guest_fuzz_ionic(first):
    fn, platform = load_scenario(os.path.join(ROOT, "scenarios", "guest_fuzz_ionic.py"))

    async def short(sim):
        return await fn(sim, operations=80)

    for seed in range(first, min(first + 10, IONIC_SEEDS.stop)):
        res = run(short, platform, seed=seed)
        assert res.ok, (f"seed {seed} failed; replay with: ./dpusim run scenarios/guest_fuzz_ionic.py --seed {seed}\n"
                        + res.describe())
        kinds = {e["kind"] for e in res.events("invariant_violation")}
        assert kinds <= {"dma_outside_memory", "completion_timeout"}, (seed, kinds)
        assert len(res.events("devcmd", path="ep0")) > 14   # the fuzzer's own commands ran
        assert len(res.events("rdma_wqe", path="ep0")) + len(res.events("rdma_admin", path="ep0")) > 10


@pytest.mark.parametrize("seed", [497, 503])
def test_guest_fuzz_ionic_regressions(seed):
    """Seeds of a sweep that once crashed the device: work in flight on a QP the guest
    destroyed (or reset) and re-created."""
    fn, platform = load_scenario(os.path.join(ROOT, "scenarios", "guest_fuzz_ionic.py"))
    res = run(fn, platform, seed=seed)
    assert res.ok, res.describe()
