"""Bring-up of the virtio-net endpoints of the DOCA vnet_pci_dev application, as a Linux host
sees it: the application's defaults with -q 8 and base MAC 52:54:00:12:34:56, four endpoints
in static mode (-n 4 -H 0), a host with four CPUs.

The host enumerates the switch, then Linux's virtio_net probes each endpoint in BDF order
(reset, ACKNOWLEDGE, DRIVER, features, FEATURES_OK, MSI-X vectors and queues, DRIVER_OK) and
asks for min(4 CPUs, 8) = 4 queue pairs with VQ_PAIRS_SET. In static mode with several
endpoints the application defers every data queue pair until all four controllers are live,
sleeps 400 ms before each controller's first control request, and then starts the deferred
queue pairs in background threads, two at a time. Once up, each interface sends frames on each
of its four transmit queues through a loopback plug on its wire and receives them back, every
frame checked byte for byte. One pcap per wire shows the traffic."""
from dpusim.drivers.pci import pci_host_probe
from dpusim.drivers.virtio_net import ethernet_frame, probe_all
from dpusim.units import s

NUM_EP = 4
PLATFORM = {
    "host": {"cpus": 4},
    "topology": {"family": "vnet", "options": {"num-ep": NUM_EP, "hotplug-mode": 0, "max-queue-pairs": 8,
                                               "mac-addr": "52:54:00:12:34:56"}},
    "wires": [{"a": f"ep{i}", "b": "loopback"} for i in range(NUM_EP)],
}
FRAMES_PER_QUEUE = 2


def test_frame(net, qp, k):
    payload = bytes((net.dev.rid + 7 * qp + 13 * k + i) & 0xFF for i in range(64 + 100 * k))
    return ethernet_frame(b"\x02\x00\x00\x00\x00\x01", net.mac, 0x88B5, payload)  # local experimental EtherType


async def traffic(sim, net):
    """Frames out on every active queue pair, back through the loopback, compared."""
    sent = [test_frame(net, qp, k) for qp in range(net.curr_queue_pairs) for k in range(FRAMES_PER_QUEUE)]
    for i, frame in enumerate(sent):
        await net.send(frame, qp=i // FRAMES_PER_QUEUE)
    got = await net.recv(len(sent), timeout_ps=s(2))
    received = sorted(frame for _, frame in got)
    assert received == sorted(sent), f"{net.bdf}: frames differ after the loopback"
    sim.log_event("host.virtio_net", "virtio_net", bdf=net.bdf, step="traffic_ok", frames=len(sent),
                  rx_queues=sorted({qp for qp, _ in got}))
    return len(sent)


async def scenario(sim):
    pci = await pci_host_probe(sim)
    nets = await probe_all(sim, pci)
    for net in nets:
        await net.open()
    counts = await sim.gather(*(traffic(sim, net) for net in nets))
    for net, n in zip(nets, counts):
        print(f"{net.bdf} mac {net.mac.hex(':')} queue pairs {net.curr_queue_pairs}/{net.max_queue_pairs}: "
              f"{n} frames looped back intact")
    print(f"all {len(nets)} interfaces passing traffic at {sim.now / 1e9:.3f} ms")
    return {"interfaces": [n.bdf for n in nets], "frames": counts, "time_ps": sim.now}
