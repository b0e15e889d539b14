"""The command line behind ./dpusim: `run` a scenario, `explore` one over many seeds
(dpusim.explore), or the `demo` (the README's main job).

    dpusim run SCENARIO.py [--seed N] [--explore[=KNOB,...]] [--platform FILE.json] [--out DIR]
    dpusim explore SCENARIO.py [--seeds 1-1000] [-j N | --tx SPEC ...] (docs/explore.md)

writes DIR/events.jsonl, DIR/waves.vcd and one pcap per wire (DIR/wire<i>_<a>_<b>.pcap; DIR
defaults to out/<scenario name>, created or overwritten) and ends with the line
`hash: <sha256 of events.jsonl>`. Exit status: 0 success, 1 the scenario or an invariant failed
(the hash is still printed), 2 usage or a refused platform document. --explore runs the seed's
perturbed schedule (every knob, or only those named: what a shrunk failure prints).

A study scenario may also define VARIANTS (name -> platform document) and
`report(results, out)`: each variant then runs on its own platform (outputs in DIR/<name>), and
report() gets every RunResult ("main" for the scenario's own platform) to write its figures.
"""
import glob
import argparse
import json
import os
import runpy
import sys

from dpusim import explore as explore_command
from dpusim.run import run
from dpusim.scenario_file import UsageError, load_scenario  # noqa: F401 - load_scenario is this module's API too

ROOT = os.environ.get("DPUSIM_ROOT", os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
DEMO_SCENARIO = os.path.join(ROOT, "scenarios", "virtio_net_bringup.py")


# What a run may write into its output directory (pcaps are one per wire, *.pcap).
OUTPUT_FILES = ("events.jsonl", "waves.vcd", "study.json", "study.png", "trace.json")


def load_study(path):
    """A scenario's VARIANTS and report(), if it is a study."""
    scope = runpy.run_path(path, run_name="dpusim_scenario")
    return scope.get("VARIANTS"), scope.get("report")


def run_study(path, fn, main, seed, out):
    """Runs the study's variants, each on a fresh platform, and hands all results to its
    report(); returns the first failed result, if any."""
    variants, report = load_study(path)
    if not variants or not report:
        return None
    results = {"main": main}
    for name, platform in variants.items():
        results[name] = run(fn, platform, seed=seed, out=os.path.join(out, name))
        if not results[name].ok:
            return results[name]
    report(results, out)
    return None


def outputs_in(out):
    """What a run wrote in DIR, in a stable order."""
    names = list(OUTPUT_FILES[:2]) + sorted(os.path.basename(p) for p in glob.glob(os.path.join(out, "*.pcap")))
    names += OUTPUT_FILES[2:]
    return [os.path.join(out, n) for n in names if os.path.exists(os.path.join(out, n))]


def run_command(args, prog="dpusim run"):
    parser = argparse.ArgumentParser(prog=prog, description="Run a scenario on a fresh platform.")
    parser.add_argument("scenario", help="scenario file (defines async def scenario(sim))")
    parser.add_argument("--seed", type=int, default=None, help="seed (default: the document's, else 1)")
    parser.add_argument("--platform", help="platform document (JSON) replacing the scenario's PLATFORM")
    parser.add_argument("--out", help="output directory (default out/<scenario name>)")
    parser.add_argument("--explore", nargs="?", const="all", metavar="KNOB,...",
                        help="schedule exploration: the seed's perturbed schedule (every knob, or those named)")
    try:
        opts = parser.parse_args(args)
    except SystemExit as e:
        return 2 if e.code else 0
    try:
        fn, platform = load_scenario(opts.scenario)
        if opts.platform:
            try:
                with open(opts.platform) as f:
                    platform = json.load(f)
            except (OSError, json.JSONDecodeError) as e:
                raise UsageError(f"cannot read platform document {opts.platform}: {e}")
    except UsageError as e:
        print(f"dpusim: {e}", file=sys.stderr)
        return 2
    if opts.seed is not None and opts.seed < 0:
        print("dpusim: --seed must be a non-negative integer", file=sys.stderr)
        return 2
    name = os.path.splitext(os.path.basename(opts.scenario))[0]
    out = opts.out or os.path.join("out", name)
    if os.path.isdir(out):
        for path in outputs_in(out):
            os.remove(path)
    elif os.path.exists(out):
        print(f"dpusim: output path {out} exists and is not a directory", file=sys.stderr)
        return 2
    explore = None if opts.explore is None else (True if opts.explore == "all" else
                                                  [k for k in opts.explore.split(",") if k])
    res = run(fn, platform, seed=opts.seed, out=out, explore=explore)
    if res.ok:
        failed = run_study(opts.scenario, fn, res, opts.seed, out)
        if failed is not None:
            res.failure = f"study variant failed: {failed.describe()}"
    if res.doc_error:
        print(f"dpusim: platform document refused: {res.doc_error}", file=sys.stderr)
        return 2
    if res.error:
        print(res.error, file=sys.stderr, end="" if res.error.endswith("\n") else "\n")
    if res.failure:
        print(f"dpusim: {res.failure}", file=sys.stderr)
        print(f"dpusim: replay with: {explore_command.replay_command(opts.scenario, res.seed, explore)}",
              file=sys.stderr)
    sys.stderr.flush()
    for path in outputs_in(out):
        print(f"output: {path}")
    print(f"hash: {res.hash}")
    sys.stdout.flush()
    return 0 if res.ok else 1


def main(argv):
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(__doc__)
        return 0 if argv else 2
    cmd, rest = argv[0], argv[1:]
    if cmd == "run":
        return run_command(rest)
    if cmd == "demo":
        return run_command([DEMO_SCENARIO] + rest, prog="dpusim demo")
    if cmd == "explore":
        return explore_command.main(rest)
    print(f"dpusim: unknown command '{cmd}' (run, explore, demo)", file=sys.stderr)
    return 2
