"""Helpers of the virtio-net tests: platforms of the vnet family, bring-up, the profile's
defaults, the link's serialisation formula, and the application's log lines of a run."""
import math

import _dpusim

from dpusim.drivers.pci import pci_host_probe
from dpusim.drivers.virtio_net import VirtioNet, ethernet_frame, virtio_net_devices

DEFAULTS = {name: default for name, default, _lo, _hi, _unit in _dpusim.platform.timing_params()}
MS = 1_000_000_000
US = 1_000_000


def cost(name):
    return DEFAULTS[name]


S = 1000 * MS


def loop_iteration_at(t_ps, timing=None):
    """The application's first main-loop iteration at or after t_ps (vnet.main_loop_ps from
    vnet.main_loop_origin_ps), with the profile's defaults or `timing`'s overrides."""
    timing = timing or {}
    period = timing.get("vnet.main_loop_ps", cost("vnet.main_loop_ps"))
    origin = timing.get("vnet.main_loop_origin_ps", cost("vnet.main_loop_origin_ps"))
    if t_ps <= origin:
        return origin
    return origin + -(-(t_ps - origin) // period) * period


def after_app_seconds(since_ps, seconds, timing=None):
    """The iteration at which the application's whole-second clock has counted `seconds` since
    since_ps (`now.tv_sec - start.tv_sec >= seconds`)."""
    return loop_iteration_at((since_ps // S + seconds) * S, timing)


def vnet_platform(num_ep=1, cpus=4, peer="loopback", timing=None, **options):
    opts = {"num-ep": num_ep, "hotplug-mode": 0}
    opts.update({k.replace("_", "-"): v for k, v in options.items()})
    doc = {"host": {"cpus": cpus}, "topology": {"family": "vnet", "options": opts}}
    if peer:
        doc["wires"] = [{"a": f"ep{i}", "b": peer} for i in range(num_ep)]
    if timing:
        doc["timing"] = timing
    return doc


def serialisation_ps(nbytes, gen=4, width=16):
    """tlm/timing.h: bytes x 8 x encoding / (rate x lanes), rounded up."""
    mtps, num, den = {1: (2500, 10, 8), 2: (5000, 10, 8), 3: (8000, 130, 128), 4: (16000, 130, 128),
                      5: (32000, 130, 128)}[gen]
    return math.ceil(nbytes * 8 * num * 1_000_000 / (den * mtps * width))


def app_log(res, thread=None, level=None):
    """The application's log lines of a run as (time_ps, thread, level, msg)."""
    out = []
    for e in res.events("log"):
        if not e["path"].startswith("vnet"):
            continue
        if (thread is None or e["path"] == thread) and (level is None or e["level"] == level):
            out.append((e["time_ps"], e["path"], e["level"], e["msg"]))
    return out


def msgs(res, thread=None, level=None):
    return [m for _, _, _, m in app_log(res, thread, level)]


def first_time(res, msg, thread=None):
    return next(t for t, p, _, m in app_log(res, thread) if m == msg)


async def bring_up(sim, open_=True):
    """Enumeration, then every endpoint probed in BDF order (and opened)."""
    pci = await pci_host_probe(sim)
    nets = []
    for dev in virtio_net_devices(pci):
        nets.append(await VirtioNet(sim, pci, dev).probe())
    if open_:
        for n in nets:
            await n.open()
    return pci, nets


async def wait_mq_started(sim, ep, qps):
    """Until queue pair qps-1's transmit queue of endpoint `ep` is enabled."""
    await sim.wait_event("vq_state", path=f"ep{ep}", vq=2 * qps - 1, state="ENABLED")


def frame(src, tag, size=60):
    return ethernet_frame(b"\x02\x00\x00\x00\x00\xaa", src, 0x88B5, bytes([tag & 0xFF]) * size)
