"""For schedule exploration (./dpusim explore scenarios/explore_mq_reset.py --seeds 1-1000):
an endpoint is brought up, traffics, is reset, and comes up again; nothing is placed on an
event of the model.

One endpoint (-n 1 -H 0 -q 8), a host with four CPUs. The driver probes it and asks for four
queue pairs: the application answers at once and starts pairs 1..3 in the background. CPU 0
passes frames through the loopback plug on the first queue pair. On CPU 1 an administrator
rebinds the driver (unbind: the device reset, then a fresh probe) at a moment after the
interface came up: a choice point, the first instant in a nominal run, any time in the first
400 ms under exploration. Once both are done, the driver passes frames on every queue pair.

In the nominal run the reset lands while the first background pair starts: the application
cancels the start before the next pair and everything comes back. Under exploration some seeds
reset after the start's last cancel check and before its final group enable: the application
enables the queue pair on a device the host has reset (docs/vnet.md), and the invariant
vq_enabled_after_reset fails the run there. tests/py/test_explore.py replays such a seed."""
from dpusim.drivers.pci import pci_host_probe
from dpusim.drivers.virtio_net import VirtioNet, ethernet_frame, virtio_net_devices
from dpusim.errors import SimTimeout
from dpusim.units import ms, s

PLATFORM = {
    "host": {"cpus": 4},
    "topology": {"family": "vnet", "options": {"num-ep": 1, "hotplug-mode": 0, "max-queue-pairs": 8}},
    "wires": [{"a": "ep0", "b": "loopback"}],
}
REBIND_WINDOW_MS = 400
MQ_DONE = "Background thread: MQ start QPs 1 -> 4 completed successfully"


def frames_for(net, qps, per_queue=2):
    return [(qp, ethernet_frame(b"\x02\x00\x00\x00\x00\x02", net.mac, 0x88B5, bytes([qp, k]) * 40))
            for qp in range(qps) for k in range(per_queue)]


async def loop_frames(net, qps):
    """Frames out on the first `qps` queue pairs and back through the loopback, compared."""
    frames = frames_for(net, qps)
    for qp, frame in frames:
        await net.send(frame, qp=qp)
    got = await net.recv(len(frames), timeout_ps=s(1))
    assert sorted(f for _, f in got) == sorted(f for _, f in frames), "frames differ after the loopback"
    return len(frames)


async def rebind(sim, pci, dev, net):
    """The administrator on CPU 1: unbind (virtnet_remove: the device reset), then bind."""
    await sim.sleep(sim.explore.delay("rebind_ms", 0, 0, ms(REBIND_WINDOW_MS)))
    sim.log("administrator rebinds the driver", path="host.admin")
    await net.reset()
    return await VirtioNet(sim, pci, dev).probe()


async def scenario(sim):
    pci = await pci_host_probe(sim)
    (dev,) = virtio_net_devices(pci)
    net = await VirtioNet(sim, pci, dev).probe()
    await net.open()
    admin = sim.spawn(rebind(sim, pci, dev, net), "admin")
    try:
        first = await loop_frames(net, 1)
    except (AssertionError, SimTimeout) as e:  # the rebind may reset the device under the traffic
        first = f"interrupted ({type(e).__name__})"
    net = await admin
    mq_done = sim.wait_event("log", msg=MQ_DONE)
    await net.open()
    await mq_done
    n = await loop_frames(net, net.curr_queue_pairs)
    print(f"first traffic: {first}; after the rebind {n} frames on {net.curr_queue_pairs} queue pairs")
    return {"first": first, "frames": n}
