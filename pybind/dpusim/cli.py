"""The command line behind ./dpusim: `run` a scenario, `explore` one over many seeds
(dpusim.explore), the `demo` (the README's main job), or the `report` of a run.

    dpusim run SCENARIO.py [--seed N] [--explore[=KNOB,...]] [--platform FILE.json] [--out DIR]
                           [--trace | --no-trace]
                           [--log all|summary|none] [--log-keep CAT,..] [--log-omit CAT,..]
                           [--no-vcd] [--no-pcap] [--fidelity tlp|lt]
    dpusim explore SCENARIO.py [--seeds 1-1000] [-j N | --tx SPEC ...] (docs/explore.md)
    dpusim report DIR

`run` writes DIR/events.jsonl, DIR/waves.vcd, one pcap per wire (DIR/wire<i>_<a>_<b>.pcap),
DIR/run.json (scenario, seed, hash, outcome) and, with --trace, DIR/trace.json (the Chrome
trace; DIR defaults to out/<scenario name>, created or overwritten) and ends with the line
`hash: <sha256 of events.jsonl>`. Exit status: 0 success, 1 the scenario or an invariant failed
(the hash is still printed), 2 usage or a refused platform document. --explore runs the seed's
perturbed schedule (every knob, or only those named: what a shrunk failure prints). `report`
writes DIR/report.html from a run's outputs (dpusim.report).

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
A study is traced by default and writes the report pages of its runs.
"""
import glob
import argparse
import json
import os
import runpy
import sys

from dpusim import explore as explore_command
from dpusim import native
from dpusim.run import DEFAULT_PLATFORM, run
from dpusim.scenario_file import UsageError, load_scenario  # noqa: F401 - load_scenario is this module's API too

ROOT = os.environ.get("DPUSIM_ROOT", os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
DEMO_SCENARIO = os.path.join(ROOT, "scenarios", "virtio_net_bringup.py")


# What a run may write into its output directory (pcaps are one per wire, *.pcap).
OUTPUT_FILES = ("events.jsonl", "waves.vcd", "study.json", "study.png", "trace.json", "run.json", "report.html")


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


def write_run_info(out, scenario, res):
    """DIR/run.json: what the report needs that the event log does not say."""
    info = {"scenario": scenario, "seed": res.seed, "hash": res.hash, "ok": res.ok,
            "failure": res.failure or res.doc_error, "error": res.error}
    with open(os.path.join(out, "run.json"), "w") as f:
        json.dump(info, f, indent=1, sort_keys=True)
        f.write("\n")


def is_study(path):
    variants, report = load_study(path)
    return bool(variants and report)


def run_study(path, fn, main, seed, out, trace=False, overrides=None):
    """Runs the study's variants, each on a fresh platform, and hands all results to its
    report(); returns the first failed result (or None) and the names of the variants run."""
    variants, report = load_study(path)
    if not variants or not report:
        return None, []
    from dpusim.progress import Progress

    results = {"main": main}
    ran = []
    bar = Progress(len(variants), "study variants")
    for name, platform in variants.items():
        results[name] = run(fn, apply_overrides(platform, overrides), seed=seed, out=os.path.join(out, name), trace=trace)
        if os.path.isfile(os.path.join(out, name, "events.jsonl")):
            write_run_info(os.path.join(out, name), f"{path} (variant {name})", results[name])
            ran.append(name)
        bar.step(name)
        if not results[name].ok:
            bar.close()
            return results[name], ran
    bar.close()
    report(results, out)
    return None, ran


def write_study_reports(out, variants):
    """The report pages of a study: each variant's, then the study's own, which links them."""
    from dpusim.report import write_report

    for name in variants:
        write_report(os.path.join(out, name))
    write_report(out, variants=variants)


def outputs_in(out):
    """What a run wrote in DIR, in a stable order."""
    # waves.<endpoint>.vcd: an RTL block's own trace beside the platform's (docs/cosim.md).
    names = list(OUTPUT_FILES[:2]) + sorted(os.path.basename(p) for p in glob.glob(os.path.join(out, "waves.*.vcd")))
    names += sorted(os.path.basename(p) for p in glob.glob(os.path.join(out, "*.pcap")))
    names += OUTPUT_FILES[2:]
    return [os.path.join(out, n) for n in names if os.path.exists(os.path.join(out, n))]


def run_command(args, prog="dpusim run"):
    parser = argparse.ArgumentParser(prog=prog, description="Run a scenario on a fresh platform.")
    parser.add_argument("scenario", help="scenario file (defines async def scenario(sim))")
    parser.add_argument("--seed", type=int, default=None, help="seed (default: the document's, else 1)")
    parser.add_argument("--platform", help="platform document (JSON) replacing the scenario's PLATFORM")
    parser.add_argument("--out", help="output directory (default out/<scenario name>)")
    parser.add_argument("--trace", action=argparse.BooleanOptionalAction, default=None,
                        help="write DIR/trace.json, the Chrome/Perfetto trace (default: on for studies)")
    parser.add_argument("--explore", nargs="?", const="all", metavar="KNOB,...",
                        help="schedule exploration: the seed's perturbed schedule (every knob, or those named)")
    parser.add_argument("--log", choices=("all", "summary", "none"), help="what the event log writes (default all)")
    parser.add_argument("--log-keep", default="", metavar="CAT,..", help="event categories to write besides the level's")
    parser.add_argument("--log-omit", default="", metavar="CAT,..", help="event categories not to write")
    parser.add_argument("--no-vcd", action="store_true", help="write no waves.vcd")
    parser.add_argument("--no-pcap", action="store_true", help="write no capture of the wires")
    parser.add_argument("--fidelity", choices=("tlp", "lt"), help="every endpoint's DMA fidelity at the start")
    if "--log-categories" in args:
        for name, summary, what in native().platform.log_categories():
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
    study = is_study(opts.scenario)
    if study and "log" in overrides:
        print("dpusim: --log, --log-keep and --log-omit do not apply to a study: its report() reads the full "
              "event log of every run", file=sys.stderr)
        return 2
    trace = study if opts.trace is None else opts.trace
    explore = None if opts.explore is None else (True if opts.explore == "all" else
                                                  [k for k in opts.explore.split(",") if k])
    res = run(fn, platform, seed=opts.seed, out=out, explore=explore, trace=trace)
    ran = []
    if res.ok:
        failed, ran = run_study(opts.scenario, fn, res, opts.seed, out, trace, overrides)
        if failed is not None:
            res.failure = f"study variant failed: {failed.describe()}"
    if res.doc_error:
        print(f"dpusim: platform document refused: {res.doc_error}", file=sys.stderr)
        return 2
    write_run_info(out, opts.scenario, res)
    if study:
        write_study_reports(out, ran)
    if res.error:
        print(res.error, file=sys.stderr, end="" if res.error.endswith("\n") else "\n")
    if res.failure:
        print(f"dpusim: {res.failure}", file=sys.stderr)
        print(f"dpusim: replay with: {explore_command.replay_command(opts.scenario, res.seed, explore)}",
              file=sys.stderr)
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
    if cmd == "report":
        from dpusim.report import report_command

        return report_command(rest)
    if cmd == "explore":
        return explore_command.main(rest)
    print(f"dpusim: unknown command '{cmd}' (run, explore, demo, report)", file=sys.stderr)
    return 2
