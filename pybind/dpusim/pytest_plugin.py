"""The dpusim pytest plugin (loaded by `./dpusim python -m pytest`: the launcher exports
PYTEST_PLUGINS=dpusim.pytest_plugin; elsewhere `-p dpusim.pytest_plugin`).

An ``async def test_x(sim)`` is a scenario: it runs on a fresh platform in a forked child, as
dpusim.run does, and `sim` there is the scenario's Sim. Its platform document is the
``dpusim`` marker's `platform`, else the test module's PLATFORM, else dpusim.run's default::

    @pytest.mark.dpusim(platform={"topology": {"endpoints": 2}}, seeds=range(1, 11))
    async def test_vendor_ids(sim):
        assert (await sim.host.config_read("02:00.0", 0)).value & 0xFFFF == 0x1234

`seeds` (a range, a list, or a string such as "1-100") makes one test item per seed
(test_vendor_ids[seed3]); `explore=True` runs each seed's perturbed schedule
(docs/explore.md). A plain ``def test_x(sim)`` gets the same request as an object whose
run(scenario) returns the RunResult (for tests that read the event log).

Options: --dpusim-seeds=1-100 (every dpusim test over these seeds, marker or not),
--dpusim-explore (every dpusim test explores), --dpusim-out=DIR (keep each test's
events.jsonl, waves.vcd and pcaps in DIR/<test id>/). A failing run's report names the
seed, the replay command (to paste where pytest ran: the launcher and the test file as typed
from there, wherever the suite lives) and the tail of its event log; JUnit XML (--junitxml) carries
dpusim_seed, dpusim_hash and dpusim_explore as properties of each test case. Works the same
under pytest-xdist (-n N): every test forks its own platform wherever it runs.
"""
import functools
import inspect
import os
import re
import shlex

import pytest

from dpusim.run import run
from dpusim.seeds import parse_seeds

LOG_TAIL_LINES = 20


def pytest_addoption(parser):
    group = parser.getgroup("dpusim", "dpusim simulated platforms")
    group.addoption("--dpusim-seeds", metavar="SEEDS", default=None,
                    help="run every dpusim test once per seed (1-100, 1,5,9)")
    group.addoption("--dpusim-explore", action="store_true", default=False,
                    help="run every dpusim test's perturbed schedule (schedule exploration)")
    group.addoption("--dpusim-out", metavar="DIR", default=None,
                    help="keep each dpusim test's outputs (events.jsonl, waves.vcd, pcaps) in DIR/<test id>")


def pytest_configure(config):
    config.addinivalue_line("markers", "dpusim(platform=None, seeds=None, explore=False): run an async "
                                       "test(sim) as a scenario on this platform, once per seed")
    text = config.getoption("--dpusim-seeds")
    if text is not None:
        try:
            parse_seeds(text)
        except ValueError as e:
            raise pytest.UsageError(f"--dpusim-seeds: {e}")


def _marker_seeds(marker):
    seeds = marker.kwargs.get("seeds") if marker else None
    if seeds is None:
        return None
    if isinstance(seeds, (str, int)):
        return parse_seeds(str(seeds))
    seeds = list(seeds)
    if not seeds or not all(isinstance(s, int) and s >= 0 for s in seeds):
        raise pytest.UsageError(f"dpusim marker: seeds={seeds!r} is not a non-empty list of non-negative seeds")
    return seeds


def pytest_generate_tests(metafunc):
    if "sim" not in metafunc.fixturenames:
        return
    text = metafunc.config.getoption("--dpusim-seeds")
    seeds = parse_seeds(text) if text is not None else _marker_seeds(metafunc.definition.get_closest_marker("dpusim"))
    if seeds is not None:
        metafunc.parametrize("dpusim_seed", seeds, ids=[f"seed{s}" for s in seeds])


class SimRequest:
    """What the `sim` fixture is in the pytest process: the platform, seed and exploration a
    test asked for, and where its outputs go. run(scenario) runs any scenario with them."""

    def __init__(self, platform, seed, explore, out):
        self.platform = platform
        self.seed = seed
        self.explore = explore
        self.out = out

    def run(self, scenario):
        return run(scenario, self.platform, seed=self.seed, out=self.out, explore=self.explore or None)


