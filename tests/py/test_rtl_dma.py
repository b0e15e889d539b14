"""The DMA endpoint whose logic is SystemVerilog (models/rtl/dma, docs/cosim.md) on the platform:
the scenario replays bit for bit with its outputs (the platform's VCD with the block's ports, and
Verilator's trace of the whole block beside it), and a guest's mistakes get what the hardware
gives (zero or ignored registers, Completer Abort, error status bits, the overrun flag), never a
failed run."""
import os

import pytest

from dpusim.cli import load_scenario
from dpusim.drivers import rtl_dma
from dpusim.drivers.pci import pci_host_probe
from dpusim.run import run
from dpusim.units import us
from vcd import read_vcd

pytestmark = pytest.mark.rtl

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLATFORM = {"topology": {"slots": [{"kind": "rtl_dma"}]}, "seed": 1}


def test_the_scenario_replays_with_the_blocks_waves(tmp_path):
    fn, platform = load_scenario(os.path.join(ROOT, "scenarios", "rtl_dma.py"))
    a = run(fn, platform, out=str(tmp_path / "a"))
    b = run(fn, platform, out=str(tmp_path / "b"))
    assert a.ok, a.describe()
    assert a.hash == b.hash
    files = sorted(os.listdir(tmp_path / "a"))
    assert {"events.jsonl", "waves.vcd", "waves.ep0.vcd"} <= set(files)
    for f in files:
        assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes(), f
    assert a.result["bytes"] == 5000 and a.result["count"] == 1
    assert a.result["status"] == rtl_dma.RTL_DMA_STATUS_DONE

    waves = read_vcd(tmp_path / "a" / "waves.vcd")
    view = [line for line in open(os.path.join(ROOT, "waveforms", "rtl_dma.gtkw")).read().splitlines()
            if line.startswith("SystemC.")]
    assert view and [n for n in view if n[len("SystemC."):].split("[")[0] not in waves] == []
    # The MSI-X request leaves the block before the message reaches the host, which counts it at
    # the time the scenario saw it.
    assert [t for t, v in waves["host.msi_count"] if v == 1] == [a.result["msi_ps"]]
    irq = [t for t, v in waves["ep0.rtl.irq_valid"] if v == 1]
    assert len(irq) == 1 and irq[0] < a.result["msi_ps"]
    # The block's clock is gated: it stops (no edges) between the reset and the first request.
    clk = [t for t, _ in waves["ep0.rtl.clk"]]
    assert max(b - a for a, b in zip(clk, clk[1:])) > 1000 * 4000

    # Verilator's trace holds the block's insides: the completed-copies counter steps to 1 once,
    # on a rising edge of the block's clock as the platform's VCD has it.
    inside = read_vcd(tmp_path / "a" / "waves.ep0.vcd")
    count = [(t, v) for t, v in inside["rtl_dma.regs.count_q"] if v]
    assert [v for _, v in count] == [1]
    assert (count[0][0], 1) in waves["ep0.rtl.clk"]


