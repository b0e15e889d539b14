"""The driver side of a split virtqueue (Linux drivers/virtio/virtio_ring.c): the descriptor
table, avail and used rings in host memory, written and read by the CPU (in zero simulated
time, as a CPU's own memory accesses are); the device reaches them by DMA."""
import struct

from dpusim.drivers.virtio_regs import (VRING_DESC_F_NEXT, VRING_DESC_F_WRITE, VRING_DESC_SIZE,
                                        VRING_USED_ELEM_SIZE)


class Virtqueue:
    """vring_create_virtqueue_split: three separately allocated areas (desc 16-aligned, avail
    2-aligned, used 4-aligned), a free list of descriptors, the driver's shadow indices."""

    def __init__(self, sim, index, size, notify_addr):
        self.sim = sim
        self.index = index
        self.size = size
        self.notify_addr = notify_addr
        h = sim.host
        self.desc = h.alloc(VRING_DESC_SIZE * size, 16)
        self.avail = h.alloc(6 + 2 * size, 2)
        self.used = h.alloc(6 + VRING_USED_ELEM_SIZE * size, 4)
        self.free = list(range(size))
        self.avail_idx = 0
        self.last_used = 0
        self.tokens = {}  # head -> (token, descriptors)

    @property
    def used_idx_addr(self):
        return self.used + 2

    def add(self, out_bufs, in_bufs, token):
        """virtqueue_add_split: chains device-readable `out_bufs` then device-writable
        `in_bufs` ((address, length) pairs), publishes the head in the avail ring, returns it."""
        bufs = [(a, n, 0) for a, n in out_bufs] + [(a, n, VRING_DESC_F_WRITE) for a, n in in_bufs]
        if len(bufs) > len(self.free):
            raise RuntimeError(f"virtqueue {self.index}: {len(bufs)} descriptors wanted, {len(self.free)} free")
        ids = [self.free.pop(0) for _ in bufs]
        for k, (addr, length, flags) in enumerate(bufs):
            last = k == len(bufs) - 1
            nxt = 0 if last else ids[k + 1]
            self.write_desc(ids[k], addr, length, flags | (0 if last else VRING_DESC_F_NEXT), nxt)
        head = ids[0]
        self.tokens[head] = (token, ids)
        self.sim.host.write(self.avail + 4 + 2 * (self.avail_idx % self.size), struct.pack("<H", head))
        self.avail_idx = (self.avail_idx + 1) & 0xFFFF
        self.sim.host.write(self.avail + 2, struct.pack("<H", self.avail_idx))  # after the entry
        return head

    def write_desc(self, i, addr, length, flags, nxt):
        self.sim.host.write(self.desc + VRING_DESC_SIZE * i, struct.pack("<QIHH", addr, length, flags, nxt))

    def device_used_idx(self):
        return struct.unpack("<H", self.sim.host.read(self.used_idx_addr, 2))[0]

    def get(self):
        """virtqueue_get_buf: (token, written length) of the next used buffer, or None."""
        if self.device_used_idx() == self.last_used:
            return None
        elem = self.used + 4 + VRING_USED_ELEM_SIZE * (self.last_used % self.size)
        head, length = struct.unpack("<II", self.sim.host.read(elem, 8))
        self.last_used = (self.last_used + 1) & 0xFFFF
        token, ids = self.tokens.pop(head)
        self.free.extend(ids)
        return token, length

    async def kick(self):
        """virtqueue_notify: the queue's index written to its notify address."""
        await self.sim.host.mem_write16(self.notify_addr, self.index)
