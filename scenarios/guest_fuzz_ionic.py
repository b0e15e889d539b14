"""A misbehaving ionic guest, from one seed (./dpusim run scenarios/guest_fuzz_ionic.py --seed N
replays it exactly).

The NIC is probed and opened as Linux does (its P4 surface granted load), then the guest does
random things: device commands on the BAR0 window (any opcode, garbage bodies, DMA addresses
inside, at the edge of and outside host memory, a doorbell without clearing done), commands
posted on the admin queue (a Q_INIT that moves a queue included), garbage TX and RX
descriptors with their doorbells, doorbell writes of any size and value anywhere in BAR2,
interrupt control writes, BAR0 accesses at every region's edges, and P4 RPCs with random
operations, claims and request bytes. Its RDMA side is probed too (an EQ, the admin queue, a
CQ, a QP looped onto itself, a registered region), and a quarter of the operations are RDMA
ones: send and receive work requests of any opcode, flags, gather list and keys, admin WQEs of
any opcode and length with garbage bodies, CQ and EQ doorbells of any ring and index, and
now and then an RDMA devcmd (rarely a RESET_LIF, after which the RDMA side is gone). The device must answer what is valid,
refuse or drop what is not, and never crash or hang; the invariant checker stays clean apart
from the DMA outside host memory the guest asked for (and the completion timeouts of reads
there), and the frame ledger balances at the end."""
import struct

from dpusim.drivers.ionic import IonicError, cmd_bytes, probe_all
from dpusim.drivers.ionic_rdma import QTYPE_AQ, QTYPE_CQ, QTYPE_EQ, QTYPE_RQ, QTYPE_SQ, IonicRdma
from dpusim.drivers.ionic_regs import *  # noqa: F403
from dpusim.drivers.pci import pci_host_probe
from dpusim.units import us

PLATFORM = {
    "host": {"cpus": 1},
    "topology": {"slots": [{"kind": "ionic", "p4-program": "tests/data/p4/minimal_forward.json",
                            "p4-guest-scope": "load"}]},
    "wires": [{"a": "ep0", "b": "loopback"}],
}
OPERATIONS = 150
OPCODES = [0, 1, 2, 3, 11, 20, 21, 22, 23, 24, 30, 31, 39, 40, 41, 51, 53, 60, 70, 71, 72, 99, 255]
BAR0_EDGES = [0, 4, 7, 8, 0x7FC, 0x800, 0x804, 0x808, 0x848, 0x888, 0xFFC, 0x1000, 0x1004, 0x2000, 0x2004, 0x2008,
              0x200C, 0x2010, 0x23FC, 0x2400, 0x7FFC, 0x8000, 0x81F0, 0x8200, 0xA000, 0xA008, 0xFFF8, 0xFFFC]


def address(rng, buffers):
    base = rng.choice(buffers)
    return rng.choice([base, base + rng.randrange(4096), base + 4095, 0, 0xFEE00000, 0x7FFF_0000_0000,
                       rng.getrandbits(52)])


def garbage(rng, size):
    return bytes(rng.getrandbits(8) for _ in range(size))


def random_command(rng, buffers):
    op = rng.choice(OPCODES) if rng.random() < 0.8 else rng.randrange(256)
    body = bytearray(garbage(rng, IONIC_CMD_BYTES))
    body[0] = op
    if rng.random() < 0.5:
        struct.pack_into("<Q", body, CMD_INFO_PA, address(rng, buffers))
    if op == IONIC_CMD_Q_INIT and rng.random() < 0.7:
        body[Q_INIT_TYPE] = rng.randrange(5)
        struct.pack_into("<I", body, Q_INIT_INDEX, rng.randrange(5))
        body[Q_INIT_RING_SIZE] = rng.choice([0, 1, 4, 15, 16, 255])
        for off in (Q_INIT_RING_BASE, Q_INIT_CQ_RING_BASE, Q_INIT_SG_RING_BASE):
            struct.pack_into("<Q", body, off, address(rng, buffers))
    if op == IONIC_CMD_P4_RPC:
        body[1] = rng.randrange(5)
        struct.pack_into("<HII", body, 2, rng.randrange(4), rng.randrange(2), rng.randrange(6))
        struct.pack_into("<QI", body, 28, address(rng, buffers), rng.choice([0, 8, 64, 4096, 70000]))
        body[40] = 0
        struct.pack_into("<QI", body, 44, address(rng, buffers), rng.choice([0, 16, 256, 70000]))
        body[56] = 0
    return bytes(body)


