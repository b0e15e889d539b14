"""The dpusim pytest plugin, driven as a user drives it: an inner pytest session (pytester)
over a small suite of async scenario tests."""
import os
import shlex
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

pytest_plugins = ["pytester"]

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LAUNCHER = os.path.join(ROOT, "dpusim")

SUITE = '''
import pytest

PLATFORM = {"topology": {"endpoints": 1}}


async def test_module_platform(sim):
    cpl = await sim.host.config_read("02:00.0", 0)
    assert cpl.status == "UR"  # not enumerated: no bus 2 yet


@pytest.mark.dpusim(platform={"topology": {"endpoints": 2}}, seeds=range(1, 4))
async def test_over_seeds(sim):
    await sim.sleep(1000)
    assert sim.seed in (1, 2, 3) and sim.now == 1000


@pytest.mark.dpusim(seeds=[7])
async def test_fails(sim):
    sim.log("about to fail")
    assert sim.seed == 8, "the seed is not 8"


@pytest.mark.parametrize("n", [1, 2])
async def test_with_other_fixtures(sim, n, tmp_path):
    await sim.sleep(n)
    assert sim.now == n and tmp_path.exists()


def test_sync_gets_a_runner(sim):
    async def scenario(sim):
        return sim.seed
    assert sim.run(scenario).result == 1
'''


@pytest.fixture
def suite(pytester):
    pytester.makepyfile(test_suite=SUITE)
    return pytester


def outcomes(recorder):
    return {r.nodeid.split("::")[1]: r.outcome for r in recorder.getreports("pytest_runtest_logreport")
            if r.when == "call"}


def test_async_tests_run_as_scenarios_once_per_seed(suite):
    result = suite.inline_run("-p", "dpusim.pytest_plugin")
    assert outcomes(result) == {
        "test_module_platform": "passed", "test_over_seeds[seed1]": "passed", "test_over_seeds[seed2]": "passed",
        "test_over_seeds[seed3]": "passed", "test_fails[seed7]": "failed", "test_with_other_fixtures[1]": "passed",
        "test_with_other_fixtures[2]": "passed", "test_sync_gets_a_runner": "passed"}


def test_a_failure_names_the_seed_the_replay_and_the_log_tail(suite):
    result = suite.runpytest("-p", "dpusim.pytest_plugin", "-k", "test_fails")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([
        "*AssertionError: the seed is not 8*",
        "seed 7, hash *",
        # pytester runs it in a folder outside the checkout: the launcher by its path.
        f"replay: {LAUNCHER} python -m pytest 'test_suite.py::test_fails?seed7?'",
        "event log, the 3 lines up to the failure:",
        '  {"endpoints":"test","event":"platform_start","path":"platform","seed":7,"slots":1,"time_ps":0}',
        '*"msg":"about to fail"*',
    ])


def test_options_seeds_explore_and_outputs(suite, tmp_path):
    out = tmp_path / "outs"
    result = suite.inline_run("-p", "dpusim.pytest_plugin", "--dpusim-seeds=4-5", "--dpusim-explore",
                              f"--dpusim-out={out}", "-k", "over_seeds or module_platform")
    assert outcomes(result) == {"test_module_platform[seed4]": "passed", "test_module_platform[seed5]": "passed",
                                "test_over_seeds[seed4]": "failed", "test_over_seeds[seed5]": "failed"}
    kept = sorted(p.name for p in out.iterdir())
    assert kept == ["test_suite.py_test_module_platform_seed4", "test_suite.py_test_module_platform_seed5",
                    "test_suite.py_test_over_seeds_seed4", "test_suite.py_test_over_seeds_seed5"]
    log = (out / kept[0] / "events.jsonl").read_text().splitlines()
    assert '"explore":"all"' in log[0] and '"seed":4' in log[0]
    assert (out / kept[0] / "waves.vcd").exists()


def test_junit_xml_carries_seed_and_hash(suite, tmp_path):
    xml = tmp_path / "junit.xml"
    suite.runpytest("-p", "dpusim.pytest_plugin", f"--junitxml={xml}", "-k", "over_seeds")
    cases = ET.parse(xml).getroot().iter("testcase")
    props = {c.get("name"): {p.get("name"): p.get("value") for p in c.iter("property")} for c in cases}
    assert sorted(props) == ["test_over_seeds[seed1]", "test_over_seeds[seed2]", "test_over_seeds[seed3]"]
    assert [props[f"test_over_seeds[seed{s}]"]["dpusim_seed"] for s in (1, 2, 3)] == ["1", "2", "3"]
    hashes = {p["dpusim_hash"] for p in props.values()}
    assert len(hashes) == 3 and all(len(h) == 64 for h in hashes)
    assert {p["dpusim_explore"] for p in props.values()} == {"none"}


def test_bad_seed_option_is_refused(suite):
    result = suite.runpytest("-p", "dpusim.pytest_plugin", "--dpusim-seeds=5-2")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--dpusim-seeds: seed list '5-2': '5-2' is not a range of non-negative seeds*"])


@pytest.mark.repeats
def test_xdist_workers_give_the_serial_results_and_hashes(suite, tmp_path):
    def run(*extra):
        xml = tmp_path / f"junit{len(extra)}.xml"
        suite.runpytest_subprocess("-p", "dpusim.pytest_plugin", f"--junitxml={xml}", *extra)
        out = {}
        for case in ET.parse(xml).getroot().iter("testcase"):
            failed = any(child.tag in ("failure", "error") for child in case)
            props = {p.get("name"): p.get("value") for p in case.iter("property")}
            out[case.get("name")] = (failed, props.get("dpusim_hash"))
        return out

    serial, parallel = run(), run("-n", "2")
    assert len(serial) == 8 and serial == parallel


MINE = '''
PLATFORM = {"topology": {"endpoints": 1}}


async def test_x(sim):
    await sim.sleep(5)
    assert sim.now == 6, "not at 6 ps"
'''


def test_the_replay_of_a_suite_outside_the_checkout_is_pasted_where_pytest_ran(tmp_path):
    """`./dpusim python -m pytest /elsewhere/usertests` from the checkout: the replay names the
    test file by a path that works from there (pytest's node id, relative to its rootdir
    /elsewhere/usertests, would not). The launcher's `python` is this interpreter with the
    package's environment, which this test has: the command runs as the launcher runs it."""
    suite = tmp_path / "usertests"
    suite.mkdir()
    (suite / "test_mine.py").write_text(MINE)

    def pytest_in_checkout(*args):
        p = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args], cwd=ROOT,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
        assert p.returncode == 1, p.stdout
        return p.stdout

    out = pytest_in_checkout(str(suite))
    (replay,) = [line[len("replay: "):] for line in out.splitlines() if line.startswith("replay: ")]
    assert replay == f"./dpusim python -m pytest {suite / 'test_mine.py'}::test_x"
    argv = shlex.split(replay)
    assert os.path.samefile(os.path.join(ROOT, argv[0]), LAUNCHER) and argv[1:4] == ["python", "-m", "pytest"]
    again = pytest_in_checkout(*argv[4:])
    assert "not at 6 ps" in again and "1 failed in" in again.splitlines()[-1]
    assert f"replay: {replay}" in again.splitlines()
