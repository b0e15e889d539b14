"""The ionic NIC's Ethernet queues and interrupts: completion colours across ring wraps, the
transmit gather (scatter-gather lists, bad descriptors), receive buffers (a frame too big, the
inbox limit), and the interrupt control blocks (mask latch and replay, mask on assert, credits,
coalescing)."""
import struct

from dpusim.drivers.ionic_regs import *  # noqa: F403
from dpusim.testing import run_ok
from dpusim.units import us
from ionic_util import PEER_MAC, bring_up, frame, ionic_platform


def test_completion_colour_flips_at_each_ring_wrap():
    async def scenario(sim):
        _, (nic,) = await bring_up(sim, ring_length=4)
        tx, rx = nic.txqs[0], nic.rxqs[0]
        sent = [frame(nic.mac, PEER_MAC, 60 + n, n) for n in range(7)]
        for f in sent:                 # one at a time: a ring of 4 holds 3
            await nic.send(f)
            await nic.recv(1)
        colours = [[sim.host.read(q.cq_ring + i * 16, 16)[15] >> 7 for i in range(4)] for q in (tx, rx)]
        return colours, tx.done_color, rx.done_color, tx.cq_tail

    colours, tx_color, rx_color, tail = run_ok(scenario, ionic_platform({}, wires=[("ep0", "loopback")])).result
    # Seven completions in a ring of four: slots 0..2 are on their second pass (colour 0),
    # slot 3 still holds its first (colour 1); the driver now expects 0.
    assert colours == [[0, 0, 0, 1], [0, 0, 0, 1]]
    assert (tx_color, rx_color, tail) == (0, 0, 3)


def test_transmit_gathers_scatter_gather_lists_and_completes_bad_descriptors():
    async def scenario(sim):
        _, (nic,) = await bring_up(sim)
        h, tx = sim.host, nic.txqs[0]
        f = frame(PEER_MAC, nic.mac, 300)
        head, a, b = h.alloc(100), h.alloc(150), h.alloc(50)
        h.write(head, f[:100])
        h.write(a, f[100:250])
        h.write(b, f[250:])
        descs = [
            (2 << IONIC_TXQ_DESC_NSGE_SHIFT | head << IONIC_TXQ_DESC_ADDR_SHIFT, 300, [(a, 150), (b, 50)]),
            (head << IONIC_TXQ_DESC_ADDR_SHIFT, 0, []),                         # length 0
            (head << IONIC_TXQ_DESC_ADDR_SHIFT, 9601, []),                      # too long
            (1 << IONIC_TXQ_DESC_NSGE_SHIFT | head << IONIC_TXQ_DESC_ADDR_SHIFT, 150, [(a, 150)]),  # no head
            (9 << IONIC_TXQ_DESC_NSGE_SHIFT | head << IONIC_TXQ_DESC_ADDR_SHIFT, 300, []),           # 9 elements
        ]
        for i, (cmd, length, sg) in enumerate(descs):
            h.write(tx.ring + i * 16, struct.pack("<QH6x", cmd, length))
            h.write(tx.sg_ring + i * TXQ_SG_DESC_BYTES, b"".join(struct.pack("<QH6x", ad, ln) for ad, ln in sg))
        tx.head = len(descs)
        mark = h.msi_mark()
        await nic.ring_doorbell(tx, tx.head)
        out = await sim.net.recv(0, timeout_ps=us(100))
        await h.wait_msi(data=nic.irqs[tx.intr], since=mark, timeout_ps=us(100))
        comps = [h.read(tx.cq_ring + i * 16, 16) for i in range(len(descs))]
        return out.data == f, [(c[0], struct.unpack_from("<H", c, 2)[0], c[15]) for c in comps]

    res = run_ok(scenario, ionic_platform({}, wires=[("ep0", "python")]))
    same, comps = res.result
    assert same
    assert comps == [(0, i, 0x80) for i in range(5)]   # every descriptor completed, status 0
    assert [e["reason"] for e in res.events("tx_error", path="ep0")] == [
        "descriptor length 0", "frame longer than 9600 bytes",
        "scatter-gather elements cover the whole frame length", "more than 8 scatter-gather elements"]
    assert len(res.events("frame", path="wire0")) == 1


