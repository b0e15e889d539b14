"""bmv2's loopback.json on the ionic NIC's datapath: the guest's round trip.

The program sends every frame back out of the port it came in on. A frame the guest transmits
ingresses on P4_PORT_HOST (0) and so egresses there too: the device injects it into the guest's
own receive ring, and nothing reaches the wire. The frames come back byte for byte, and the
stats line at the end counts them: host_in=3 host_out=3 to_guest=3."""
from dpusim.drivers.ionic import probe_all
from dpusim.drivers.pci import pci_host_probe

PLATFORM = {
    "host": {"cpus": 1},
    "topology": {"slots": [{"kind": "ionic", "p4-program": "tests/data/p4/loopback.json"}]},
    "wires": [{"a": "ep0", "b": "loopback"}],
}


async def scenario(sim):
    pci = await pci_host_probe(sim)
    (nic,) = await probe_all(sim, pci)
    await nic.open()
    frames = [nic.mac + bytes.fromhex("02aabbccddee") + b"\x08\x00" + bytes([n]) * (46 + 100 * n) for n in range(3)]
    t0 = sim.now
    for f in frames:
        await nic.send(f)
    got = [f for _, f in await nic.recv(len(frames))]
    assert got == frames, "the frames that came back differ from those sent"
    print(f"{len(frames)} frames sent and back in the guest's receive ring after {(sim.now - t0) / 1e6:.3f} us")
    return len(got)
