"""virtio-net datapath benchmark: frames per wall second through guest TX -> device -> wire
(loopback) -> device -> guest RX, for 1 and 4 endpoints, 1 and 4 queue pairs, 64 and 1500-byte
frames (lengths without FCS), in three modes: `tlp` with the event log written (`log=all`),
`tlp` with the log off (`log=none`), and `lt` with the log off.

    ./dpusim bench vnet [--quick] [--only MODE] [--frames-scale X] [--quantum-ps PS] [--python] [--profile NAME]

One line per configuration, `vnet lt log=none eps=1 qps=1 size=64: 251234 frames/s`, then the
CPU rate of the same run (the machine may be shared: wall time counts other processes' turns),
the simulated throughput, and the ratios between the modes. Each configuration runs on its own
platform (its own process): the driver brings the endpoints up in Python (TLP by TLP), the
endpoints switch to the mode's fidelity, and the C++ guest datapath (net.traffic) sends and
checks the frames, every endpoint at once. The wall clock is read here, around the traffic only,
never inside the simulation. No VCD is written; `log=all` writes events.jsonl to a temporary
directory. With --python the frames go through the Python driver's batched path instead
(net.send_many and net.recv_many, 64 frames a batch, each frame a Python bytes object both ways):
the cost a scenario pays to see its frames."""
import argparse
import os
import sys
import tempfile
import time

from dpusim.drivers.pci import pci_host_probe
from dpusim.drivers.virtio_net import probe_all
from dpusim.run import run, with_profile

MODES = [("tlp", "all"), ("tlp", "none"), ("lt", "none")]
# Frames per configuration, by mode, so that each takes a few seconds on a quiet machine.
PROFILE = None  # --profile: a named timing profile (docs/timing.md)
FRAMES = {("tlp", "all"): 8_000, ("tlp", "none"): 60_000, ("lt", "none"): 300_000}


def platform(eps, qps, log, quantum_ps=None):
    doc = {
        "host": {"cpus": qps},
        "topology": {"family": "vnet", "options": {"num-ep": eps, "hotplug-mode": 0, "max-queue-pairs": qps}},
        "wires": [{"a": f"ep{i}", "b": "loopback"} for i in range(eps)],
        "outputs": {"log": log, "vcd": False},
    }
    if quantum_ps is not None:
        doc["timing"] = {"lt.quantum_ps": quantum_ps}
    return with_profile(doc, PROFILE)