def test_receive_drops_a_frame_larger_than_its_buffer_and_keeps_the_buffer():
    async def scenario(sim):
        _, (nic,) = await bring_up(sim)
        big, small = frame(nic.mac, PEER_MAC, 2000), frame(nic.mac, PEER_MAC, 100)
        sim.net.send(0, big)
        sim.net.send(0, small)
        (_, got), = await nic.recv(1)
        return got == small, nic.rxqs[0].cq_tail

    res = run_ok(scenario, ionic_platform({}, wires=[("ep0", "python")]))
    assert res.result == (True, 1)
    (e,) = res.events("rx_too_big", path="ep0")
    assert (e["len"], e["capacity"], e["index"]) == (2000, 1518, 0)
    (ledger,) = res.events("frame_ledger")
    assert (ledger["sent"], ledger["received"], ledger["dropped"]) == (2, 1, 1)


def test_frames_wait_for_buffers_in_an_inbox_of_256():
    async def scenario(sim):
        await bring_up(sim, open_=False)   # no RX queue: every frame waits in the inbox
        for n in range(300):
            sim.net.send(0, frame(PEER_MAC, PEER_MAC, 60, n))
        await sim.sleep(us(200))

    res = run_ok(scenario, ionic_platform({}, wires=[("ep0", "python")]))
    drops = [e for e in res.events("frame_drop", path="ep0")]
    assert len(drops) == 44 and {e["reason"] for e in drops} == {"rx_inbox_full"}
    (ledger,) = res.events("frame_ledger")
    assert (ledger["sent"], ledger["dropped"], ledger["in_flight"]) == (300, 44, 256)


def test_interrupt_mask_latches_and_unmask_replays():
    async def scenario(sim):
        _, (nic,) = await bring_up(sim)
        h, intr = sim.host, nic.rxqs[0].intr
        ctrl = lambda off: nic.regs + IONIC_BAR0_INTR_CTRL_OFFSET + intr * IONIC_INTR_CTRL_BYTES + off
        regs = [await h.mem_read32(ctrl(off)) for off in (INTR_CTRL_COAL_INIT, INTR_CTRL_MASK, INTR_CTRL_MASK_ASSERT)]
        await h.mem_write32(ctrl(INTR_CTRL_MASK), IONIC_INTR_MASK_SET)
        mark = h.msi_mark()
        await nic.send(frame(nic.mac, PEER_MAC, 64))
        await sim.sleep(us(50))
        silent = h.msis[mark:] == []
        status = await h.mem_read32(nic.regs + IONIC_BAR0_INTR_STATUS_OFFSET)
        credits = await h.mem_read32(ctrl(INTR_CTRL_CREDITS))
        t_unmask = sim.now
        await h.mem_write32(ctrl(INTR_CTRL_MASK), IONIC_INTR_MASK_CLEAR)
        msi = await h.wait_msi(data=nic.irqs[intr], since=mark, timeout_ps=us(10))
        (_, got), = await nic.recv(1)
        status_after = await h.mem_read32(nic.regs + IONIC_BAR0_INTR_STATUS_OFFSET)
        return regs, silent, status, credits, msi.time_ps - t_unmask, len(got), status_after

    regs, silent, status, credits, delay, length, status_after = run_ok(
        scenario, ionic_platform({}, wires=[("ep0", "loopback")])).result
    assert regs == [8, 0, 1]        # 8 us coalescing (Linux's default), unmasked, mask on assert
    assert silent and status == 1 << 1 and status_after == 0
    assert credits == 2             # the TX and the RX completion, not yet returned
    assert delay < us(2) and length == 64


def test_coalescing_delays_the_message_by_coal_init():
    async def scenario(sim):
        _, (nic,) = await bring_up(sim, coalesce_usecs=20)
        h = sim.host
        written = h.wait_write(nic.rxqs[0].cq_ring, 16)
        mark = h.msi_mark()
        await nic.send(frame(nic.mac, PEER_MAC, 64))
        t_comp = await written
        msi = await h.wait_msi(data=nic.irqs[1], since=mark, timeout_ps=us(100))
        return msi.time_ps - t_comp

    delay = run_ok(scenario, ionic_platform({}, wires=[("ep0", "loopback")])).result
    # The TX completion started the 20 us timer a little before the RX completion landed.
    assert us(19) < delay <= us(20)
