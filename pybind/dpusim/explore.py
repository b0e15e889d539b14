"""`./dpusim explore`: a scenario over many seeds, each one deterministic perturbed schedule
(docs/explore.md), with a line and a replay command per failing seed, shrinking, a summary.

    dpusim explore SCENARIO.py [--seeds 1-1000] [-j N | --tx SPEC ...] [--nominal]
                   [--no-shrink] [--timeout S] [--hashes FILE]

Seeds run in this process one after another (each in its own forked child), or with -j N on
N local execnet workers (`--tx N*popen`), or on the execnet gateways given with --tx in
pytest-xdist's syntax (`--tx ssh=user@host//chdir=/path/to/dpusim`, repeatable, `N*` to
repeat one). Exit status: 0 every seed passed, 1 some failed, 2 usage.
"""
import argparse
import json
import os
import sys
from collections import OrderedDict

import dpusim.explore_worker as worker_module
from dpusim.outcome import run_seed
from dpusim.progress import Progress
from dpusim.scenario_file import UsageError, load_scenario
from dpusim.seeds import parse_seeds
from dpusim.sweep_identity import fingerprint

ROOT = os.environ.get("DPUSIM_ROOT", os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
PREFETCH = 2  # seeds in flight per worker, so that none waits for the next


def replay_command(path, seed, explore):
    """The command that replays one seed exactly."""
    cmd = f"./dpusim run {path} --seed {seed}"
    if explore is True:
        return cmd + " --explore"
    if explore:
        return cmd + " --explore=" + ",".join(sorted(explore))
    return cmd


# ---- where seeds run ----------------------------------------------------------------------
def local_outcomes(path, seeds, explore, timeout):
    for seed in seeds:
        yield run_seed(path, seed, explore, timeout)


def expand_tx(specs):
    """xdist's --tx syntax: "N*SPEC" is N gateways of SPEC; every spec gets the launcher's
    PYTHONHASHSEED=0 unless it sets one."""
    out = []
    for spec in specs:
        count, star, rest = spec.partition("*")
        n, spec = (int(count), rest) if star and count.isdigit() else (1, spec)
        if n < 1:
            raise UsageError(f"--tx {spec!r}: the count must be at least 1")
        if "env:PYTHONHASHSEED=" not in spec:
            spec += "//env:PYTHONHASHSEED=0"
        if spec.startswith("popen") and "python=" not in spec:
            spec += f"//python={sys.executable}"
        out += [spec] * n
    return out


def execnet_outcomes(path, seeds, explore, timeout, specs):
    """Seeds spread over execnet gateways, PREFETCH in flight each; outcomes as they come."""
    import execnet

    group = execnet.Group()
    try:
        rel = os.path.relpath(os.path.abspath(path), ROOT)
        config = {"root": ROOT, "scenario": rel, "explore": explore, "timeout": timeout,
                  "fingerprint": fingerprint(ROOT, rel)}
        channels = []
        for spec in specs:
            try:
                gw = group.makegateway(spec)
            except Exception as e:  # execnet raises plain exceptions for a spec it cannot open
                raise UsageError(f"cannot start execnet worker {spec!r}: {e}") from None
            ch = gw.remote_exec(worker_module)
            ch.send(config)
            answer = ch.receive()
            if "error" in answer:
                raise UsageError(f"execnet worker {spec!r}: {answer['error']}")
            channels.append(ch)
        queue = execnet.MultiChannel(channels).make_receive_queue(endmarker=None)
        todo = list(seeds)[::-1]
        in_flight = {id(ch): 0 for ch in channels}
        for ch in channels:
            for _ in range(PREFETCH):
                if todo:
                    ch.send(todo.pop())
                    in_flight[id(ch)] += 1
        pending = sum(in_flight.values())
        while pending:
            ch, item = queue.get()
            if item is None:  # the channel closed: the worker died
                raise RuntimeError(f"an execnet worker exited with {in_flight[id(ch)]} seeds in flight")
            pending -= 1
            in_flight[id(ch)] -= 1
            if todo:
                ch.send(todo.pop())
                in_flight[id(ch)] += 1
                pending += 1
            yield item
        for ch in channels:
            ch.send(None)
    finally:
        group.terminate(timeout=10)


# ---- shrinking ----------------------------------------------------------------------------
def shrink(path, outcome, timeout, run=run_seed):
    """Turns off, one at a time, each knob the failing run drew from, keeping it off when the
    seed still fails with the same kind. Returns (knobs still needed, the last failing outcome)."""
    needed = sorted(outcome["explored"])
    last = outcome
    for knob in list(needed):
        trial = [k for k in needed if k != knob]
        o = run(path, outcome["seed"], trial, timeout)
        if not o["ok"] and o["kind"] == outcome["kind"]:
            needed, last = trial, o
    return needed, last


# ---- the command --------------------------------------------------------------------------
def parse_args(argv):
    p = argparse.ArgumentParser(prog="dpusim explore", description="Run a scenario over many seeds, each a "
                                "perturbed schedule; report and shrink the failing ones.")
    p.add_argument("scenario", help="scenario file (defines async def scenario(sim))")
    p.add_argument("--seeds", default="1-100", help="seeds: 1-1000, 1,5,9 (default 1-100)")
    p.add_argument("-j", type=int, default=0, metavar="N", help="N local execnet workers (--tx N*popen)")
    p.add_argument("--tx", action="append", default=[], metavar="SPEC",
                   help="an execnet gateway in pytest-xdist's syntax (ssh=host//chdir=DIR, N*popen); repeatable")
    p.add_argument("--nominal", action="store_true", help="no perturbation: each seed's nominal run")
    p.add_argument("--no-shrink", action="store_true", help="do not shrink failures")
    p.add_argument("--timeout", type=float, default=300.0, help="wall-clock seconds before a seed counts as hung")
    p.add_argument("--hashes", metavar="FILE", help="write {seed: hash} of every seed as JSON")
    return p.parse_args(argv)


def main(argv, out=None):
    out = out or sys.stdout
    try:
        opts = parse_args(argv)
    except SystemExit as e:
        return 2 if e.code else 0
    try:
        seeds = parse_seeds(opts.seeds)
        load_scenario(opts.scenario)
        if opts.j < 0:
            raise UsageError("-j must be a positive number of workers")
        if opts.timeout <= 0:
            raise UsageError("--timeout must be positive")
        specs = expand_tx(opts.tx + ([f"{opts.j}*popen"] if opts.j else []))
    except (UsageError, ValueError) as e:
        print(f"dpusim: {e}", file=sys.stderr)
        return 2
    explore = not opts.nominal
    path = opts.scenario
    where = f"{len(specs)} execnet workers" if specs else "this process"
    print(f"exploring {path} over {len(seeds)} seeds ({'perturbed schedules' if explore else 'nominal'}, "
          f"{where})", file=out)
    progress = Progress(len(seeds), "seeds", stream=out, every=max(1, len(seeds) // 10))
    outcomes = {}
    by_kind = OrderedDict()
    try:
        source = (execnet_outcomes(path, seeds, explore, opts.timeout, specs) if specs
                  else local_outcomes(path, seeds, explore, opts.timeout))
        for o in source:
            outcomes[o["seed"]] = o
            if not o["ok"]:
                by_kind.setdefault(o["kind"], []).append(o["seed"])
                progress.line(f"seed {o['seed']}: {o['kind']}: {o['message']}\n"
                              f"  replay: {replay_command(path, o['seed'], explore)}")
            progress.step(failed=not o["ok"])
    except UsageError as e:
        progress.close()
        print(f"dpusim: {e}", file=sys.stderr)
        return 2
    progress.close()
    wall = progress.elapsed()
    if explore and not opts.no_shrink:
        for kind, failing in by_kind.items():
            first = outcomes[min(failing)]
            needed, _ = shrink(path, first, opts.timeout)
            print(f"shrunk seed {first['seed']} ({kind}) to {len(needed)} of {len(first['explored'])} knobs: "
                  f"{replay_command(path, first['seed'], needed)}", file=out)
    if opts.hashes:
        with open(opts.hashes, "w") as f:
            json.dump({str(s): outcomes[s]["hash"] for s in sorted(outcomes)}, f, indent=1)
    failed = sum(len(v) for v in by_kind.values())
    print(f"summary: {len(outcomes)} seeds, {failed} failed, {len(by_kind)} distinct failures, "
          f"{wall:.1f} s wall time ({where})", file=out)
    for kind, failing in by_kind.items():
        shown = ", ".join(str(s) for s in sorted(failing)[:10]) + (" ..." if len(failing) > 10 else "")
        print(f"  {kind}: {len(failing)} seeds ({shown})", file=out)
    return 1 if failed else 0