async def batches(net, frames, size, batch=64):
    """The Python driver's batched path: `frames` frames of `size` bytes, `batch` at a time."""
    payload = bytes(range(256)) * (size // 256 + 1)
    frame = net.mac + b"\x02\0\0\0\0\x01" + b"\x88\xb5" + payload[:size - 14]
    done = 0
    while done < frames:
        n = min(batch, frames - done)
        await net.send_many([frame] * n)
        got = await net.recv_many(n)
        assert len(got) == n and got[0][1] == frame
        done += n

    class Result:
        ok, missing, bytes_sent, latency_mean_ps = True, 0, frames * size, 0
    return Result()


def traffic_scenario(fidelity, frames, size, buffers=256, python=False):
    """Brings every endpoint up, waits for its queue pairs, switches its fidelity, then sends
    `frames` frames in all through every endpoint at once; returns the figures."""
    async def scenario(sim):
        import _dpusim

        pci = await pci_host_probe(sim)
        nets = await probe_all(sim, pci)
        for i, net in enumerate(nets):
            await net.open(buffers=buffers)
            # In static mode the application starts data queue pairs after bring-up: wait.
            while _dpusim.vnet.vq_state(sim.platform, i, 2 * net.curr_queue_pairs - 1) != "ENABLED":
                await sim.sleep(10**9)
        await sim.set_fidelity(fidelity)
        share = frames // len(nets)
        t_wall, t_cpu, t_sim = time.perf_counter(), time.process_time(), sim.now
        if python:
            results = await sim.gather(*(batches(net, share, size) for net in nets))
        else:
            results = await sim.gather(*(net.traffic(share, size=size) for net in nets))
        wall, cpu, simulated = time.perf_counter() - t_wall, time.process_time() - t_cpu, sim.now - t_sim
        for r in results:
            assert r.ok and r.missing == 0, r
        return {"frames": share * len(nets), "wall": wall, "cpu": cpu, "sim_ps": simulated,
                "bytes": sum(r.bytes_sent for r in results),
                "latency_mean_ps": sum(r.latency_mean_ps for r in results) // len(results)}
    return scenario


def measure(fidelity, log, eps, qps, size, frames, quantum_ps=None, python=False):
    with tempfile.TemporaryDirectory(prefix="dpusim-bench-vnet-") as out:
        res = run(traffic_scenario(fidelity, frames, size, python=python), platform(eps, qps, log, quantum_ps),
                  out=out if log != "none" else None)
        res.check()
        return res.result


def line(fidelity, log, eps, qps, size, r, python=False):
    rate = r["frames"] / r["wall"]
    sim_s = r["sim_ps"] / 1e12
    gbps = r["bytes"] * 8 / sim_s / 1e9
    print(f"vnet{' python' if python else ''} {fidelity} log={log} eps={eps} qps={qps} size={size}: {rate:.0f} frames/s "
          f"(cpu {r['frames'] / r['cpu']:.0f} frames/s; simulated {r['frames'] / sim_s / 1e6:.2f} Mframes/s, "
          f"{gbps:.1f} Gb/s; {r['frames']} frames in {r['sim_ps'] / 1e6:.3f} us)", flush=True)
    return rate


def main(argv):
    p = argparse.ArgumentParser(prog="dpusim bench vnet", description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="one endpoint, one queue pair, 64 bytes")
    p.add_argument("--only", choices=["tlp-all", "tlp-none", "lt-none"], help="one mode")
    p.add_argument("--frames-scale", type=float, default=1.0, help="scale the frames per configuration")
    p.add_argument("--quantum-ps", type=int, help="lt.quantum_ps (default: the profile's)")
    p.add_argument("--python", action="store_true", help="frames through net.send_many/recv_many, 64 a batch")
    p.add_argument("--profile", help="run under this timing profile (docs/timing.md, Profiles)")
    opts = p.parse_args(argv)
    global PROFILE
    PROFILE = opts.profile
    modes = [m for m in MODES if not opts.only or f"{m[0]}-{m[1]}" == opts.only]
    shapes = [(1, 1, 64)] if opts.quick else [(e, q, s) for e in (1, 4) for q in (1, 4) for s in (64, 1500)]
    rates = {}
    t0 = time.perf_counter()
    for eps, qps, size in shapes:
        for fidelity, log in modes:
            frames = max(1000, int(FRAMES[(fidelity, log)] * opts.frames_scale)) // (eps * 4) * (eps * 4)
            r = measure(fidelity, log, eps, qps, size, frames, opts.quantum_ps, opts.python)
            rates[(fidelity, log, eps, qps, size)] = (line(fidelity, log, eps, qps, size, r, opts.python),
                                                      r["frames"] / r["cpu"])
    print()
    for eps, qps, size in shapes:
        shape = f"eps={eps} qps={qps} size={size}"
        get = lambda f, l: rates.get((f, l, eps, qps, size))  # noqa: E731
        if get("tlp", "none") and get("tlp", "all"):
            print(f"ratio tlp log=none / tlp log=all {shape}: {get('tlp', 'none')[0] / get('tlp', 'all')[0]:.1f}x")
        if get("lt", "none") and get("tlp", "none"):
            print(f"ratio lt log=none / tlp log=none {shape}: {get('lt', 'none')[0] / get('tlp', 'none')[0]:.1f}x")
    goals = [] if opts.python else [(("lt", "none", 1, 1, 64), 200_000), (("tlp", "none", 1, 1, 64), 20_000)]
    for key, goal in goals:
        if key in rates:
            wall, cpu = rates[key]
            print(f"goal {key[0]} log={key[1]} eps=1 qps=1 size=64 >= {goal} frames/s: "
                  f"{'met' if wall >= goal else 'not met'} ({wall:.0f} frames/s; {cpu:.0f} per CPU second)")
    print(f"bench vnet: {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main(sys.argv[1:])
