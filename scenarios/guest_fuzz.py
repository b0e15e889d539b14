"""A misbehaving guest: random config and MMIO accesses to every function of a 4-endpoint
platform, from one seed (./dpusim run scenarios/guest_fuzz.py --seed N replays it exactly).

Sizes, byte enables and offsets cluster at and past every boundary (header, capability list,
extended space, BAR ends, the MSI-X table and PBA). The guest may break its own system: move
bus numbers, disable decode, power slots off, point the DMA engine at unallocated memory. It is
entitled to the consequences (UR, completion timeouts of requests in flight on a link it took
down, refused DMA), which are declared expected; anything else the invariant checker reports
fails the run, and the simulator must neither crash nor hang."""
from dpusim.bdf import bdf
from dpusim.drivers.pci import pci_host_probe

PLATFORM = {"topology": {"endpoints": 4}}
OPERATIONS = 200

CONFIG_EDGES = [0x00, 0x04, 0x06, 0x0C, 0x10, 0x18, 0x1C, 0x20, 0x24, 0x28, 0x30, 0x34, 0x3C, 0x3E,
                0x40, 0x44, 0x48, 0x7C, 0x80, 0x8C, 0xFC, 0xFE, 0xFF, 0x100, 0x104, 0xFFC, 0xFFE, 0xFFF]


def config_access(rng):
    size = rng.choice([1, 2, 4])
    off = rng.choice(CONFIG_EDGES) if rng.random() < 0.7 else rng.randrange(0x1000)
    off -= off % size
    return off, size


def value(rng, size):
    return rng.choice([0, (1 << (8 * size)) - 1, rng.getrandbits(8 * size), 1 << rng.randrange(8 * size)])


async def one_operation(sim, rng, functions, bars):
    h = sim.host
    kind = rng.random()
    if kind < 0.35:
        target = rng.choice(functions)
        off, size = config_access(rng)
        await h.config_read(target, off, size)
    elif kind < 0.55:
        target = rng.choice(functions)
        off, size = config_access(rng)
        await h.config_write(target, off, value(rng, size), size)
    else:
        base, size = rng.choice(bars)
        edge = rng.choice([0, 4, 0x1c, 0x20, 0x24, 0x2000, 0x2008, 0x21F8, 0x3000, 0x3008, size - 8, size - 4,
                           size, size + 4, rng.randrange(size)])
        length = rng.choice([1, 2, 3, 4, 5, 7, 8, 12, 16, 64])
        addr = base + edge
        if kind < 0.8:
            await h.mem_read(addr, length)
        else:
            data = bytes(rng.getrandbits(8) for _ in range(length))
            await h.mem_write(addr, data)


async def scenario(sim, operations=OPERATIONS):
    pci = await pci_host_probe(sim)
    rng = sim.rng
    functions = [d.rid for d in pci.devices()] + [bdf("02:01.0"), bdf("01:1f.0"), bdf("07:00.0"), bdf("00:00.1")]
    bars = [(b.base, b.size) for d in pci.devices() for b in d.bars]
    # Consequences a guest is entitled to cause on its own system.
    sim.expect_violation("completion_timeout", 0)
    sim.expect_violation("dma_outside_memory", 0)
    for _ in range(operations):
        await one_operation(sim, rng, functions, bars)
    return operations
