"""Event-log level benchmark: the cost of writing the event log, on the same traffic.

    ./dpusim bench loglevels [--frames N]

One virtio-net endpoint, one queue pair, 64-byte frames through a loopback, sent and checked
by the C++ guest datapath (as `./dpusim bench vnet`), in `tlp` mode (every TLP an event) and in
`lt` mode, with the log at each level: `all` (written to events.jsonl), `summary` (written),
`none` (nothing written, the summary stream hashed), and `all` with the VCD as well. Prints
frames per wall second and per CPU second, the bytes written per frame, and the ratio of each
level's cost to `none`'s: `loglevels tlp all/none: 5.2x`."""
import argparse
import os
import sys
import tempfile

from vnet import platform, traffic_scenario

from dpusim.run import run

LEVELS = [("all", True), ("all", False), ("summary", False), ("none", False)]
FRAMES = {"tlp": 20_000, "lt": 100_000}


def measure(fidelity, level, vcd, frames):
    doc = platform(1, 1, level)
    doc["outputs"]["vcd"] = vcd
    with tempfile.TemporaryDirectory(prefix="dpusim-bench-loglevels-") as out:
        res = run(traffic_scenario(fidelity, frames, 64), doc, out=out)
        res.check()
        written = sum(os.path.getsize(os.path.join(out, f)) for f in ("events.jsonl", "waves.vcd")
                      if os.path.exists(os.path.join(out, f)))
        return res.result, written


def main(argv):
    p = argparse.ArgumentParser(prog="dpusim bench loglevels", description=__doc__.split("\n\n")[0])
    p.add_argument("--frames", type=int, default=0, help="frames per run (default: 20000 tlp, 100000 lt)")
    opts = p.parse_args(argv)
    for fidelity in ("tlp", "lt"):
        frames = opts.frames or FRAMES[fidelity]
        rates = {}
        for level, vcd in LEVELS:
            r, written = measure(fidelity, level, vcd, frames)
            name = level + ("+vcd" if vcd else "")
            rates[name] = (r["frames"] / r["wall"], r["frames"] / r["cpu"])
            print(f"loglevels {fidelity} log={name}: {rates[name][0]:.0f} frames/s (cpu {rates[name][1]:.0f} "
                  f"frames/s; {written / r['frames']:.0f} bytes written per frame, bring-up included)", flush=True)
        for name in ("all+vcd", "all", "summary"):
            print(f"loglevels {fidelity} {name}/none: {rates['none'][0] / rates[name][0]:.1f}x "
                  f"(cpu {rates['none'][1] / rates[name][1]:.1f}x)")


if __name__ == "__main__":
    main(sys.argv[1:])
