"""The guest's P4 control surface on three ionic NICs granted load, write and none.

ep0 (p4-guest-scope load): the driver sees IONIC_LIF_CAP_P4, identifies the surface and lists
its operations, pushes minimal_forward.json down in chunks to replace loopback.json, and sends
a frame: no entry yet, so the program drops it. It installs an entry for the frame's
destination that forwards to the uplink (port 1): the next frame comes out on the wire to the
scenario's end. It modifies the entry to forward to the host (port 0): the next frame comes back
into the guest's own receive ring. The counters read through the surface say the same.
ep1 (write): identify works; pushing a program is refused with EPERM at the first chunk.
ep2 (none): no capability bit, and IDENTIFY on the devcmd window is an unknown opcode (status 2).
At the end each NIC with the engine writes its stats line."""
import os

from dpusim.drivers.ionic import probe_all
from dpusim.drivers.ionic_p4 import IonicP4, P4ControlError
from dpusim.drivers.ionic_regs import IONIC_RC_EOPCODE, IONIC_RC_EPERM
from dpusim.drivers.pci import pci_host_probe
from dpusim.units import ms

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MINIMAL_FORWARD = os.path.join(ROOT, "tests", "data", "p4", "minimal_forward.json")
LOOPBACK = "tests/data/p4/loopback.json"

PLATFORM = {
    "host": {"cpus": 1},
    "topology": {"slots": [{"kind": "ionic", "p4-program": LOOPBACK, "p4-guest-scope": "load"},
                           {"kind": "ionic", "p4-program": LOOPBACK, "p4-guest-scope": "write"},
                           {"kind": "ionic", "p4-program": LOOPBACK}]},
    "wires": [{"a": "ep0", "b": "python"}],
}

PEER = bytes.fromhex("02aabbccddee")


def fwd_entry(kind, port):
    return {"type": kind, "table": "ingress.fwd", "match": [{"field": "hdr.ethernet.dstAddr", "value": "0x" + PEER.hex()}],
            "action": "ingress.forward", "params": {"port": str(port)}}


async def scenario(sim):
    pci = await pci_host_probe(sim)
    nic0, nic1, nic2 = await probe_all(sim, pci)
    await nic0.open()
    p4 = IonicP4(nic0)
    ident = await p4.identify()
    ops, total = await p4.operations()
    print(f"ep0: P4 capability {p4.advertised}, scope {ident['scope']}, operations {ops} ({total} in all)")
    summary = await p4.load_program(MINIMAL_FORWARD, chunk=2048)
    print(f"ep0: loaded {summary}")

    frame = PEER + nic0.mac + b"\x88\xb5" + bytes(range(46))
    await nic0.send(frame)                      # no entry: the default action drops it
    await sim.sleep(ms(1))
    applied = await p4.update([fwd_entry("INSERT", 1)])
    await nic0.send(frame)                      # now to the uplink
    out = await sim.net.recv(0, timeout_ps=ms(1))
    assert out.data == frame, "the frame on the wire differs from the one sent"
    await p4.update([fwd_entry("MODIFY", 0)])
    await nic0.send(frame)                      # now back into the guest's own receive ring
    (qid, back), = await nic0.recv(1)
    assert back == frame, "the frame received differs from the one sent"
    counters = await p4.counters()
    print(f"ep0: {applied} entry installed; frame 1 dropped, frame 2 on the wire at {out.time_ps} ps, "
          f"frame 3 back in RX queue {qid}")
    print("ep0: counters " + " ".join(f"{k}={v}" for k, v in counters.items()))

    p4w = IonicP4(nic1)
    ident1 = await p4w.identify()
    try:
        await p4w.load_program(MINIMAL_FORWARD)
        raise AssertionError("a guest granted write replaced the program")
    except P4ControlError as e:
        assert e.status == IONIC_RC_EPERM, e
        refused_load = e.status
    print(f"ep1: scope {ident1['scope']}; program load refused with status {refused_load} (EPERM)")

    p4n = IonicP4(nic2, via="devcmd")
    try:
        await p4n.identify()
        raise AssertionError("the surface answered with scope none")
    except P4ControlError as e:
        assert e.status == IONIC_RC_EOPCODE, e
        refused_identify = e.status
    print(f"ep2: P4 capability {p4n.advertised}; IDENTIFY refused with status {refused_identify} (EOPCODE)")
    return {"counters": counters, "operations": ops, "scopes": [ident["scope"], ident1["scope"]],
            "refused": [refused_load, refused_identify], "capabilities": [p4.advertised, p4w.advertised, p4n.advertised]}
