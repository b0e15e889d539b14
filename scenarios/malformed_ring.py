"""A driver bug the device must survive: a malformed transmit ring.

One endpoint, up and passing traffic. The driver then publishes a transmit chain whose first
descriptor has length 0. The device (the offload engine's firmware) finds it when it walks the
ring after the kick and does what virtio 1.2 §2.1.2 says: it ORs DEVICE_NEEDS_RESET (0x40) into
the status the driver set (0x0F -> 0x4F), raises the configuration-change interrupt on
config_msix_vector, and stops using its queues, which it keeps doing until the driver resets:
nothing crashes or hangs, and later kicks are ignored. The driver sees the config interrupt,
reads 0x4F, resets and probes again, and traffic passes."""
from dpusim.drivers.pci import pci_host_probe
from dpusim.drivers.virtio_net import VirtioNet, ethernet_frame, virtio_net_devices
from dpusim.drivers.virtio_regs import VIRTIO_CONFIG_S_NEEDS_RESET
from dpusim.units import ms, us

PLATFORM = {
    "host": {"cpus": 2},
    "topology": {"family": "vnet", "options": {"num-ep": 1, "hotplug-mode": 0, "max-queue-pairs": 2}},
    "wires": [{"a": "ep0", "b": "loopback"}],
}


def frame_for(net, tag):
    return ethernet_frame(b"\x02\x00\x00\x00\x00\x03", net.mac, 0x88B5, bytes([tag]) * 60)


async def bring_up(sim, pci, dev):
    net = await VirtioNet(sim, pci, dev).probe()
    await net.open()
    await sim.wait_event("vq_state", path="ep0", vq=3, state="ENABLED")  # the MQ start is done
    f = frame_for(net, 1)
    await net.send(f, qp=0)
    ((_, back),) = await net.recv(1)
    assert back == f
    return net


async def publish_bad_tx(net, kind):
    """A transmit chain as the buggy driver leaves it, kicked."""
    vq = net.vqs[1]
    buf = net.sim.host.alloc(64, 64)
    if kind == "zero_length":
        vq.add([(buf, 0)], [], token=buf)
    elif kind == "loop":
        head = vq.add([(buf, 32), (buf + 32, 32)], [], token=buf)
        second = vq.tokens[head][1][1]
        vq.write_desc(second, buf + 32, 32, 1, head)  # the last descriptor chains back to the head
    elif kind == "index_out_of_range":
        head = vq.add([(buf, 64)], [], token=buf)
        vq.write_desc(head, buf, 64, 1, vq.size + 5)
    elif kind == "outside_memory":
        vq.add([(0x7FFF_0000_0000, 64)], [], token=buf)
    else:
        raise ValueError(kind)
    await vq.kick()


async def break_ring(sim, net, kind):
    """Returns (status after the config interrupt, the MSI)."""
    mark = sim.host.msi_mark()
    await publish_bad_tx(net, kind)
    msi = await sim.host.wait_msi(data=net.vectors[0], since=mark, timeout_ps=ms(1))
    return await net.get_status(), msi


async def scenario(sim):
    pci = await pci_host_probe(sim)
    (dev,) = virtio_net_devices(pci)
    net = await bring_up(sim, pci, dev)
    status, msi = await break_ring(sim, net, "zero_length")
    assert status == 0x4F, f"status {status:#x}"
    # It stays so: time passes, kicks are ignored, the status still reads 0x4F.
    await sim.sleep(ms(5))
    await net.send(frame_for(net, 2), qp=0)
    await sim.sleep(us(100))
    still = await net.get_status()
    assert still & VIRTIO_CONFIG_S_NEEDS_RESET, f"status {still:#x}"
    sim.log(f"device needs reset: status {still:#04x}, config interrupt at {msi.time_ps} ps", path="host.virtio_net")
    polls = await net.reset()
    net = await bring_up(sim, pci, dev)
    print(f"malformed ring: status {status:#04x} with the config interrupt at {msi.time_ps / 1e9:.6f} ms; "
          f"reset after {polls} polls, re-probed and passing traffic")
    return {"status": status, "config_msi_ps": msi.time_ps, "polls": polls}