async def rdma_operation(sim, rng, rdma, res, buffers):
    """One random RDMA action: a send or receive WQE, an admin WQE, a CQ/EQ doorbell or an
    RDMA devcmd."""
    h, qp, mr = sim.host, res["qp"], res["mr"]
    kind = rng.random()
    if kind < 0.45:
        send = rng.random() < 0.7
        ring, stride, depth = (qp.sq_ring, qp.sq_stride, qp.sq_depth) if send else (qp.rq_ring, qp.rq_stride,
                                                                                    qp.rq_depth)
        head = rng.randrange(depth)
        wqe = bytearray(garbage(rng, stride))
        wqe[8] = rng.choice([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 13, rng.randrange(256)])
        wqe[9] = rng.choice([0, 1, 2, 8, 40, rng.randrange(256)])
        struct.pack_into(">H", wqe, 10, rng.choice([0, 0x4, 0x8, 0xC, rng.getrandbits(16)]))
        for i in range(min(wqe[9], (stride - 32) // 16)):
            struct.pack_into(">QII", wqe, 32 + 16 * i, rng.choice([mr.addr + rng.randrange(4096), address(rng, buffers)]),
                             rng.choice([0, 1, 64, 4096, 5000, rng.getrandbits(32)]),
                             rng.choice([mr.key, mr.key, 0, rng.getrandbits(32)]))
        if rng.random() < 0.5:
            struct.pack_into(">IIII", wqe, 16, 0, mr.addr + rng.randrange(4096), rng.choice([mr.key, 0, 7]),
                             rng.choice([8, 100, 4096, rng.getrandbits(32)]))
        h.write(ring + head * stride, bytes(wqe))
        await rdma.doorbell(QTYPE_SQ if send else QTYPE_RQ, qp.id,
                            rng.choice([(head + 1) % depth, rng.getrandbits(16)]))
        await sim.sleep(us(20))
    elif kind < 0.7:
        aq = rdma.aq
        length = rng.choice([0, 4, 34, 45, 60, 64, 124, 252, 300, rng.getrandbits(16)])
        op = rng.choice(list(range(20)) + [rng.randrange(256)])
        for i in range(rng.randint(1, 4)):
            stride = bytearray(garbage(rng, 64))
            if i == 0:
                struct.pack_into("<BxH", stride, 0, op, length)
                if rng.random() < 0.5:
                    struct.pack_into("<Q", stride, 4 + rng.choice([16, 24, 32, 48]), address(rng, buffers))
            h.write(aq["ring"] + 64 * ((aq["head"] + i) % aq["depth"]), bytes(stride))
        aq["head"] = (aq["head"] + rng.randint(1, 4)) % aq["depth"]
        await rdma.doorbell(QTYPE_AQ, rng.choice([0, 0, 1]), aq["head"])
        await sim.sleep(us(30))
    elif kind < 0.9:
        qtype = rng.choice([QTYPE_CQ, QTYPE_CQ, QTYPE_EQ])
        await rdma.doorbell(qtype, rng.choice([res["cq"].id, 0, rng.randrange(300)]), rng.getrandbits(16),
                            ring=rng.choice([0, 1, 2, 3]))
        await sim.sleep(us(5))
    else:
        op = 50 if rng.random() < 0.1 else rng.choice([51, 52, 53])  # RESET_LIF ends the RDMA side
        cmd = bytearray(garbage(rng, IONIC_CMD_BYTES))
        cmd[0] = op
        struct.pack_into("<Q", cmd, 16, address(rng, buffers))
        try:
            await rdma.nic.adminq_cmd(bytes(cmd), timeout_ps=us(200), check=False)
        except IonicError:
            pass


async def one_operation(sim, rng, nic, buffers):
    h, regs = sim.host, nic.regs
    devcmd = regs + IONIC_BAR0_DEV_CMD_REGS_OFFSET
    kind = rng.random()
    if kind < 0.2:
        await h.mem_write(devcmd + DEV_CMD_CMD, random_command(rng, buffers))
        if rng.random() < 0.8:
            await h.mem_write32(devcmd + DEV_CMD_DONE, 0)
        await h.mem_write32(devcmd + DEV_CMD_DOORBELL, rng.choice([1, 0xFFFFFFFF, 0]))
        await sim.sleep(rng.choice([0, us(1), us(5)]))
    elif kind < 0.35:
        q = nic.adminq
        n = rng.randint(1, 3)
        for i in range(n):
            h.write(q.ring + ((q.head + i) % q.depth) * ADMIN_CMD_BYTES, random_command(rng, buffers))
        q.head = (q.head + n) % q.depth
        await nic.ring_doorbell(q, q.head)
        await sim.sleep(us(10))
    elif kind < 0.5:
        q = rng.choice(nic.txqs + nic.rxqs)
        n = rng.randint(1, 4)
        for i in range(n):
            addr = address(rng, buffers)
            if q.qtype == IONIC_QTYPE_TXQ:
                cmd = rng.randrange(16) << IONIC_TXQ_DESC_NSGE_SHIFT | (addr & ((1 << 52) - 1)) << IONIC_TXQ_DESC_ADDR_SHIFT
                desc = struct.pack("<QH6x", cmd, rng.choice([0, 14, 60, 1514, 9600, 9601, 0xFFFF]))
                h.write(q.sg_ring + ((q.head + i) % q.depth) * TXQ_SG_DESC_BYTES,
                        b"".join(struct.pack("<QH6x", address(rng, buffers), rng.choice([0, 10, 100, 5000]))
                                 for _ in range(8)))
            else:
                desc = struct.pack("<B5xHQ", 0, rng.choice([0, 60, 1518, 0xFFFF]), addr)
            h.write(q.ring + ((q.head + i) % q.depth) * ETH_DESC_BYTES, desc)
        q.head = (q.head + n) % q.depth
        await nic.ring_doorbell(q, rng.choice([q.head, rng.getrandbits(16)]))
        await sim.sleep(us(20))
    elif kind < 0.65:
        size = rng.choice([1, 2, 4, 8, 8, 8, 16])
        off = rng.choice([0, 8, 16, 24, 32, 4096, 4096 + 24, IONIC_BAR2_SIZE - 8, rng.randrange(IONIC_BAR2_SIZE)])
        off -= off % size
        await h.mem_write(nic.bar2.base + off, garbage(rng, size))
        await sim.sleep(us(5))
    elif kind < 0.75:
        vec = rng.randrange(33)
        off = rng.choice([INTR_CTRL_COAL_INIT, INTR_CTRL_MASK, INTR_CTRL_CREDITS, INTR_CTRL_MASK_ASSERT, INTR_CTRL_COAL])
        await h.mem_write32(regs + IONIC_BAR0_INTR_CTRL_OFFSET + vec * IONIC_INTR_CTRL_BYTES + off,
                            rng.choice([0, 1, 63, 0x10000, 0x20000, 0x30005, rng.getrandbits(32)]))
    elif kind < 0.9:
        off = rng.choice(BAR0_EDGES)
        length = rng.choice([1, 2, 4, 8, 16, 64])
        if rng.random() < 0.6:
            await h.mem_read(regs + off, length)
        elif off < 0x800 or off >= 0x1000:  # the devcmd block has its own operations above
            await h.mem_write(regs + off, garbage(rng, length))
    else:
        # An RPC whose request is whatever the buffer holds (a chunk, a commit, an update).
        rpc = cmd_bytes(IONIC_CMD_P4_RPC, [(1, "B", rng.randrange(4)), (2, "H", 3), (8, "I", rng.randrange(6)),
                                           (28, "Q", buffers[0]), (36, "I", rng.choice([8, 64, 200])),
                                           (44, "Q", buffers[1]), (52, "I", 256)])
        try:
            await nic.adminq_cmd(rpc, timeout_ps=us(200), check=False)
        except IonicError:
            pass  # the guest broke its own admin queue


async def scenario(sim, operations=OPERATIONS):
    pci = await pci_host_probe(sim)
    (nic,) = await probe_all(sim, pci)
    await nic.open()
    sim.expect_violation("dma_outside_memory", 0)
    rng = sim.rng
    buffers = [sim.host.alloc(4096) for _ in range(4)]
    for b in buffers:
        sim.host.write(b, bytes(rng.getrandbits(8) for _ in range(4096)))
    rdma = await IonicRdma(nic).probe()
    cq = await rdma.create_cq(16)
    res = {"cq": cq, "qp": await rdma.create_qp(cq, cq, sq_depth=16, rq_depth=16), "mr": await rdma.reg_mr(4096)}
    await rdma.connect(res["qp"], res["qp"].id)
    sim.expect_violation("completion_timeout", 0)
    for _ in range(operations):
        if rng.random() < 0.25:
            await rdma_operation(sim, rng, rdma, res, buffers)
        else:
            await one_operation(sim, rng, nic, buffers)
    await sim.sleep(us(200))
    return operations
