"""Schedule exploration finds the application's two latent bugs from scenarios that only bring
devices up, reset and traffic them (scenarios/explore_*.py), each from a known seed, and within
a small budget of seeds; a nominal run is untouched by the exploration layer; the command
prints, shrinks and sums up. The full sweeps are a separate command (docs/explore.md)."""
import io
import json
import os

import pytest

from dpusim import explore
from dpusim.outcome import run_seed
from dpusim.run import run
from dpusim.scenario_file import load_scenario

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MQ = os.path.join(ROOT, "scenarios", "explore_mq_reset.py")
DOUBLE = os.path.join(ROOT, "scenarios", "explore_double_reset.py")

# The first seed of 1..1000 that finds each bug (./dpusim explore SCENARIO --seeds 1-1000).
LATENT = [(MQ, 3, "vq_enabled_after_reset"), (DOUBLE, 1, "reset_hold_never_released")]
SWEEP_BUDGET = range(1, 6)


@pytest.mark.parametrize("path,seed,kind", LATENT, ids=["mq_start_enable_after_reset", "double_reset_hazard"])
def test_a_known_seed_finds_the_latent_bug_and_the_nominal_run_does_not(path, seed, kind):
    found = run_seed(path, seed, explore=True)
    assert (found["ok"], found["kind"]) == (False, kind), found["message"]
    assert any(f'"kind":"{kind}"' in line for line in found["tail"])
    nominal = run_seed(path, seed, explore=False)
    assert nominal["ok"], nominal["message"]


@pytest.mark.parametrize("path,kind", [(p, k) for p, _, k in LATENT], ids=["mq_start_enable_after_reset",
                                                                             "double_reset_hazard"])
def test_a_small_sweep_finds_the_latent_bug(path, kind):
    kinds = [run_seed(path, seed)["kind"] for seed in SWEEP_BUDGET]
    assert kind in kinds, kinds


def test_exploration_with_every_knob_off_is_the_nominal_schedule():
    """The layer draws nothing and changes nothing unless a knob is on: the event log of a run
    exploring no knob equals the nominal one but for the two lines that say so."""
    fn, platform = load_scenario(MQ)
    nominal = run(fn, platform, seed=5)
    silent = run(fn, platform, seed=5, explore=[])
    assert nominal.ok and silent.ok and silent.explored == {}
    strip = [line for line in silent.log.splitlines() if b'"event":"explore"' not in line]
    start = json.loads(strip[0])
    assert start.pop("explore") == ""
    assert [json.dumps(start, sort_keys=True, separators=(",", ":")).encode()] + strip[1:] == nominal.log.splitlines()


def test_a_perturbed_schedule_replays_and_another_seed_differs():
    fn, platform = load_scenario(MQ)
    a, b = run(fn, platform, seed=7, explore=True), run(fn, platform, seed=7, explore=True)
    c = run(fn, platform, seed=8, explore=True)
    assert a.hash == b.hash and a.log == b.log
    assert a.explored == b.explored and a.explored["vnet.work.vq_start_ps"] > 0
    assert a.hash != c.hash
    (summary,) = a.events("explore")
    assert summary["choice.rebind_ms"] == 1


def test_explore_command_reports_replays_shrinks_and_sums_up(monkeypatch):
    monkeypatch.chdir(ROOT)
    out = io.StringIO()
    code = explore.main([os.path.relpath(MQ, ROOT), "--seeds", "2-4", "--timeout", "120"], out=out)
    text = out.getvalue()
    assert code == 1
    rel = os.path.relpath(MQ, ROOT)
    assert f"seed 3: vq_enabled_after_reset: run failed: invariant vq_enabled_after_reset violated" in text
    assert f"  replay: ./dpusim run {rel} --seed 3 --explore\n" in text
    # Shrunk: of the 30-odd knobs seed 3 drew from, the reset's moment and the VQ-start steps.
    assert (f"shrunk seed 3 (vq_enabled_after_reset) to 2 of 36 knobs: "
            f"./dpusim run {rel} --seed 3 --explore=choice.rebind_ms,vnet.work.vq_start_ps\n") in text
    assert "summary: 3 seeds, 1 failed, 1 distinct failures" in text
    assert "  vq_enabled_after_reset: 1 seeds (3)" in text


