"""Helpers of the ionic NIC tests: platforms of ionic slots, bring-up, raw devcmds, P4 data."""
import os
import struct

from dpusim.drivers.ionic import Ionic, cmd_bytes, ionic_devices
from dpusim.drivers.pci import pci_host_probe

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
P4_DATA = os.path.join(ROOT, "tests", "data", "p4")
PEER_MAC = bytes.fromhex("02aabbccddee")


def program(name):
    return os.path.join(P4_DATA, name)


def ionic_platform(*slots, wires=(), cpus=1, timing=None, mesh=False):
    """A platform of ionic slots (each a dict of slot options, {} for the defaults); with
    mesh=True every slot is on the RDMA mesh."""
    doc = {"host": {"cpus": cpus}, "topology": {"slots": [dict(kind="ionic", **s) for s in slots]},
           "wires": [{"a": a, "b": b} for a, b in wires]}
    if mesh:
        doc["mesh"] = [f"ep{i}" for i in range(len(slots))]
    if timing:
        doc["timing"] = timing
    return doc


async def bring_up(sim, open_=True, **kw):
    """Enumerates, probes every ionic NIC and (with open_) brings its queues up."""
    pci = await pci_host_probe(sim)
    nics = [await Ionic(sim, pci, d, **kw).probe() for d in ionic_devices(pci)]
    if open_:
        for n in nics:
            await n.open()
    return pci, nics


async def unprobed(sim, **kw):
    """The first ionic NIC's driver object, enumerated but not probed (for raw devcmds)."""
    pci = await pci_host_probe(sim)
    return Ionic(sim, pci, ionic_devices(pci)[0], **kw)


def frame(dst, src, size, fill=0):
    return dst + src + b"\x88\xb5" + bytes((fill + i) & 0xFF for i in range(size - 14))


def fwd(kind, port, dst=PEER_MAC):
    """An update record for minimal_forward.json's table."""
    return {"type": kind, "table": "ingress.fwd", "match": [{"field": "hdr.ethernet.dstAddr", "value": "0x" + dst.hex()}],
            "action": "ingress.forward", "params": {"port": str(port)}}


def stats_lines(res, path="ep0"):
    return [e["msg"] for e in res.events("log", path=path) if e["msg"].startswith("rocm-ernic: P4 stats:")]


def u32(data, off):
    return struct.unpack_from("<I", data, off)[0]


__all__ = ["ROOT", "PEER_MAC", "program", "ionic_platform", "bring_up", "unprobed", "frame", "fwd", "stats_lines",
           "u32", "cmd_bytes"]
