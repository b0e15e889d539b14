"""A misbehaving virtio-net driver: random descriptor rings, from one seed
(./dpusim run scenarios/guest_fuzz_rings.py --seed N replays it exactly).

Each round probes the endpoint as Linux does, then writes garbage into one active queue's
descriptor table and avail ring (addresses inside, at the edge of and outside host memory,
lengths 0 to 4 GiB, any NEXT/WRITE/INDIRECT flags, next indices and heads past the ring, avail
index jumps) and kicks it. The device must process what is valid, flag what is malformed with
DEVICE_NEEDS_RESET, and never crash or hang; the invariant checker stays clean apart from the
DMA outside host memory the driver asked for and the application's own latent bug that these
short rounds keep hitting: a reset during the one-pair MQ start is followed by the start's
group enable (vq_enabled_after_reset, docs/vnet.md; scenarios/explore_mq_reset.py finds it by
exploration). The driver then resets the device for the next round."""
import struct

from dpusim.drivers.pci import pci_host_probe
from dpusim.drivers.virtio_net import VirtioNet, virtio_net_devices
from dpusim.drivers.virtio_regs import VIRTIO_CONFIG_S_NEEDS_RESET
from dpusim.units import ms

PLATFORM = {
    "host": {"cpus": 2},
    "topology": {"family": "vnet", "options": {"num-ep": 1, "hotplug-mode": 0, "max-queue-pairs": 2}},
    "wires": [{"a": "ep0", "b": "loopback"}],
}
ROUNDS = 6


def garbage_descriptor(rng, buffers, vq):
    base = rng.choice(buffers)
    addr = rng.choice([base, base + rng.randrange(4096), base + 4095, vq.desc, vq.avail, 0, 0xFEE00000,
                       0x7FFF_0000_0000, rng.getrandbits(64)])
    length = rng.choice([0, 1, 12, 60, 1514, 4096, 65536, 0xFFFFFFFF, rng.getrandbits(32)])
    flags = rng.getrandbits(3)  # VRING_DESC_F_NEXT, _WRITE, _INDIRECT in any combination
    nxt = rng.choice([rng.randrange(vq.size), vq.size, 0xFFFF, rng.getrandbits(16)])
    return addr, length, flags, nxt


async def one_round(sim, pci, dev, rng, buffers):
    net = await VirtioNet(sim, pci, dev).probe()
    await net.open(buffers=rng.choice([0, 1, 8]))
    vq = rng.choice(net.vqs[:2 * net.curr_queue_pairs])
    for _ in range(rng.randint(1, 8)):
        vq.write_desc(rng.randrange(vq.size), *garbage_descriptor(rng, buffers, vq))
    heads = rng.randint(1, 4)
    for j in range(heads):
        sim.host.write(vq.avail + 4 + 2 * ((vq.avail_idx + j) % vq.size),
                       struct.pack("<H", rng.choice([rng.randrange(vq.size), vq.size + 1, 0xFFFF])))
    vq.avail_idx = (vq.avail_idx + rng.choice([heads, heads, vq.size + 1, 0x8000])) & 0xFFFF
    sim.host.write(vq.avail + 2, struct.pack("<H", vq.avail_idx))
    await vq.kick()
    await sim.sleep(ms(2))
    status = await net.get_status()
    sim.log_event("host.fuzz", "ring_round", vq=vq.index, status=status,
                  needs_reset=bool(status & VIRTIO_CONFIG_S_NEEDS_RESET))
    await net.reset()
    return status


async def scenario(sim, rounds=ROUNDS):
    pci = await pci_host_probe(sim)
    (dev,) = virtio_net_devices(pci)
    sim.expect_violation("dma_outside_memory", 0)  # the driver pointed descriptors there
    sim.expect_violation("vq_enabled_after_reset", 0)  # the application's known latent bug
    rng = sim.rng
    buffers = [sim.host.alloc(4096, 64) for _ in range(4)]
    return [await one_round(sim, pci, dev, rng, buffers) for _ in range(rounds)]
