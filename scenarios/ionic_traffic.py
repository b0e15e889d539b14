"""Traffic at a user's scale on the ionic NIC: one NIC behind the switch, its uplink plugged into
a loopback, opened by the Linux-like ionic driver with two queue pairs; a batch of frames
through the driver's batch path (send_many, recv_many), compared byte for byte; then frames
sent and checked by the driver's Ethernet datapath in C++ (nic.traffic), first with the NIC's
DMA TLP by TLP, then loosely timed (direct memory access, analytic timing, temporal
decoupling: docs/fidelity.md), IMIX-like sizes from the platform's seeded stream. The event log
keeps the summary (state changes, MSIs, per-second frame counters), not every TLP; neither the
VCD nor the wire's capture is written."""
from dpusim.drivers.ionic import probe_all
from dpusim.drivers.pci import pci_host_probe
from dpusim.units import ms

PLATFORM = {
    "host": {"cpus": 2},
    "topology": {"slots": [{"kind": "ionic"}]},
    "wires": [{"a": "ep0", "b": "loopback"}],
    "outputs": {"log": "summary", "vcd": False, "pcap": False},
}
IMIX = [(64, 7), (576, 4), (1500, 1)]  # frame length (bytes, no FCS), weight


async def scenario(sim):
    (nic,) = await probe_all(sim, await pci_host_probe(sim))
    await nic.open()
    batch = [nic.mac + nic.mac + b"\x88\xb5" + bytes((k + i) & 0xFF for i in range(46 + 29 * k)) for k in range(50)]
    await nic.send_many(batch[:25], 0)
    await nic.send_many(batch[25:], 1)
    got = await nic.recv_many(len(batch))
    # One receive queue takes every frame (rocm-ernic), in the order the wire brought them.
    assert sorted(f for _, f in got) == sorted(batch), "the batch differs from what was sent"
    print(f"{len(batch)} frames through send_many and recv_many, byte for byte")
    results = {}
    for fidelity, frames in (("tlp", 5_000), ("lt", 50_000)):
        await sim.set_fidelity(fidelity)
        r = await nic.traffic(frames, size=IMIX, dst=nic.mac, timeout_ps=ms(1000))
        assert r.ok, r.first_problem
        gbps = r.bytes_sent * 8 / (r.elapsed_ps / 1e12) / 1e9
        print(f"{fidelity}: {r.good} frames checked in {r.elapsed_ps / 1e9:.3f} ms ({gbps:.1f} Gb/s), latency "
              f"{r.latency_min_ps / 1e6:.3f} / {r.latency_mean_ps / 1e6:.3f} / {r.latency_max_ps / 1e6:.3f} us "
              f"(min / mean / max)")
        results[fidelity] = {"frames": r.good, "elapsed_ps": r.elapsed_ps, "bytes": r.bytes_sent}
    return results
