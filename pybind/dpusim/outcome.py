"""One seed of a scenario file, run for a sweep: its outcome as plain data, so that it
travels from an execnet worker (dpusim.explore_worker) as well as from a local run."""
from dpusim.run import run
from dpusim.scenario_file import load_scenario

LOG_TAIL_LINES = 20


def run_seed(path, seed, explore=True, wall_timeout=None):
    """Runs the scenario file `path` with `seed` (`explore`: True, False or a list of knobs)
    and returns its outcome: {"seed", "ok", "kind", "message", "hash", "explored", "tail"}
    ("tail": the last lines of the event log of a failed run)."""
    fn, platform = load_scenario(path)
    res = run(fn, platform, seed=seed, explore=explore or None, wall_timeout=wall_timeout, quiet=True)
    message = None if res.ok else res.describe().strip().splitlines()[-1][:500]
    tail = [] if res.ok else res.log_tail(LOG_TAIL_LINES)
    return {"seed": seed, "ok": res.ok, "kind": res.kind, "message": message, "hash": res.hash,
            "explored": dict(res.explored), "tail": tail}
