"""Hashes are identical across processes, workers and runs: seeds of virtio_net_bringup.py and
hotplug.py run twice, each time spread over two execnet workers (the engine pytest-xdist runs
on, as `./dpusim explore -j 2` uses it), and every seed's hash matches between the two sweeps
and a serial run in this process.

CI runs 10 seeds of each scenario. The full check, 100 seeds of each (docs/explore.md):

    DPUSIM_DETERMINISM_SEEDS=100 ./dpusim python -m pytest tests/py/test_xdist_determinism.py
"""
import io
import json
import os

import pytest

from dpusim import explore
from dpusim.outcome import run_seed

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SEEDS = int(os.environ.get("DPUSIM_DETERMINISM_SEEDS", "10"))
SERIAL_CHECKED = 5  # seeds also run in this process, one after another


def sweep(scenario, tmp_path, name):
    out = tmp_path / f"{name}.json"
    code = explore.main([scenario, "--seeds", f"1-{SEEDS}", "--nominal", "-j", "2", "--hashes", str(out)],
                        out=io.StringIO())
    assert code == 0
    return json.loads(out.read_text())


@pytest.mark.repeats
@pytest.mark.parametrize("scenario", ["scenarios/virtio_net_bringup.py", "scenarios/hotplug.py"])
def test_every_seed_hashes_alike_on_every_worker_and_run(scenario, tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    first = sweep(scenario, tmp_path, "first")
    second = sweep(scenario, tmp_path, "second")
    assert len(first) == SEEDS and first == second
    assert len(set(first.values())) == SEEDS  # each seed is its own run (the seed is in its log)
    for seed in range(1, min(SEEDS, SERIAL_CHECKED) + 1):
        assert run_seed(os.path.join(ROOT, scenario), seed, explore=False)["hash"] == first[str(seed)]
