"""Study: how long a hot-plug and a hot-unplug of a vnet_pci_dev endpoint take with a Linux
pciehp host, and how much of it is the host's own delays.

Two intervals, measured from the event timestamps of the run:
  - plug: from the `plug 0` line on the application's stdin (its "PLUG on DSP[0]" line) to the
    interface passing traffic (a frame sent and received back through the loopback);
  - unplug: from the `unplug 0` line ("UNPLUG on DSP[0]") to the endpoint destroyed ("Device
    destroyed successfully (delayed)").
Each is split at the steps that hand over between the application and the host. The scenario's
own platform uses the default profile; the variant "half" is a second run with every
host.pciehp.* delay halved (attention-button wait, link detect, link poll and timeout, link
settle, vendor-ID poll and timeout, power-off settle, Command Completed timeout).

`./dpusim run scenarios/study_hotplug.py` runs both, writes DIR/study.json and DIR/study.png and
prints the table."""
import json
import os

from dpusim.drivers.pci import pci_host_probe
from dpusim.drivers.pciehp import pciehp_probe_all
from dpusim.drivers.virtio_net import ethernet_frame
from dpusim.units import s

HOST_DELAYS = {"host.pciehp.button_ps": 5 * 10**12, "host.pciehp.cmd_timeout_ps": 10**12,
               "host.pciehp.link_detect_ps": 20 * 10**9, "host.pciehp.link_poll_ps": 10**9,
               "host.pciehp.link_timeout_ps": 10**12, "host.pciehp.link_settle_ps": 100 * 10**9,
               "host.pciehp.dev_poll_ps": 20 * 10**9, "host.pciehp.dev_timeout_ps": 10**12,
               "host.pciehp.power_off_settle_ps": 10**12}


def platform(timing=None):
    doc = {"host": {"cpus": 4},
           "topology": {"family": "vnet", "options": {"num-ep": 1, "hotplug-mode": 1, "max-queue-pairs": 4}},
           "wires": [{"a": "ep0", "b": "loopback"}]}
    if timing:
        doc["timing"] = timing
    return doc


PLATFORM = platform()
VARIANTS = {"half": platform({k: v // 2 for k, v in HOST_DELAYS.items()})}


async def scenario(sim):
    pci = await pci_host_probe(sim)
    (slot,) = await pciehp_probe_all(sim, pci)
    bound = slot.wait_bound()
    assert (await sim.command("plug 0")).ok
    net = await sim.timeout(bound, s(5))
    await net.open()
    frame = ethernet_frame(b"\x02\x00\x00\x00\x00\x05", net.mac, 0x88B5, bytes(range(64)))
    await net.send(frame)
    ((_, back),) = await net.recv(1, timeout_ps=s(1))
    assert back == frame
    sim.log_event("host.virtio_net", "virtio_net", bdf=net.bdf, step="traffic_ok")
    destroyed = sim.wait_event("log", path="vnet.worker", msg="Device destroyed successfully (delayed)")
    assert (await sim.command("unplug 0")).ok
    await sim.timeout(destroyed, s(20))
    return net.bdf


def _t(res, event, **fields):
    return res.events(event, **fields)[0]["time_ps"]


def _log(res, path, msg):
    return next(e["time_ps"] for e in res.events("log", path=path) if e["msg"] == msg)


def measure(res):
    """The two intervals and their steps, in ps, from one run's events."""
    bdf = res.result
    plug = _log(res, "vnet.main", "PLUG on DSP[0] (queuing to worker thread)")
    plug_msi = _log(res, "vnet.worker", "Hotplug: DSP[0] plug")
    writes = res.events("pciehp", op="slot_ctl_write", mask=0x400)
    power_on, power_off = writes[0]["time_ps"], writes[1]["time_ps"]
    scanned = _t(res, "pci_device", bdf=bdf)
    probed = _t(res, "virtio_net", bdf=bdf, step="probed")
    traffic = _t(res, "virtio_net", bdf=bdf, step="traffic_ok")
    unplug = _log(res, "vnet.main", "UNPLUG on DSP[0] (queuing to worker thread)")
    unplug_msi = _log(res, "vnet.worker", "Hotplug: DSP[0] unplug (pending host reset)")
    unbind = _t(res, "pciehp", op="button_work")
    destroyed = _log(res, "vnet.worker", "Device destroyed successfully (delayed)")
    return {
        "plug_to_traffic_ps": traffic - plug,
        "plug_steps_ps": {"create_device (application)": plug_msi - plug,
                          "interrupt to Power ON (host)": power_on - plug_msi,
                          "Power ON to function scanned (host waits)": scanned - power_on,
                          "virtio_net probe": probed - scanned,
                          "open and first frame": traffic - probed},
        "unplug_to_destroyed_ps": destroyed - unplug,
        "unplug_steps_ps": {"plug-ack check and ABP (application)": unplug_msi - unplug,
                            "attention button wait (host)": unbind - unplug_msi,
                            "driver reset to Power OFF (host)": power_off - unbind,
                            "delayed destroy (application)": destroyed - power_off},
    }


def report(results, out):
    """Writes study.json and study.png, prints the table."""
    runs = {"default": results["main"], "host delays halved": results["half"]}
    study = {name: measure(res) for name, res in runs.items()}
    with open(os.path.join(out, "study.json"), "w") as f:
        json.dump({"runs": study, "hashes": {n: r.hash for n, r in runs.items()}}, f, indent=2, sort_keys=True)
    names = list(study)
    print(f"{'interval (ms, simulated)':<44}" + "".join(f"{n:>20}" for n in names))
    for total, steps in (("plug_to_traffic_ps", "plug_steps_ps"), ("unplug_to_destroyed_ps", "unplug_steps_ps")):
        label = "plug command -> traffic" if total.startswith("plug") else "unplug command -> endpoint destroyed"
        print(f"{label:<44}" + "".join(f"{study[n][total] / 1e9:>20.3f}" for n in names))
        for step in study[names[0]][steps]:
            print(f"{'  ' + step:<44}" + "".join(f"{study[n][steps][step] / 1e9:>20.3f}" for n in names))
    plot(study, os.path.join(out, "study.png"))


def plot(study, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    for ax, (steps, title) in zip(axes, (("plug_steps_ps", "plug command -> passing traffic"),
                                         ("unplug_steps_ps", "unplug command -> endpoint destroyed"))):
        names = list(study)
        bottoms = [0.0] * len(names)
        for step in study[names[0]][steps]:
            vals = [study[n][steps][step] / 1e9 for n in names]
            ax.bar(names, vals, 0.5, bottom=bottoms, label=step)
            bottoms = [b + v for b, v in zip(bottoms, vals)]
        ax.set_ylabel("ms (simulated)")
        ax.set_ylim(0, max(bottoms) * 1.5)
        ax.set_title(title)
        ax.legend(fontsize=7, loc="upper right")
    fig.suptitle("vnet_pci_dev hot-plug with a Linux pciehp host (-H 1, -q 4)")
    fig.tight_layout()
    fig.savefig(path, dpi=100, metadata={"Software": None})
    plt.close(fig)
