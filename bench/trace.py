"""Tracing benchmark: what the outputs cost on the default scenario (virtio_net_bringup.py).

    ./dpusim bench trace [RUNS]

Three configurations, each run RUNS times (default 5) on a fresh platform:
  untraced           the event log off (nothing built), no VCD, no pcaps, no trace
  event log          events.jsonl and the pcaps
  log + VCD + trace  events.jsonl, the pcaps, waves.vcd and trace.json
(and, to split the last, log + VCD and log + trace), and prints the median time of each and
its ratio to the untraced run (goal: log + VCD + trace at most 2x). A run's time is measured
here around the whole run (platform construction, the scenario, the end of the run and its
outputs written), never inside the simulation: as wall time, and as the CPU time (user +
system) of the run's process, which other work on a shared machine does not inflate.
"""
import os
import resource
import statistics
import sys
import tempfile
import time

from dpusim.cli import DEMO_SCENARIO, load_scenario
from dpusim.progress import Progress
from dpusim.run import run

GOAL = 2.0


def untraced(fn):
    async def scenario(sim):
        sim.platform.set_log_enabled(False)
        return await fn(sim)
    return scenario


def main(argv):
    runs = int(argv[0]) if argv else 5
    if runs < 1:
        print("usage: ./dpusim bench trace [RUNS >= 1]", file=sys.stderr)
        return 2
    import _dpusim  # noqa: F401  imported once here, so that no run pays for it after the fork

    fn, platform = load_scenario(DEMO_SCENARIO)
    no_vcd = dict(platform, outputs={"vcd": False})
    configs = [
        ("untraced", lambda out: run(untraced(fn), no_vcd)),
        ("event log", lambda out: run(fn, no_vcd, out=out)),
        ("log + VCD", lambda out: run(fn, platform, out=out)),
        ("log + trace", lambda out: run(fn, no_vcd, out=out, trace=True)),
        ("log + VCD + trace", lambda out: run(fn, platform, out=out, trace=True)),
    ]
    times = {name: [] for name, _ in configs}
    cpu = {name: [] for name, _ in configs}
    hashes = {}
    bar = Progress(runs * len(configs), "runs")
    # The scenario's own output (the runs' stdout) is not the benchmark's.
    sys.stdout.flush()
    saved = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(runs):
            for name, go in configs:  # interleaved, so that a slow moment of the machine hits all three
                out = os.path.join(tmp, f"{i}-{name.replace(' ', '_')}")
                c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
                t0 = time.perf_counter()
                res = go(out)
                times[name].append(time.perf_counter() - t0)
                c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu[name].append(c1.ru_utime - c0.ru_utime + c1.ru_stime - c0.ru_stime)
                res.check()
                if name != "untraced":
                    hashes.setdefault(name, res.hash)
                    assert res.hash == hashes[name], f"{name}: the hash changed between runs"
                bar.step(name)
        size = {n: os.path.getsize(os.path.join(tmp, "0-log_+_VCD_+_trace", n))
                for n in ("events.jsonl", "waves.vcd", "trace.json")}
    os.dup2(saved, 1)
    os.close(devnull)
    bar.close()
    assert len(set(hashes.values())) == 1, "tracing changed the event log"
    base = statistics.median(times["untraced"])
    base_cpu = statistics.median(cpu["untraced"])
    print(f"default scenario ({os.path.basename(DEMO_SCENARIO)}), median of {runs} runs each")
    print(f"  {'':18s} {'wall':>9s} {'':6s} {'CPU':>9s}")
    for name, _ in configs:
        t, c = statistics.median(times[name]), statistics.median(cpu[name])
        print(f"  {name:18s} {t * 1000:6.1f} ms {t / base:5.2f}x {c * 1000:6.1f} ms {c / base_cpu:5.2f}x")
    print(f"outputs: events.jsonl {size['events.jsonl']} bytes, waves.vcd {size['waves.vcd']} bytes, "
          f"trace.json {size['trace.json']} bytes")
    for what, data, b in (("wall", times, base), ("CPU", cpu, base_cpu)):
        ratio = statistics.median(data["log + VCD + trace"]) / b
        print(f"log + VCD + trace, {what} time: {ratio:.2f}x the untraced run (goal at most {GOAL:.0f}x): "
              f"{'met' if ratio <= GOAL else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