@pytest.mark.parametrize("argv,message", [
    (["scenarios/explore_mq_reset.py", "--seeds", "9-3"], "'9-3' is not a range of non-negative seeds"),
    (["scenarios/explore_mq_reset.py", "--seeds", "x"], "'x' is not a seed or a range A-B"),
    (["scenarios/nope.py"], "scenario file scenarios/nope.py does not exist"),
    (["scenarios/explore_mq_reset.py", "--tx", "0*popen"], "the count must be at least 1"),
])
def test_explore_command_refuses_bad_input(argv, message, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert explore.main(argv, out=io.StringIO()) == 2
    assert message in capsys.readouterr().err


@pytest.mark.repeats
def test_execnet_workers_give_the_hashes_of_a_local_sweep(tmp_path, monkeypatch):
    """-j/--tx: the same seeds on two popen execnet gateways (what --tx ssh=... does on other
    machines) give every hash a local run gives."""
    monkeypatch.chdir(ROOT)
    rel = os.path.relpath(MQ, ROOT)
    hashes = tmp_path / "hashes.json"
    code = explore.main([rel, "--seeds", "1-6", "--tx", "2*popen", "--no-shrink", "--hashes", str(hashes)],
                        out=io.StringIO())
    assert code == 1  # seed 3
    remote = json.loads(hashes.read_text())
    local = {str(s): run_seed(MQ, s)["hash"] for s in range(1, 7)}
    assert remote == local


def test_host_ties_reorder_two_cpus_only_under_exploration():
    async def scenario(sim):
        order = []

        async def cpu(name):
            await sim.sleep(1000)
            order.append(name)

        await sim.gather(cpu("a"), cpu("b"))
        return "".join(order)

    platform = {"topology": {"endpoints": 1}}
    assert {run(scenario, platform, seed=s).result for s in range(1, 9)} == {"ab"}
    explored = [run(scenario, platform, seed=s, explore=["host.ties"]) for s in range(1, 9)]
    assert {r.result for r in explored} == {"ab", "ba"}
    assert [run(scenario, platform, seed=s, explore=["host.ties"]).result for s in range(1, 9)] == \
        [r.result for r in explored]


def test_host_issue_delays_keep_one_cpus_accesses_in_order():
    """Posted writes issued back to back, none awaited: under host.issue_ps each enters the
    fabric up to 1 us later than issued, and never before the one issued before it."""
    async def scenario(sim):
        writes = [sim.host.mem_write32(0xC000_0000 + 4 * i, i) for i in range(8)]
        await sim.gather(*writes)

    platform = {"topology": {"endpoints": 1}}
    nominal = run(scenario, platform, seed=2)
    res = run(scenario, platform, seed=2, explore=["host.issue_ps"])
    assert res.ok and res.explored == {"host.issue_ps": 8}
    sent = [e for e in res.events("tlp", type="MWr", path="link_host")]
    assert [int(e["addr"], 16) for e in sent] == [0xC000_0000 + 4 * i for i in range(8)]
    assert all(a["tx_ps"] < b["tx_ps"] for a, b in zip(sent, sent[1:]))
    first = nominal.events("tlp", type="MWr", path="link_host")[0]["tx_ps"]
    assert first <= sent[0]["tx_ps"] <= first + 1_000_000


@pytest.mark.parametrize("knob,message", [
    ("nonsense", "unknown exploration knob 'nonsense'"),
    ("vnet.pe1.bound_ps", "timing parameter 'vnet.pe1.bound_ps' has no exploration range"),
    ("host.bogus", "unknown host exploration knob 'host.bogus'"),
])
def test_run_refuses_an_unknown_knob(knob, message, capsys, monkeypatch, tmp_path):
    from dpusim.cli import run_command

    monkeypatch.chdir(ROOT)
    assert run_command(["scenarios/explore_mq_reset.py", f"--explore={knob}", "--out", str(tmp_path)]) == 2
    assert message in capsys.readouterr().err
