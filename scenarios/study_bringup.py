"""Study: how long a virtio-net endpoint of the vnet_pci_dev application takes to come up,
for 1, 2 and 4 endpoints in static mode (-H 0, -q 8, a host with 4 CPUs).

Per endpoint, from the event timestamps of each run:
  - DRIVER_OK -> engine enabled: from the driver's DRIVER_OK write to the offload engine's
    enable (START_AND_ENABLE on the worker);
  - first config read -> passing traffic: from the host's first config read of the endpoint
    to the first frame it sent coming back through the loopback.
The application's single worker serialises every endpoint's work items and control requests
(each controller's first one sleeps 400 ms when data queue pairs are deferred), and with several
endpoints the data queue pairs of all of them wait until the last one is live.

`./dpusim run scenarios/study_bringup.py` runs the 4-endpoint platform as the scenario's own
and the 1- and 2-endpoint ones as variants, then writes DIR/study.json and DIR/study.png and
prints the table."""
import json
import os

from dpusim.drivers.pci import pci_host_probe
from dpusim.drivers.virtio_net import ethernet_frame, probe_all
from dpusim.units import s


def platform(n):
    return {"host": {"cpus": 4},
            "topology": {"family": "vnet", "options": {"num-ep": n, "hotplug-mode": 0, "max-queue-pairs": 8}},
            "wires": [{"a": f"ep{i}", "b": "loopback"} for i in range(n)]}


PLATFORM = platform(4)
VARIANTS = {"1ep": platform(1), "2ep": platform(2)}


async def first_frame(sim, net):
    frame = ethernet_frame(b"\x02\x00\x00\x00\x00\x04", net.mac, 0x88B5, bytes(range(64)))
    await net.send(frame, qp=0)
    ((_, back),) = await net.recv(1, timeout_ps=s(5))
    assert back == frame, f"{net.bdf}: the frame came back different"
    sim.log_event("host.virtio_net", "virtio_net", bdf=net.bdf, step="traffic_ok")


async def scenario(sim):
    pci = await pci_host_probe(sim)
    nets = await probe_all(sim, pci)
    for net in nets:
        await net.open()
    await sim.gather(*(first_frame(sim, net) for net in nets))
    return [net.bdf for net in nets]


def measure(res):
    """Per endpoint (in BDF order): the two intervals in ps, from the run's events."""
    out = []
    for i, bdf in enumerate(res.result):
        first_cfg = min(e["time_ps"] for e in res.events("tlp", path="link_host", dir="down", target=bdf)
                        if e["type"].startswith("CfgRd"))
        (driver_ok,) = res.events("virtio_net", bdf=bdf, step="driver_ok")
        enabled = res.events("engine", path=f"ep{i}", op="enable")[0]
        (traffic,) = res.events("virtio_net", bdf=bdf, step="traffic_ok")
        out.append({"endpoint": bdf,
                    "driver_ok_to_engine_enabled_ps": enabled["time_ps"] - driver_ok["time_ps"],
                    "first_config_read_to_traffic_ps": traffic["time_ps"] - first_cfg})
    return out


def report(results, out):
    """Writes study.json and study.png, prints the table."""
    runs = {"1": results["1ep"], "2": results["2ep"], "4": results["main"]}
    study = {n: measure(res) for n, res in runs.items()}
    with open(os.path.join(out, "study.json"), "w") as f:
        json.dump({"endpoints": study, "hashes": {n: r.hash for n, r in runs.items()}}, f, indent=2, sort_keys=True)
    print(f"{'endpoints':>9} {'endpoint':>8} {'DRIVER_OK->enabled (ms)':>24} {'first cfg->traffic (ms)':>24}")
    for n, rows in study.items():
        for r in rows:
            print(f"{n:>9} {r['endpoint']:>8} {r['driver_ok_to_engine_enabled_ps'] / 1e9:>24.3f} "
                  f"{r['first_config_read_to_traffic_ps'] / 1e9:>24.3f}")
    plot(study, os.path.join(out, "study.png"))


def plot(study, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    metrics = [("driver_ok_to_engine_enabled_ps", "DRIVER_OK write -> engine enabled"),
               ("first_config_read_to_traffic_ps", "first config read -> passing traffic")]
    width = 0.25
    for ax, (key, title) in zip(axes, metrics):
        for k, (n, rows) in enumerate(study.items()):
            xs = [i + (k - 1) * width for i in range(len(rows))]
            ax.bar(xs, [r[key] / 1e9 for r in rows], width, label=f"{n} endpoint{'s' if n != '1' else ''}")
        ax.set_xticks(range(4), [f"ep{i}" for i in range(4)])
        ax.set_ylabel("ms (simulated)")
        ax.set_title(title)
        ax.legend()
    fig.suptitle("vnet_pci_dev bring-up, static mode, -q 8, 4 host CPUs")
    fig.tight_layout()
    # A fixed date and software tag keep the PNG byte-identical across runs.
    fig.savefig(path, dpi=100, metadata={"Software": None})
    plt.close(fig)
