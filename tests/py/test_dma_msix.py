"""DMA across the switch both ways, and MSI-X delivery with masking and the PBA."""
from dpusim.drivers import testep as tep
from dpusim.drivers.pci import pci_host_probe
from dpusim.testing import run_ok
from dpusim.units import us

PLATFORM = {"topology": {"endpoints": 2}}


async def bring_up(sim, slot=0):
    pci = await pci_host_probe(sim)
    dev = pci.find(f"{2 + slot:02x}:00.0")
    irqs = await pci.alloc_irq_vectors(dev, 4)
    return pci, dev, irqs


def test_dma_from_host_into_device_memory_and_back():
    async def scenario(sim):
        pci, dev, irqs = await bring_up(sim)
        await pci.request_irq(dev, 1)
        src = sim.host.alloc(8192)
        dst = sim.host.alloc(8192)
        pattern = bytes((i * 7 + 3) & 0xFF for i in range(5000))
        sim.host.write(src + 3, pattern)  # unaligned start, odd length
        mark = sim.host.msi_mark()
        await tep.start_dma(sim, dev, src + 3, 0x100, len(pattern), to_host=False, vector=1)
        msi = await sim.host.wait_msi(data=irqs[1], since=mark, timeout_ps=us(100))
        assert msi.requester == "02:00.0" and msi.address == 0xFEE00000 | 1 << 12  # vector 1 -> CPU 1
        status = await sim.host.mem_read32(tep.bar(dev, 0) + tep.TEP_DMA_STATUS)
        assert status == tep.TEP_DMA_STATUS_DONE
        # Device memory now holds the pattern: read it through BAR2 from the host.
        cpl = await sim.host.mem_read(tep.bar(dev, 2) + 0x100, len(pattern))
        assert cpl.ok and cpl.data == pattern
        # And back out to another host buffer at another odd offset.
        await tep.start_dma(sim, dev, dst + 5, 0x100, len(pattern), to_host=True, vector=1)
        await sim.host.wait_msi(data=irqs[1], timeout_ps=us(100))
        assert sim.host.read(dst + 5, len(pattern)) == pattern
        assert sim.host.read(dst, 5) == b"\0" * 5
        return len(pattern)

    res = run_ok(scenario, PLATFORM)
    # The read crossed the fabric as MRds split at MRRS 512 and completions at MPS 256 / RCB 64.
    mrds = res.events("tlp", type="MRd", path="link_dsp0", dir="up")
    assert len(mrds) == (3 + 5000 + 511) // 512
    cplds = [e for e in res.events("tlp", type="CplD", path="link_host", dir="down")]
    assert sum(e["len"] for e in cplds) >= 5000 // 4
    assert all(e["len"] <= 64 for e in cplds)


def test_dma_writes_ordered_before_the_msi():
    async def scenario(sim):
        pci, dev, irqs = await bring_up(sim)
        await pci.request_irq(dev, 0)
        dst = sim.host.alloc(4096)
        await tep.start_dma(sim, dev, dst, 0, 4096, to_host=True, vector=0)
        msi = await sim.host.wait_msi(data=irqs[0], timeout_ps=us(100))
        return msi.time_ps

    res = run_ok(scenario, PLATFORM)
    writes = res.events("tlp", type="MWr", path="link_host", dir="up")
    data_writes = [e for e in writes if int(e["addr"], 16) < 0xFEE00000]
    msi_writes = [e for e in writes if int(e["addr"], 16) >= 0xFEE00000]
    assert len(data_writes) == 4096 // 128  # the endpoint's MPS is 128 B at reset
    assert msi_writes[0]["rx_ps"] > max(e["rx_ps"] for e in data_writes)


def test_msix_masked_vector_sets_pba_and_delivers_on_unmask():
    async def scenario(sim):
        pci, dev, irqs = await bring_up(sim)
        regs = tep.bar(dev, 0)
        h = sim.host
        # Vector 2 is masked (alloc_irq_vectors leaves every entry masked).
        mark = h.msi_mark()
        await h.mem_write32(regs + tep.TEP_IRQ_RAISE, 2)
        await sim.sleep(us(5))
        assert h.msis[mark:] == []
        pba = await h.mem_read64(regs + tep.MSIX_PBA)
        assert pba == 1 << 2
        await pci.request_irq(dev, 2)  # unmask: the pending message goes out now
        msi = await h.wait_msi(data=irqs[2], since=mark, timeout_ps=us(10))
        assert await h.mem_read64(regs + tep.MSIX_PBA) == 0
        # Function Mask holds every vector pending, whatever its own mask bit.
        cap = dev.cap(0x11)
        ctrl = await h.config_read16(dev.rid, cap + 2)
        await h.config_write16(dev.rid, cap + 2, ctrl | 0x4000)
        mark2 = h.msi_mark()
        await h.mem_write32(regs + tep.TEP_IRQ_RAISE, 2)
        await sim.sleep(us(5))
        assert h.msis[mark2:] == []
        assert await h.mem_read64(regs + tep.MSIX_PBA) == 1 << 2
        await h.config_write16(dev.rid, cap + 2, ctrl & ~0x4000)
        again = await h.wait_msi(data=irqs[2], since=mark2, timeout_ps=us(10))
        return msi.data, again.data

    res = run_ok(scenario, PLATFORM)
    outcomes = [e["outcome"] for e in res.events("msix_raise")]
    assert outcomes == ["pending", "pending"]


def test_msix_table_reads_back_what_the_host_programmed():
    async def scenario(sim):
        pci, dev, irqs = await bring_up(sim, slot=1)
        table = tep.bar(dev, 0) + tep.MSIX_TABLE
        for i, data in enumerate(irqs):
            assert await sim.host.mem_read32(table + 16 * i) == 0xFEE00000 | (i % 4) << 12
            assert await sim.host.mem_read32(table + 16 * i + 8) == data
            assert await sim.host.mem_read32(table + 16 * i + 12) == 1  # masked
        # A QW read of address lo/hi together.
        assert await sim.host.mem_read64(table) == 0xFEE00000

    run_ok(scenario, PLATFORM)
