"""The real Linux kernel in the loop (docs/linux.md): boot to the first ping reply, wall and
simulated time, and a flood ping's frames per wall second.

    ./dpusim bench linux [--flood N]

On the platform of scenarios/linux_virtio_net.py (the DOCA app with two endpoints wired to each
other), an unmodified user-mode Linux 6.12 boots with both endpoints, its virtio_net binds them,
each interface goes up in a network namespace of its own, and one ping crosses the wire. Prints
`linux boot-to-ping: 23.4 s wall` (from the start of the run to the first reply) and then each
phase with its simulated and wall time: the guest takes commands (boot), virtio_net has probed
both functions (the application's DRIVER_OK of the second one), both links are up, the first
reply. Then `ping -f -c N` (N requests and N replies on the wire) and its frames per wall second.
Needs ./dpusim linux-build. The wall clock is read by this benchmark's own coroutine at the phase
marks; nothing it reads reaches the simulation."""
import argparse
import os
import sys
import time

from dpusim.cli import load_scenario
from dpusim.linux import unavailable_reason
from dpusim.run import run
from dpusim.units import s

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The application logs this when the kernel sets DRIVER_OK on the second endpoint (03:00.0 in the
# Python driver's enumeration of the scenario's switch).
PROBED = "03:00.0: VirtIO DRIVER_OK detected - device is live now"


def bench(flood):
    async def scenario(sim):
        t0 = time.monotonic()
        marks = []

        def mark(name, ps=None):  # a phase found in the log afterwards has no wall time of its own
            marks.append((name, sim.now if ps is None else ps, time.monotonic() - t0 if ps is None else None))

        probed = sim.wait_event("log", path="vnet.main", msg=PROBED)
        linux = await sim.boot_linux(devices=["ep0", "ep1"])
        mark("boot: guest takes commands")
        assert probed.done, "virtio_net did not probe both functions during boot"
        mark("probe: both virtio_net up", probed.result()["time_ps"])
        for i in range(2):
            rc, out = await linux.sh(f"ip netns add ns{i} && ip link set eth{i} netns ns{i} && "
                                     f"ip -n ns{i} addr add 192.0.2.{i + 1}/24 dev eth{i} && "
                                     f"ip -n ns{i} link set eth{i} up")
            assert rc == 0, out
        mark("link up: both interfaces")
        rc, out = await linux.sh("ip netns exec ns0 ping -c 1 -W 5 192.0.2.2")
        assert rc == 0, out
        mark("first ping reply")
        w0, p0 = time.monotonic(), sim.now
        rc, out = await linux.sh(f"ip netns exec ns0 ping -f -q -c {flood} 192.0.2.2", timeout_ps=s(600))
        assert rc == 0, out
        flood_wall, flood_ps = time.monotonic() - w0, sim.now - p0
        await linux.halt()
        return {"marks": marks, "flood_wall": flood_wall, "flood_ps": flood_ps, "flood_out": out}
    return scenario


def main():
    ap = argparse.ArgumentParser(prog="dpusim bench linux", description=__doc__.splitlines()[0])
    ap.add_argument("--flood", type=int, default=1000, help="requests of the flood ping (default 1000)")
    args = ap.parse_args()
    reason = unavailable_reason()
    if reason:
        print(f"dpusim bench linux: {reason}")
        return 2
    _, platform = load_scenario(os.path.join(ROOT, "scenarios", "linux_virtio_net.py"))
    res = run(bench(args.flood), platform, quiet=True)
    if not res.ok:
        print(res.describe())
        return 1
    r = res.result
    first = dict((name, wall) for name, _, wall in r["marks"])["first ping reply"]
    print(f"linux boot-to-ping: {first:.1f} s wall")
    print(f"  {'phase':28s} {'simulated':>14s} {'wall':>8s}")
    for name, ps, wall in r["marks"]:
        print(f"  {name:28s} {ps / 1e9:11.3f} ms " + (f"{wall:7.2f} s" if wall is not None else "      -"))
    frames = 2 * args.flood
    summary = [line for line in r["flood_out"].splitlines() if "packets transmitted" in line]
    print(f"  ping -f -c {args.flood}: {frames} frames in {r['flood_wall']:.2f} s wall "
          f"({frames / r['flood_wall']:.0f} frames per wall second), {r['flood_ps'] / 1e9:.3f} ms simulated"
          + (f"; {summary[0]}" if summary else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
