"""Two ionic NICs behind the switch, their uplinks joined by one wire.

Linux's ionic probe on each (devcmd IDENTIFY, LIF_IDENTIFY, INIT, PORT_INIT, MSI-X, the queue
identities, LIF_INIT, the admin queue by devcmd, the notify queue, features, the station MAC
and its filter over the admin queue), then `ip link set up` on both: a TX and an RX queue per
CPU, the receive rings filled. Frames of several sizes go both ways through the wire, gathered
from one guest's memory by DMA and scattered into the other's posted buffers, and are checked
byte for byte; the pcap of the wire holds them."""
from dpusim.drivers.ionic import probe_all
from dpusim.drivers.pci import pci_host_probe
from dpusim.units import ms

PLATFORM = {
    "host": {"cpus": 2},
    "topology": {"slots": [{"kind": "ionic"}, {"kind": "ionic"}]},
    "wires": [{"a": "ep0", "b": "ep1"}],
}
SIZES = [60, 64, 128, 512, 1000, 1514]


def frame(dst, src, n, size):
    payload = bytes((n * 31 + i * 7) & 0xFF for i in range(size - 14))
    return dst + src + b"\x88\xb5" + payload


async def scenario(sim):
    pci = await pci_host_probe(sim)
    a, b = await probe_all(sim, pci)
    t_probed = sim.now
    await a.open()
    await b.open()
    print(f"{a.bdf} {a.mac.hex(':')} and {b.bdf} {b.mac.hex(':')} probed at {t_probed / 1e9:.3f} ms, "
          f"up at {sim.now / 1e9:.3f} ms ({a.nxqs} queue pairs each, firmware {a.fw_version})")
    sent = {a: [], b: []}
    for n, size in enumerate(SIZES):
        for src, dst in ((a, b), (b, a)):
            f = frame(dst.mac, src.mac, n, size)
            sent[dst].append(f)
            await src.send(f, qid=n % src.nxqs)
    for nic in (a, b):
        got = [f for _, f in await nic.recv(len(SIZES), timeout_ps=ms(5))]
        assert got == sent[nic], f"{nic.bdf}: the frames received differ from those sent"
        print(f"{nic.bdf}: {len(got)} frames received, byte for byte as sent ({sum(map(len, got))} bytes)")
    return {"probed_ps": t_probed, "frames": {a.bdf: len(sent[a]), b.bdf: len(sent[b])}}
