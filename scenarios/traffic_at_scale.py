"""Traffic at a user's scale: one virtio-net endpoint of the DOCA vnet_pci_dev application with
two queue pairs, brought up TLP by TLP by the Linux-like driver, then frames sent and checked by
the driver's datapath in C++ (net.traffic): first in the TLP-accurate mode, then with the
endpoint's DMA switched to the loosely timed mode (direct memory access, analytic timing,
temporal decoupling: docs/fidelity.md), IMIX-like sizes from the platform's seeded stream. The
event log keeps the summary (state changes, MSIs, per-second frame counters), not every TLP,
and neither the VCD nor the wire's capture is written. The driver keeps the rings full, so a
frame's latency is mostly its wait in the transmit ring: the first frame's is the device's."""
from dpusim.drivers.pci import pci_host_probe
from dpusim.drivers.virtio_net import probe_all
from dpusim.units import ms

PLATFORM = {
    "host": {"cpus": 2},
    "topology": {"family": "vnet", "options": {"num-ep": 1, "hotplug-mode": 0, "max-queue-pairs": 2}},
    "wires": [{"a": "ep0", "b": "loopback"}],
    "outputs": {"log": "summary", "vcd": False, "pcap": False},
}
IMIX = [(64, 7), (576, 4), (1500, 1)]  # frame length (bytes, no FCS), weight


async def scenario(sim):
    net = (await probe_all(sim, await pci_host_probe(sim)))[0]
    await net.open(buffers=256)
    await sim.wait_event("vq_state", path="ep0", vq=3, state="ENABLED")  # the second pair runs
    results = {}
    for fidelity, frames in (("tlp", 5_000), ("lt", 50_000)):
        await sim.set_fidelity(fidelity, device="ep0")
        r = await net.traffic(frames, size=IMIX, timeout_ps=ms(1000))
        assert r.ok, r.first_problem
        gbps = r.bytes_sent * 8 / (r.elapsed_ps / 1e12) / 1e9
        print(f"{fidelity}: {r.good} frames checked in {r.elapsed_ps / 1e9:.3f} ms ({gbps:.1f} Gb/s), "
              f"first frame's latency {r.latency_min_ps / 1e6:.3f} us")
        results[fidelity] = {"frames": r.good, "elapsed_ps": r.elapsed_ps, "bytes": r.bytes_sent}
    return results
