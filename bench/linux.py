"""The real Linux kernel in the loop (docs/linux.md): boot to the first ping reply, wall and
simulated time.

    ./dpusim bench linux

Runs scenarios/linux_virtio_net.py once (the DOCA app with two endpoints wired to each other,
an unmodified user-mode Linux 6.12 with its own virtio_net, ping between two namespaces) and
prints `linux boot-to-ping: 23.4 s wall`, then the simulated time of each phase from the event
log: the kernel started, virtio-uml connected, the guest ready for commands, the first ping
reply, and the wall time of the whole run. Needs ./dpusim linux-build. The wall clock is read
here, around the run, never inside the simulation."""
import json
import os
import sys
import tempfile
import time

from dpusim.cli import load_scenario
from dpusim.linux import unavailable_reason
from dpusim.run import run

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def phases(log):
    """{phase: simulated ps} from the event log (JSON lines)."""
    out = {}
    for line in log.splitlines():
        e = json.loads(line)
        if e.get("path") != "linux":
            continue
        name, t = e["event"], e["time_ps"]
        if name == "linux_start":
            out.setdefault("kernel started", t)
        elif name == "vhost_user_connected":
            out.setdefault("virt-pci connected", t)
        elif name == "console" and e.get("line") == "@@ready":
            out.setdefault("guest ready", t)
        elif name == "console" and " bytes from " in e.get("line", ""):
            out.setdefault("first ping reply", t)
    return out


def main():
    if "-h" in sys.argv[1:] or "--help" in sys.argv[1:]:
        print(__doc__)
        return 0
    reason = unavailable_reason()
    if reason:
        print(f"dpusim bench linux: {reason}")
        return 2
    fn, platform = load_scenario(os.path.join(ROOT, "scenarios", "linux_virtio_net.py"))
    with tempfile.TemporaryDirectory() as out:
        t0 = time.monotonic()
        res = run(fn, platform, out=out, quiet=True)
        wall = time.monotonic() - t0
        if not res.ok:
            print(res.describe())
            return 1
        with open(os.path.join(out, "events.jsonl")) as f:
            log = f.read()
    p = phases(log)
    first = p.get("first ping reply")
    print(f"linux boot-to-ping: {wall:.1f} s wall (the whole run, 20 pings and halt included)")
    for name, t in p.items():
        print(f"  {name:20s} at {t / 1e9:10.3f} ms simulated")
    if first is None:
        print("  no ping reply in the log")
    return 0


if __name__ == "__main__":
    sys.exit(main())