async def misbehaving_guest(sim):
    pci = await pci_host_probe(sim)
    dev = pci.find("02:00.0")
    (irq,) = await pci.alloc_irq_vectors(dev, 1)
    await pci.request_irq(dev, 0)
    regs = rtl_dma.regs(dev)
    h = sim.host
    out = {}

    # Registers: unassigned ones read 0 and ignore writes; read-only ones ignore writes; a write
    # of two bytes in the middle of a register changes those bytes; a read of over 16 DWs is
    # refused with Completer Abort, and the block answers the next one.
    await h.mem_write32(regs + 0x100, 0xDEADBEEF)
    await h.mem_write32(regs + rtl_dma.RTL_DMA_ID, 0)
    await h.mem_write32(regs + rtl_dma.RTL_DMA_COUNT, 5)
    await h.mem_write32(regs + rtl_dma.RTL_DMA_SRC_LO, 0x11223344)
    await h.mem_write(regs + rtl_dma.RTL_DMA_SRC_LO + 1, b"\xaa\xbb")
    out["unassigned"] = await h.mem_read32(regs + 0x100)
    out["id"] = await h.mem_read32(regs + rtl_dma.RTL_DMA_ID)
    out["count_written"] = await h.mem_read32(regs + rtl_dma.RTL_DMA_COUNT)
    out["src_lo"] = await h.mem_read32(regs + rtl_dma.RTL_DMA_SRC_LO)
    out["long_read"] = (await h.mem_read(regs, 17 * 4)).status
    out["after"] = await h.mem_read32(regs + rtl_dma.RTL_DMA_ID)

    async def copy(src, dst, length):
        mark = h.msi_mark()
        await rtl_dma.start_copy(sim, dev, src, dst, length)
        await h.wait_msi(data=irq, since=mark, timeout_ps=us(500))
        status = await h.mem_read32(regs + rtl_dma.RTL_DMA_STATUS)
        await h.mem_write32(regs + rtl_dma.RTL_DMA_STATUS, status)  # RW1C: clear what is set
        return status

    buf = h.alloc(2 * 4096)
    # A zero length fails at once, with its cause.
    out["zero"] = await copy(buf, buf + 4096, 0)
    # A source past the end of host memory: the host's Unsupported Request fails the copy.
    sim.expect_violation("dma_outside_memory", 0)
    out["bad_src"] = await copy(0x3F_FFFF_F000, buf, 4096)
    # A destination there: the writes are posted, so the engine completes; the host drops them.
    out["bad_dst"] = await copy(buf, 0x3F_FFFF_F000, 256)
    # A doorbell while a copy runs is dropped and flagged; the copy completes once.
    big = h.alloc(65536), h.alloc(65536)
    mark = h.msi_mark()
    await rtl_dma.start_copy(sim, dev, big[0], big[1], 65536)
    await h.mem_write32(regs + rtl_dma.RTL_DMA_DOORBELL, rtl_dma.RTL_DMA_DOORBELL_START)
    await h.wait_msi(data=irq, since=mark, timeout_ps=us(500))
    out["overrun"] = await h.mem_read32(regs + rtl_dma.RTL_DMA_STATUS)
    await sim.sleep(us(50))
    out["msis"] = len(h.msis) - mark
    out["count"] = await h.mem_read32(regs + rtl_dma.RTL_DMA_COUNT)
    return out


def test_a_misbehaving_guest_gets_what_the_hardware_gives():
    res = run(misbehaving_guest, PLATFORM)
    assert res.ok, res.describe()
    r = res.result
    assert (r["unassigned"], r["id"], r["count_written"]) == (0, rtl_dma.RTL_DMA_ID_VALUE, 0)
    assert r["src_lo"] == 0x11BBAA44
    assert (r["long_read"], r["after"]) == ("CA", rtl_dma.RTL_DMA_ID_VALUE)
    assert r["zero"] == rtl_dma.RTL_DMA_STATUS_ERROR | rtl_dma.RTL_DMA_CAUSE_LENGTH << rtl_dma.RTL_DMA_STATUS_CAUSE_SHIFT
    assert rtl_dma.error_cause(r["bad_src"]) == (rtl_dma.RTL_DMA_CAUSE_CPL_STATUS, 1)  # UR
    assert r["bad_src"] & 0xF == rtl_dma.RTL_DMA_STATUS_ERROR
    assert r["bad_dst"] == rtl_dma.RTL_DMA_STATUS_DONE
    assert r["overrun"] == rtl_dma.RTL_DMA_STATUS_DONE | rtl_dma.RTL_DMA_STATUS_OVERRUN
    assert (r["msis"], r["count"]) == (1, 2)  # bad_dst and the big copy completed
    # The bad source's eight reads of 512 bytes (Max_Read_Request_Size) were all outstanding
    # (eight tags) when the first UR came back; the bad destination's two writes of 128 bytes
    # (Max_Payload_Size) were dropped by the host.
    refused = [(e["op"], int(e["addr"], 16), e["len"]) for e in res.events("dma_outside_memory")]
    assert refused == [("read", 0x3F_FFFF_F000 + 512 * i, 128) for i in range(8)] + [
        ("write", 0x3F_FFFF_F000, 32), ("write", 0x3F_FFFF_F080, 32)]
