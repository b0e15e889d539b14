"""The command line behind ./dpusim: `run` a scenario, or the `demo` (the README's main job).

    dpusim run SCENARIO.py [--seed N] [--platform FILE.json] [--out DIR]
                           [--log all|summary|none] [--log-keep CAT,..] [--log-omit CAT,..]
                           [--no-vcd] [--no-pcap] [--fidelity tlp|lt]

writes DIR/events.jsonl, DIR/waves.vcd and one pcap per wire (DIR/wire<i>_<a>_<b>.pcap; DIR
defaults to out/<scenario name>, created or overwritten) and ends with the line
`hash: <sha256 of events.jsonl>`. Exit status: 0 success, 1 the scenario or an invariant failed
(the hash is still printed), 2 usage or a refused platform document.

--log, --log-keep and --log-omit set what the event log writes (the document's
"outputs": {"log": ...}): `all` (the default), `summary` (no TLPs, frames or per-frame datapath
events; per-second frame counters instead), `none` (nothing written: the last line is then
`hash (summary): <sha256 of the summary stream>`), and event categories added to or removed
from the level's set (`./dpusim run --log-categories` lists them). --no-vcd writes no waves.vcd,
--no-pcap no capture of the wires (the document's "outputs": {"vcd": false, "pcap": false});
--fidelity sets every endpoint's DMA fidelity at the start (the document's "fidelity"). None of
them changes what the simulation does, only what it writes and, for --fidelity, how DMA is
timed (docs/fidelity.md).

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

from dpusim.run import DEFAULT_PLATFORM, run

ROOT = os.environ.get("DPUSIM_ROOT", os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
DEMO_SCENARIO = os.path.join(ROOT, "scenarios", "virtio_net_bringup.py")


# What a run may write into its output directory (pcaps are one per wire, *.pcap).
OUTPUT_FILES = ("events.jsonl", "waves.vcd", "study.json", "study.png", "trace.json")


class UsageError(Exception):
    pass


def load_scenario(path):
    if not os.path.isfile(path):
        raise UsageError(f"scenario file {path} does not exist")
    scope = runpy.run_path(path, run_name="dpusim_scenario")
    fn = scope.get("scenario")
    if fn is None or not callable(fn):
        raise UsageError(f"{path} defines no `async def scenario(sim)`")
    return fn, scope.get("PLATFORM")


def load_study(path):
    """A scenario's VARIANTS and report(), if it is a study."""
    scope = runpy.run_path(path, run_name="dpusim_scenario")
    return scope.get("VARIANTS"), scope.get("report")


def output_overrides(opts):
    """The document keys the command line sets: {"log": ..., "vcd": ..., "fidelity": ...}."""
    over = {}
    split = lambda text: [c for c in text.split(",") if c]  # noqa: E731
    if opts.log or opts.log_keep or opts.log_omit:
        log = {"level": opts.log or "all"}
        if split(opts.log_keep):
            log["keep"] = split(opts.log_keep)
        if split(opts.log_omit):
            log["omit"] = split(opts.log_omit)
        over["log"] = log
    if opts.no_vcd:
        over["vcd"] = False
    if opts.no_pcap:
        over["pcap"] = False
    if opts.fidelity:
        over["fidelity"] = opts.fidelity
    return over


def apply_overrides(platform, over):
    """A copy of the platform document with the command line's output and fidelity keys."""
    if not over:
        return platform
    doc = dict(DEFAULT_PLATFORM if platform is None else platform)
    outputs = dict(doc.get("outputs", {}))
    for key in ("log", "vcd", "pcap"):
        if key in over:
            outputs[key] = over[key]
    doc["outputs"] = outputs
    if "fidelity" in over:
        doc["fidelity"] = over["fidelity"]
    return doc


def run_study(path, fn, main, seed, out, overrides=None):
    """Runs the study's variants, each on a fresh platform, and hands all results to its
    report(); returns the first failed result, if any."""
    variants, report = load_study(path)
    if not variants or not report:
        return None
    results = {"main": main}
    for name, platform in variants.items():
        results[name] = run(fn, apply_overrides(platform, overrides), seed=seed, out=os.path.join(out, name))
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
    parser.add_argument("--log", choices=("all", "summary", "none"), help="what the event log writes (default all)")
    parser.add_argument("--log-keep", default="", metavar="CAT,..", help="event categories to write besides the level's")
    parser.add_argument("--log-omit", default="", metavar="CAT,..", help="event categories not to write")
    parser.add_argument("--no-vcd", action="store_true", help="write no waves.vcd")
    parser.add_argument("--no-pcap", action="store_true", help="write no capture of the wires")
    parser.add_argument("--fidelity", choices=("tlp", "lt"), help="every endpoint's DMA fidelity at the start")
    if "--log-categories" in args:
        import _dpusim
        for name, summary, what in _dpusim.platform.log_categories():
            print(f"{name:15} {'summary' if summary else '       '}  {what}")
        return 0
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
    overrides = output_overrides(opts)
    platform = apply_overrides(platform, overrides)
    name = os.path.splitext(os.path.basename(opts.scenario))[0]
    out = opts.out or os.path.join("out", name)
    if os.path.isdir(out):
        for path in outputs_in(out):
            os.remove(path)
    elif os.path.exists(out):
        print(f"dpusim: output path {out} exists and is not a directory", file=sys.stderr)
        return 2
    res = run(fn, platform, seed=opts.seed, out=out)
    if res.ok:
        failed = run_study(opts.scenario, fn, res, opts.seed, out, overrides)
        if failed is not None:
            res.failure = f"study variant failed: {failed.describe()}"
    if res.doc_error:
        print(f"dpusim: platform document refused: {res.doc_error}", file=sys.stderr)
        return 2
    if res.error:
        print(res.error, file=sys.stderr, end="" if res.error.endswith("\n") else "\n")
    if res.failure:
        print(f"dpusim: {res.failure}", file=sys.stderr)
        print(f"dpusim: replay with: ./dpusim run {opts.scenario} --seed {res.seed}", file=sys.stderr)
    sys.stderr.flush()
    for path in outputs_in(out):
        print(f"output: {path}")
    print(f"{res.hash_label}: {res.hash}")
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
    print(f"dpusim: unknown command '{cmd}' (run, demo)", file=sys.stderr)
    return 2
