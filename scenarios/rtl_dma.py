"""The DMA endpoint whose logic is SystemVerilog (models/rtl/dma, docs/cosim.md) in a slot of the
switch: enumerated as Linux does, a copy of host memory programmed by MMIO (5000 bytes from an odd
source to an odd destination, across 4 KiB boundaries), its MSI-X taken, the copied bytes
checked. The block's ports are in the run's VCD (open with waveforms/rtl_dma.gtkw) and
Verilator's trace of every signal of the block beside it (waves.ep0.vcd). Needs a build with the
RTL co-simulation (DPUSIM_RTL=ON)."""
from dpusim.drivers import rtl_dma
from dpusim.drivers.pci import pci_host_probe
from dpusim.units import us

PLATFORM = {"topology": {"slots": [{"kind": "rtl_dma"}]}, "seed": 1}


async def scenario(sim):
    pci = await pci_host_probe(sim)
    dev = pci.find("02:00.0")
    assert (dev.vendor, dev.device, dev.class_code) == (rtl_dma.VENDOR_ID, rtl_dma.DEVICE_ID, rtl_dma.CLASS_DMA)
    (irq,) = await pci.alloc_irq_vectors(dev, 1)
    await pci.request_irq(dev, 0)
    regs = rtl_dma.regs(dev)
    h = sim.host
    assert await h.mem_read32(regs + rtl_dma.RTL_DMA_ID) == rtl_dma.RTL_DMA_ID_VALUE

    src, dst = h.alloc(3 * 4096), h.alloc(3 * 4096)
    data = bytes((i * 131 + 7) & 0xFF for i in range(5000))
    h.write(src + 0xFFD, data)
    mark = h.msi_mark()
    await rtl_dma.start_copy(sim, dev, src + 0xFFD, dst + 0x7FF, len(data))
    msi = await h.wait_msi(data=irq, since=mark, timeout_ps=us(200))
    status = await h.mem_read32(regs + rtl_dma.RTL_DMA_STATUS)
    assert status == rtl_dma.RTL_DMA_STATUS_DONE, f"DMA_STATUS {status:#x}"
    copied = h.read(dst + 0x7FF, len(data))
    assert copied == data, "the copied bytes differ"
    assert h.read(dst + 0x7FF - 1, 1) == b"\0" and h.read(dst + 0x7FF + len(data), 1) == b"\0"
    count = await h.mem_read32(regs + rtl_dma.RTL_DMA_COUNT)
    print(f"copied {len(data)} bytes {src + 0xFFD:#x} -> {dst + 0x7FF:#x}: MSI-X {msi.data:#x} "
          f"at {msi.time_ps} ps, DMA_STATUS {status:#x}, DMA_COUNT {count}")
    return {"bytes": len(data), "msi_ps": msi.time_ps, "status": status, "count": count}
