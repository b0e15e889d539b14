"""Scale benchmark: the two largest legal SR-IOV platforms of the virtio-net family (at most 64
VFs per PF and 256 in all: 32 PFs x 8 VFs = 288 functions, 4 PFs x 64 VFs = 260), 8 queue
pairs each, static mode.

    ./dpusim bench scale [32x8|4x64 ...]

Each platform runs in its own process: the host enumerates (sriov_init on every PF), probes
every PF with virtio_net to DRIVER_OK, then `echo TotalVFs > sriov_numvfs` on every PF (the
worker starts every VF slot; Linux adds every VF and walks its capabilities), then probes every
VF with virtio_net, one VF after another, to DRIVER_OK, and waits until the worker has every
VF's engine enabled (docs/vnet.md, SR-IOV).
Prints the wall-clock seconds of the whole run (platform construction included) and the peak
RSS of the process that ran it; the event log is written to a temporary directory, no VCD.
The wall clock is read here, around runs, never inside the simulation."""
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

from dpusim.drivers import sriov
from dpusim.drivers.pci import pci_host_probe
from dpusim.drivers.virtio_net import VirtioNet, probe_all
from dpusim.run import run
from dpusim.vnet import vnet

CONFIGS = {"32x8": (32, 8), "4x64": (4, 64)}
QPS = 8


def platform(pfs, vfs):
    return {"host": {"cpus": 4}, "outputs": {"vcd": False},
            "topology": {"family": "vnet", "options": {"num-ep": pfs, "hotplug-mode": 0, "max-queue-pairs": QPS,
                                                       "total-vfs": vfs}}}


async def scenario(sim):
    pci = await pci_host_probe(sim)
    nets = await probe_all(sim, pci)
    vfs = []
    for net in nets:
        vfs += await sriov.sriov_numvfs(pci, net.dev, net.dev.sriov.total_vfs)
    live = [sim.wait_event("log", path="vnet.worker", msg=f"SR-IOV: VF[vf_index={g}] datapath operational (engine "
                                                          f"enabled, {QPS} queue pair(s))") for g in range(len(vfs))]

    vf_nets = []
    for vf in vfs:  # one after another, as Linux probes (all at once would flood PE1 past its bound)
        await pci.enable_device(vf)
        vf_nets.append(await VirtioNet(sim, pci, vf).probe())
    await sim.gather(*live)
    per_pf = len(vfs) // len(nets)
    states = [vnet(sim).vf_state(g // per_pf, g % per_pf) for g in range(len(vfs))]
    # Enabled: the data queues of the pairs the driver set (min(CPUs, 8)) and the CVQ.
    datapaths = sum(1 for st, n in zip(states, vf_nets) if st["engine_enabled"] and st["num_active_qps"] ==
                    n.curr_queue_pairs and st["vq_states"].count("ENABLED") == 2 * n.curr_queue_pairs + 1)
    return {"pfs": len(nets), "driver_ok": sum(1 for n in nets if (n.status_written or 0) & 0x04), "vfs": len(vfs),
            "vf_driver_ok": sum(1 for n in vf_nets if (n.status_written or 0) & 0x04), "vf_datapaths": datapaths,
            "sim_ps": sim.now}


def one(name):
    pfs, vfs = CONFIGS[name]
    with tempfile.TemporaryDirectory(prefix="dpusim-bench-scale-") as out:
        t0 = time.perf_counter()
        res = run(scenario, platform(pfs, vfs), out=out)
        wall = time.perf_counter() - t0
    res.check()
    rss_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    print(json.dumps(dict(res.result, name=name, wall_s=wall, rss_mib=rss_kib / 1024)))


def main(argv):
    if argv and argv[0] in ("-h", "--help"):
        print(__doc__)
        return
    if argv and argv[0] == "--one":
        return one(argv[1])
    names = argv or list(CONFIGS)
    for name in names:
        if name not in CONFIGS:
            sys.exit(f"dpusim bench scale: unknown platform {name!r} (known: {', '.join(CONFIGS)})")
    for name in names:
        out = subprocess.run([sys.executable, os.path.abspath(__file__), "--one", name], check=True,
                             stdout=subprocess.PIPE, text=True).stdout
        r = json.loads(out.strip().splitlines()[-1])
        print(f"{name}: {r['pfs']} PFs x {r['vfs'] // max(r['pfs'], 1)} VFs = {r['pfs'] + r['vfs']} functions "
              f"({r['driver_ok']} PFs and {r['vf_driver_ok']} VFs by virtio_net at DRIVER_OK, {r['vf_datapaths']} VF "
              f"engines enabled with their queues), simulated "
              f"{r['sim_ps'] / 1e12:.3f} s: wall {r['wall_s']:.2f} s, peak RSS {r['rss_mib']:.0f} MiB")


if __name__ == "__main__":
    main(sys.argv[1:])
