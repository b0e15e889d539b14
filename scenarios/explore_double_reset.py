"""For schedule exploration (./dpusim explore scenarios/explore_double_reset.py --seeds 1-1000):
two endpoints are brought up, reset and trafficked by two uncoordinated host agents; nothing is
placed on an event of the model.

Two endpoints in static mode (-n 2 -H 0 -q 8), a host with four CPUs. CPU 0 runs Linux's
serial probe (endpoint 0, then endpoint 1: each controller's first control request makes the
application's single worker sleep 400 ms). Once endpoint 0 is up, two agents act on it, each at
a moment drawn from the next second (choice points; nominal moments in a nominal run):
  - on CPU 1 an administrator rebinds the driver (the device reset, its poll until the status
    reads 0, a fresh probe);
  - on CPU 2 a user-space tool writes device_status = 0 once, without polling, as a fuzzing
    host does (the application's source notes: "Linux does not do this, but a fuzzing host would").
A probe that the tool's reset breaks fails as Linux's would, and is retried. When both agents
are done, the driver rebinds every endpoint and passes frames on each.

Nominally the rebind comes first and the tool last, well after it. Under exploration some
seeds land the tool's write while the rebind's reset cleanup is still queued behind the
sleeping worker: the application's latent double-reset hazard (docs/vnet.md) holds the status
at 0x40 for ever, and reset_hold_never_released fails the run at the instant its only cleanup
is skipped. tests/py/test_explore.py replays such a seed."""
from dpusim.drivers.pci import pci_host_probe
from dpusim.drivers.virtio_net import VirtioNet, VirtioNetError, ethernet_frame, virtio_net_devices
from dpusim.drivers.virtio_regs import VIRTIO_PCI_COMMON_STATUS
from dpusim.errors import SimTimeout
from dpusim.units import ms, s

PLATFORM = {
    "host": {"cpus": 4},
    "topology": {"family": "vnet", "options": {"num-ep": 2, "hotplug-mode": 0, "max-queue-pairs": 8}},
    "wires": [{"a": "ep0", "b": "loopback"}, {"a": "ep1", "b": "loopback"}],
}
WINDOW_MS = 1000
PROBE_LIMIT = s(5)  # a probe the tool broke may wait for ever on its control queue, as Linux's would


async def probe(sim, pci, dev):
    """A bind: the driver's probe, or None when it fails (the device reset under it)."""
    try:
        return await sim.timeout(VirtioNet(sim, pci, dev).probe(), PROBE_LIMIT)
    except (VirtioNetError, SimTimeout) as e:
        sim.log(f"probe of {dev.bdf} failed: {type(e).__name__}", path="host.virtio_net")
        return None


async def admin_rebind(sim, pci, dev, net):
    await sim.sleep(sim.explore.delay("rebind_ms", 0, 0, ms(WINDOW_MS)))
    sim.log(f"administrator rebinds the driver of {dev.bdf}", path="host.admin")
    await net.reset()
    await probe(sim, pci, dev)


async def tool_reset(sim, net):
    await sim.sleep(sim.explore.delay("tool_ms", ms(WINDOW_MS), 0, ms(WINDOW_MS)))
    sim.log(f"a user-space tool writes device_status = 0 to {net.bdf}", path="host.tool")
    await sim.host.mem_write8(net.common + VIRTIO_PCI_COMMON_STATUS, 0)


async def traffic(net):
    frames = [ethernet_frame(b"\x02\x00\x00\x00\x00\x03", net.mac, 0x88B5, bytes([k]) * 60) for k in range(4)]
    for frame in frames:
        await net.send(frame, qp=0)
    got = await net.recv(len(frames), timeout_ps=s(1))
    assert sorted(f for _, f in got) == sorted(frames), f"{net.bdf}: frames differ after the loopback"
    return len(frames)


async def scenario(sim):
    pci = await pci_host_probe(sim)
    dev0, dev1 = virtio_net_devices(pci)
    net0 = await probe(sim, pci, dev0)
    agents = [sim.spawn(admin_rebind(sim, pci, dev0, net0), "admin"), sim.spawn(tool_reset(sim, net0), "tool")]
    await probe(sim, pci, dev1)
    await sim.gather(*agents)
    # Both agents done: a clean rebind of every endpoint, then traffic on each.
    nets = []
    for dev in (dev0, dev1):
        nets.append(await VirtioNet(sim, pci, dev).probe())
    for net in nets:
        await net.open()
    counts = [await traffic(net) for net in nets]
    print(f"after the rebind and the tool's reset: {counts} frames looped back on {[n.bdf for n in nets]}")
    return counts