@pytest.fixture
def dpusim_seed():
    """The seed of a seeds-parametrized dpusim test (None: the platform document's)."""
    return None


def _out_dir(config, nodeid):
    base = config.getoption("--dpusim-out")
    if not base:
        return None
    return os.path.join(base, re.sub(r"[^A-Za-z0-9_.-]+", "_", nodeid).strip("_"))


@pytest.fixture
def sim(request, dpusim_seed):
    marker = request.node.get_closest_marker("dpusim")
    kw = marker.kwargs if marker else {}
    unknown = set(kw) - {"platform", "seeds", "explore"}
    if unknown:
        raise pytest.UsageError(f"dpusim marker: unknown argument(s) {sorted(unknown)} (platform, seeds, explore)")
    platform = kw.get("platform", getattr(request.module, "PLATFORM", None))
    explore = bool(kw.get("explore", False) or request.config.getoption("--dpusim-explore"))
    return SimRequest(platform, dpusim_seed, explore, _out_dir(request.config, request.node.nodeid))


def typed_path(path, cwd):
    """`path` as a user types it in `cwd`: relative when it is below `cwd`, else absolute."""
    path = os.path.abspath(path)
    rel = os.path.relpath(path, cwd)
    return path if rel == os.pardir or rel.startswith(os.pardir + os.sep) else rel


def launcher(cwd):
    """The dpusim launcher of this checkout as typed in `cwd`: ./dpusim from the checkout's root,
    else its path."""
    root = os.environ.get("DPUSIM_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    path = typed_path(os.path.join(root, "dpusim"), cwd)
    return path if os.path.isabs(path) else os.path.join(os.curdir, path)


def replay_target(item, cwd):
    """The test's node id with its file as typed in `cwd` (pytest's node id is relative to its
    rootdir, which need not be where the user ran it: a suite outside the checkout)."""
    _, sep, rest = item.nodeid.partition("::")
    return typed_path(str(item.path), cwd) + sep + rest


def _replay(item, req):
    cwd = str(item.config.invocation_params.dir)
    cmd = f"{shlex.quote(launcher(cwd))} python -m pytest {shlex.quote(replay_target(item, cwd))}"
    if item.config.getoption("--dpusim-seeds") is not None and req.seed is not None:
        cmd += f" --dpusim-seeds={req.seed}"
    if item.config.getoption("--dpusim-explore"):
        cmd += " --dpusim-explore"
    if req.out:
        cmd += f" --dpusim-out={shlex.quote(item.config.getoption('--dpusim-out'))}"
    return cmd


def failure_report(item, req, res):
    """The text of a failed dpusim test: what failed, the seed and hash, how to replay it,
    and the end of its event log."""
    tail = res.log_tail(LOG_TAIL_LINES)
    lines = [res.describe().rstrip(),
             f"seed {res.seed}{' (perturbed schedule)' if req.explore else ''}, hash {res.hash}",
             f"replay: {_replay(item, req)}"]
    if req.out:
        lines.append(f"outputs: {req.out}")
    lines.append(f"event log, the {len(tail)} lines up to the failure:")
    lines += [f"  {line}" for line in tail]
    return "\n".join(lines)


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem):
    fn = pyfuncitem.obj
    args = pyfuncitem.funcargs
    if not inspect.iscoroutinefunction(fn) or not isinstance(args.get("sim"), SimRequest):
        return None
    req = args["sim"]
    others = {name: args[name] for name in inspect.signature(fn).parameters if name != "sim"}

    @functools.wraps(fn)
    async def scenario(sim):
        return await fn(sim=sim, **others)

    res = req.run(scenario)
    pyfuncitem.user_properties += [("dpusim_seed", res.seed), ("dpusim_hash", res.hash),
                                   ("dpusim_explore", "all" if req.explore else "none")]
    if not res.ok:
        pytest.fail(failure_report(pyfuncitem, req, res), pytrace=False)
    return True
